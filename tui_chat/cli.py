"""The composition root: parse arguments, build the context, run a command or the app.

Everything is imported inside `main`'s guard, so that even a Ctrl+C during start-up, or a bug,
ends in one sentence and an exit code rather than a traceback.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # argparse and the commands are imported only when there are arguments
    import argparse

    from tui_chat.commands.context import Context

PROG = "tui-chat"


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from tui_chat import __version__
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
    ask.add_argument("-m", "--model", dest="ask_model", action="append", metavar="MODEL",
                     help="model to use; given 2-4 times, each model answers the prompt in "
                     "turn (a comparison, saved as alternative replies); PROVIDER:MODEL "
                     "names another provider than -p")
    ask.add_argument("--compare", metavar="A,B",
                     help="compare these models (comma-separated; as -m given several times)")
    ask.add_argument("--persona", metavar="NAME",
                     help="use a persona's system prompt, parameters and model")
    ask.add_argument("-s", "--system", help="system prompt")
    ask.add_argument("--temperature", type=float, help="sampling temperature, 0 to 2")
    ask.add_argument("--max-tokens", type=int, help="largest number of tokens in the reply")
    ask.add_argument("--e2ee", choices=("required", "auto", "off"),
                     help="end-to-end encryption to the model's instance (Chutes): required "
                     "sends nothing a model cannot take encrypted; auto where it can; kept "
                     "with the conversation")
    ask.add_argument("--reasoning", choices=("default", "off", "low", "medium", "high"),
                     help="how much the model reasons: off, or a lighter or heavier effort; "
                     "default: the model's own. Sent only to a model known to take it; kept "
                     "with the conversation")
    ask.add_argument("--timeout", type=float,
                     help="seconds without a complete event before a stalled stream is "
                     "abandoned")
    ask.add_argument("--show-reasoning", action="store_true",
                     help="write the model's reasoning to stderr")
    ask.add_argument("--no-save", action="store_true", help="do not save the exchange")
    ask.add_argument("-y", "--yes", action="store_true",
                     help="answer yes to every confirmation the exchange asks for (without "
                          "it, one is asked on the terminal, and refused when there is none)")
    ask.add_argument("--approve-tools", action="store_true",
                     help="run every tool call of the configured tool servers without asking "
                     "(without it, each call is asked on the terminal, and refused when "
                     "there is none)")
    ask.add_argument("-e", "--editor", action="store_true",
                     help="write the prompt in $VISUAL or $EDITOR first (PROMPT, if given, is "
                     "the text it starts with); what is saved there is sent")
    ask.add_argument("--continue-reply", action="store_true",
                     help="no prompt: continue the last reply of the conversation (-c or "
                     "--conversation) where it ends, as a new branch; prints the new text")
    ask.add_argument("-a", "--attach", action="append", default=[], metavar="FILE",
                     help="attach a text file (sent as a fenced block) or an image (PNG, "
                     "JPEG, WebP, GIF; for models that read images); repeatable")
    _add_conversation_options(ask, "ask_")

    models = commands.add_parser("models", help="list the models of one or every provider",
                                 description="List model ids, one per line.")
    models.add_argument("-p", "--provider", dest="models_provider",
                        help="only this provider (default: all, grouped)")
    serve = commands.add_parser(
        "serve", help="serve the app to a web browser",
        description="Serve the app to a web browser (one app process per page). The "
        "address to open carries a token, printed at start, without which nothing is served "
        "(on loopback too: other accounts on this machine reach it as well).")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default: 127.0.0.1, this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    from tui_chat.commands.mcp import add_mcp_command

    add_mcp_command(commands)
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
    return _guarded(lambda: _dispatch(arguments))


def _dispatch(arguments: list[str]) -> int:
    """Collections wait while the imports run: they allocate a few hundred thousand objects
    that all live on, and the collector, run every 700 allocations, kept visiting them
    (a hundred collections, one of them full, about a tenth of the app's start-up). The app
    resumes them after its first frame (`gc_policy.after_start_up`), a command before it runs."""
    gc.disable()
    # No pydantic plugins: they hook other programs' validation (e.g. tracing), and looking
    # them up reads every installed package's metadata before the first frame (about a tenth
    # of start-up). PYDANTIC_DISABLE_PLUGINS set to anything else (even "") still wins.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        from tui_chat.commands.context import Context

        context = Context(os.environ)
        if not arguments:  # plain `tui-chat`: no parser to build (start-up is measured in ms)
            from tui_chat.commands.app import run_app

            return run_app(context)
        args = build_parser().parse_args(arguments)
        if args.command is None:
            from tui_chat.commands.app import run_app

            return run_app(context, provider=args.provider, model=args.model,
                           conversation=args.conversation, continue_last=args.continue_last)
        gc.enable()
        return _run_command(args, context)
    finally:
        gc.enable()


def _run_command(args: argparse.Namespace, context: Context) -> int:
    import asyncio

    from tui_chat.commands_store import STORE_COMMANDS, run_store_command
    from tui_chat.core.errors import UsageError

    if args.command == "ask":
        from tui_chat.commands.ask import run_ask

        return asyncio.run(run_ask(args, context))
    if args.command == "models":
        from tui_chat.commands.models import run_models

        return asyncio.run(run_models(args, context))
    if args.command == "mcp":
        from tui_chat.commands.mcp import run_mcp

        return asyncio.run(run_mcp(args, context))
    if args.command == "serve":
        from tui_chat.commands.serve import run_serve

        return run_serve(args.host, args.port)
    if args.command in STORE_COMMANDS:
        settings = context.settings()  # a broken config file stops every command
        with context.open_store(settings) as store:
            return run_store_command(args, store)
    raise UsageError(f"Unknown command '{args.command}'; see tui-chat --help.")


def _guarded(command: Callable[[], int]) -> int:
    """Run `command`; errors the user can act on become one sentence and an exit code."""
    try:
        try:
            return command()
        except Exception as error:
            return _report(error)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted.", file=sys.stderr)
        return 130


def _report(error: Exception) -> int:
    from tui_chat.core.errors import ExitCode, TuiChatError

    if isinstance(error, TuiChatError):
        from tui_chat.commands.advice import sentence

        print(f"{PROG}: {sentence(error)}", file=sys.stderr)
        return int(error.exit_code)
    if isinstance(error, BrokenPipeError):
        # The reader went away (`| head`): nothing to say and no one to say it to, and the
        # code a shell reports for any tool stopped by SIGPIPE (what was received is saved,
        # as after Ctrl+C). Python's own flush at exit must not fail either, so stdout is
        # pointed at /dev/null.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return int(ExitCode.BROKEN_PIPE)
    from tui_chat.core.crash import crash_sentence, write_report  # a bug: a file, a sentence

    print(f"{PROG}: {crash_sentence(error, write_report(error))}", file=sys.stderr)
    return int(ExitCode.FAILURE)
