"""The composition root: parse arguments, load settings, build services, run a command or app."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from tui_chat import __version__
from tui_chat.core import paths
from tui_chat.core.config import Settings, load_settings
from tui_chat.core.errors import ExitCode, TuiChatError, UsageError
from tui_chat.core.events import ContentDelta, FinishReason, ReasoningDelta, RetryScheduled
from tui_chat.core.models import ChatMessage, Conversation, Parameters, Role
from tui_chat.core.providers import Provider
from tui_chat.core.store import Store
from tui_chat.core.text import cleaner_for, sanitize

if TYPE_CHECKING:  # the HTTP stack is imported only by the commands that talk to a provider,
    # so that `tui-chat` (the app) starts without it; argparse only when there are arguments
    import argparse

    from tui_chat.core.client import ProviderClient
    from tui_chat.core.session import ChatSession, SessionEvent

PROG = "tui-chat"


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from tui_chat.commands_store import add_store_commands

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="A fast, keyboard-first terminal chat client for Chutes, SUTRA and any "
        "OpenAI-compatible provider. With no command, starts the full-screen app.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("-p", "--provider",
                        help="provider to use (chutes, sutra, or one from config)")
    parser.add_argument("-m", "--model", help="model to use")
    _add_conversation_options(parser, "")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    ask = commands.add_parser("ask", help="stream one reply to stdout",
                              description="Stream one reply to stdout, for scripts and pipes.")
    ask.add_argument("prompt", nargs="?", help="the prompt; '-' or omitted reads stdin when piped")
    ask.add_argument("-p", "--provider", dest="ask_provider", help="provider to use")
    ask.add_argument("-m", "--model", dest="ask_model", help="model to use")
    ask.add_argument("-s", "--system", help="system prompt")
    ask.add_argument("--temperature", type=float, help="sampling temperature, 0 to 2")
    ask.add_argument("--max-tokens", type=int, help="largest number of tokens in the reply")
    ask.add_argument("--timeout", type=float,
                     help="seconds without a complete event before a stalled stream is "
                     "abandoned")
    ask.add_argument("--show-reasoning", action="store_true",
                     help="write the model's reasoning to stderr")
    ask.add_argument("--no-save", action="store_true", help="do not save the exchange")
    _add_conversation_options(ask, "ask_")

    models = commands.add_parser("models", help="list the models of one or every provider",
                                 description="List model ids, one per line.")
    models.add_argument("-p", "--provider", dest="models_provider",
                        help="only this provider (default: all, grouped)")
    add_store_commands(commands)
    return parser


def _add_conversation_options(parser: argparse.ArgumentParser, prefix: str) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-c", "--continue", dest=f"{prefix}continue_last", action="store_true",
                       help="continue the most recent conversation")
    group.add_argument("--conversation", dest=f"{prefix}conversation", metavar="ID",
                       help="continue the conversation with this id (or a unique prefix)")


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if not arguments:  # plain `tui-chat`: no parser to build (start-up is measured in ms)
        return _guarded(run_app)
    args = build_parser().parse_args(arguments)
    if args.command is None:
        return _guarded(lambda: run_app(provider=args.provider, model=args.model,
                                        conversation=args.conversation,
                                        continue_last=args.continue_last))
    return _guarded(lambda: _run_command(args))


def _run_command(args: argparse.Namespace) -> int:
    from tui_chat.commands_store import STORE_COMMANDS, run_store_command

    settings = load_settings(paths.config_file())
    if args.command == "ask":
        return asyncio.run(run_ask(args, settings))
    if args.command == "models":
        return asyncio.run(run_models(args, settings))
    if args.command in STORE_COMMANDS:
        return run_store_command(args)
    raise UsageError(f"Unknown command '{args.command}'; see tui-chat --help.")


def _guarded(command: Callable[[], int]) -> int:
    """Run `command`; errors the user can act on become one sentence and an exit code."""
    try:
        return command()
    except TuiChatError as error:
        print(f"{PROG}: {sanitize(error.message)}", file=sys.stderr)
        return int(error.exit_code)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): no traceback; Python's own flush at exit must not
        # fail either, so stdout is pointed at /dev/null.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return int(ExitCode.FAILURE)


def run_app(*, provider: str | None = None, model: str | None = None,
            conversation: str | None = None, continue_last: bool = False) -> int:
    """The full-screen app. It starts even with a broken config file (the defaults, and a
    notification naming the file) or an unusable store (a temporary one that says so)."""
    from tui_chat.ui.app import run  # Textual is imported only when the app runs

    if conversation:
        with Store.open() as store:
            conversation = store.resolve_id(conversation)
    # None: the app reads config.toml itself, and starts on the defaults if it is broken.
    return run(None, provider=provider, model=model, conversation=conversation,
               continue_last=continue_last)


def choose_model(settings: Settings, provider: Provider, requested: str | None) -> str:
    if requested:
        return requested
    if settings.default_model and provider.name == settings.default_provider:
        return settings.default_model
    model = provider.default_model
    if model is None:
        raise UsageError(
            f"No model given for {provider.display_name}: pass -m MODEL or set default_model "
            f"under [providers.{provider.name}] in config.toml."
        )
    return model


def read_prompt(prompt: str | None, stdin: TextIO) -> str:
    if prompt is None or prompt == "-":
        if prompt is None and stdin.isatty():
            raise UsageError("No prompt: pass it as an argument, or pipe it in and use '-'.")
        prompt = stdin.read()
    if not prompt.strip():
        raise UsageError("The prompt is empty: pass some text to ask.")
    return prompt


def build_client(settings: Settings, provider: Provider, timeout: float | None = None
                 ) -> ProviderClient:
    from tui_chat.core.client import ProviderClient
    from tui_chat.core.transport import tls_warning

    if (warning := tls_warning(provider)) is not None:  # every time: it is not safe
        print(f"{PROG}: warning: {warning}", file=sys.stderr)
    timeouts = settings.timeouts
    if timeout is not None:
        if timeout <= 0:
            raise UsageError("--timeout must be a positive number of seconds.")
        timeouts = timeouts.model_copy(update={"read": timeout})
    return ProviderClient(provider, settings.require_key(provider), timeouts=timeouts,
                          max_retries=settings.max_retries)


async def run_ask(args: argparse.Namespace, settings: Settings) -> int:
    prompt = read_prompt(args.prompt, sys.stdin)
    continuing = bool(args.ask_continue_last or args.continue_last or args.ask_conversation
                      or args.conversation)
    if args.no_save and not continuing:
        provider, model = _ask_model(args, settings, None)
        parameters = _ask_parameters(args, settings.parameters)
        system = args.system if args.system is not None else settings.system_prompt
        messages = ([ChatMessage(role=Role.SYSTEM, content=system)] if system else []) + [
            ChatMessage(role=Role.USER, content=prompt)]
        async with build_client(settings, provider, args.timeout) as client:
            return await print_stream(client.stream_chat(model, messages, parameters),
                                      args.show_reasoning)
    with Store.open() as store:
        if store.notice:
            print(f"{PROG}: {store.notice}", file=sys.stderr)
        session = _ask_session(store, args, settings)
        provider, model = _ask_model(args, settings, session.conversation)
        parameters = _ask_parameters(args, session.conversation.parameters
                                     if continuing else settings.parameters)
        if args.system is not None:
            session.set_system_prompt(args.system)
        async with build_client(settings, provider, args.timeout) as client:
            if args.no_save:
                messages = [*session.history(), ChatMessage(role=Role.USER, content=prompt)]
                events: AsyncIterator[SessionEvent] = client.stream_chat(model, messages,
                                                                         parameters)
            else:
                events = session.send(prompt, client=client, model=model, parameters=parameters)
            return await print_stream(events, args.show_reasoning)


def _ask_session(store: Store, args: argparse.Namespace, settings: Settings) -> ChatSession:
    from tui_chat.core.session import ChatSession

    wanted = args.ask_conversation or args.conversation
    if wanted:
        return ChatSession.resume(store, store.resolve_id(wanted))
    if args.ask_continue_last or args.continue_last:
        latest = store.latest_conversation()
        if latest is None:
            raise UsageError("There is no saved conversation to continue; ask without -c first.")
        return ChatSession(store, latest)
    return ChatSession.start(store, system_prompt=settings.system_prompt,
                             parameters=settings.parameters)


def _ask_model(args: argparse.Namespace, settings: Settings,
               conversation: Conversation | None) -> tuple[Provider, str]:
    """The provider and model asked for; a continued conversation keeps its last ones."""
    name = args.ask_provider or args.provider
    requested = args.ask_model or args.model
    if conversation is not None and conversation.model and name is None and requested is None:
        name, requested = conversation.provider, conversation.model
    provider = settings.resolve_provider(name or settings.default_provider)
    return provider, choose_model(settings, provider, requested)


def _ask_parameters(args: argparse.Namespace, base: Parameters) -> Parameters:
    try:
        parameters = base.model_copy(update={
            k: v for k, v in {"temperature": args.temperature,
                              "max_tokens": args.max_tokens}.items() if v is not None
        })
        return Parameters.model_validate(parameters.model_dump())
    except ValueError as error:
        raise UsageError(f"Invalid parameter: {error.errors()[0]['msg']}.") from None  # type: ignore[attr-defined]


async def print_stream(events: AsyncIterator[SessionEvent], show_reasoning: bool) -> int:
    """Write a reply's text to stdout as it arrives; reasoning to stderr if asked; one
    sentence on stderr on failure. Works on raw client events and on session events."""
    from tui_chat.core.session import ReplyFailed

    out, err = sys.stdout, sys.stderr
    clean = cleaner_for(out)
    wrote_any = False
    ends_with_newline = True
    failure: TuiChatError | None = None
    try:
        async for event in events:
            if isinstance(event, ContentDelta):
                out.write(clean(event.text))
                out.flush()
                wrote_any = True
                ends_with_newline = event.text.endswith("\n")
            elif isinstance(event, ReasoningDelta) and show_reasoning:
                err.write(sanitize(event.text))
                err.flush()
            elif isinstance(event, RetryScheduled):
                print(f"{PROG}: {event.reason}; retrying in {event.delay:.0f} s.", file=err)
            elif isinstance(event, FinishReason) and event.reason == "length":
                _warn_length(err)
            elif isinstance(event, ReplyFailed):
                failure = event.error
    except TuiChatError as error:
        failure = error
    finally:
        # Close the events as soon as we stop (a failed write to stdout, say), so a session
        # saves its reply as interrupted now rather than when the loop shuts down.
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()
    if failure is not None:
        if wrote_any and not ends_with_newline:
            out.write("\n")
            out.flush()
        print(f"{PROG}: {sanitize(failure.message)}", file=err)
        return int(failure.exit_code)
    if wrote_any and not ends_with_newline and out.isatty():
        out.write("\n")
    out.flush()
    return int(ExitCode.OK)


def _warn_length(err: TextIO) -> None:
    print(f"\n{PROG}: the reply stopped at the max-tokens limit; raise --max-tokens for more.",
          file=err)


async def run_models(args: argparse.Namespace, settings: Settings) -> int:
    names = [args.models_provider] if args.models_provider else settings.provider_names()
    grouped = len(names) > 1
    for index, name in enumerate(names):
        provider = settings.resolve_provider(name)
        ids, note = await list_model_ids(settings, provider)
        if note:
            print(f"{PROG}: {note}", file=sys.stderr)
        if grouped:
            print(("\n" if index else "") + f"# {provider.display_name} ({provider.name})")
        for model_id in ids:
            print(sanitize(model_id))
    return int(ExitCode.OK)


async def list_model_ids(settings: Settings, provider: Provider) -> tuple[list[str], str | None]:
    """The provider's models from /models, or its known list with a note saying why."""
    known = list(provider.spec.models)
    if not provider.spec.has_models_endpoint:
        return known, None
    from tui_chat.core.client import ProviderClient

    key = provider.api_key.get_secret_value() if provider.api_key else None
    async with ProviderClient(provider, key, timeouts=settings.timeouts, max_retries=0) as client:
        try:
            return [info.id for info in await client.list_models()], None
        except TuiChatError as error:
            return known, (f"could not list {provider.display_name}'s models "
                           f"({sanitize(error.message).rstrip('.')}); showing the known ones.")
