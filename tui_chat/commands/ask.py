"""`tui-chat ask`: one reply streamed to stdout, for scripts and pipes.

A view over the same `Workspace` as the app: it decides nothing about which provider, model,
key or client to use. With several models (-m A -m B, --compare A,B) it compares them
(ask_compare.py). `--no-save` runs the exchange on a temporary store (a continued
conversation is copied into it first), so that there is one code path and nothing is kept.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import TextIO, assert_never

from tui_chat.commands.advice import sentence
from tui_chat.commands.ask_terminal import TerminalAsker
from tui_chat.commands.context import Context
from tui_chat.core.attachments import read_attachment
from tui_chat.core.config import Settings
from tui_chat.core.errors import ExitCode, TuiChatError, UsageError
from tui_chat.core.events import (
    ContentDelta,
    FinishReason,
    ModelChosen,
    ReasoningDelta,
    RetryScheduled,
    SentAs,
    StreamDone,
    ToolCallDelta,
    UsageReported,
)
from tui_chat.core.models import ActivePathChanged, Parameters, Role
from tui_chat.core.session import (
    ReplyFailed,
    ReplyFinished,
    ReplyStarted,
    SessionEvent,
    UserMessageSaved,
)
from tui_chat.core.store import Store
from tui_chat.core.text import cleaner_for, one_line, sanitize, without_lone_surrogates
from tui_chat.core.tool_calls import tool_call_lines
from tui_chat.core.tool_exchange import ToolCallFinished, ToolCallStarted
from tui_chat.core.tool_turns import tool_label, tool_result_line
from tui_chat.core.validation import problem as validation_problem
from tui_chat.core.workspace import ModelRef, Workspace, split_model_ref

PROG = "tui-chat"


def read_prompt(prompt: str | None, stdin: TextIO) -> str:
    """The prompt from the argument or stdin. Bytes that are not UTF-8 (in either) become
    U+FFFD, as the store can only hold text."""
    if prompt is None or prompt == "-":
        if prompt is None and stdin.isatty():
            raise UsageError("No prompt: pass it as an argument, or pipe it in and use '-'.")
        raw = getattr(stdin, "buffer", None)
        prompt = raw.read().decode("utf-8", "replace") if raw is not None else stdin.read()
    prompt = without_lone_surrogates(prompt)
    if not prompt.strip():
        raise UsageError("The prompt is empty: pass some text to ask.")
    return prompt


STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class StoppedBeforeStart(Exception):
    """Ctrl+C or a stop signal came before the reply's first token: nothing was received."""


async def run_ask(args: argparse.Namespace, context: Context) -> int:
    """The exit code. SIGTERM and SIGHUP stop it as Ctrl+C does: everything received so far
    is saved as interrupted, and the code is 128 + the signal's number. Stopped before the
    first token, it says so (the reply is saved as stopped before it began, never context;
    the same prompt asked again with -c takes its place)."""
    received: list[int] = []
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()

    def stop(signum: int) -> None:
        received.append(signum)
        if task is not None:
            task.cancel()

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, stop, signum)
    try:
        return await _ask(args, context)
    except StoppedBeforeStart:
        stopped_by = received[0] if received else int(signal.SIGINT)
        with contextlib.suppress(OSError):  # SIGHUP: the terminal may be gone
            print(f"{PROG}: stopped before the reply began; ask again with -c and the same "
                  "prompt to retry it.", file=sys.stderr)
        return 128 + stopped_by
    except asyncio.CancelledError:
        if not received:
            raise  # Ctrl+C: asyncio.run turns it into KeyboardInterrupt
        with contextlib.suppress(OSError):  # SIGHUP: the terminal may be gone
            print(f"{PROG}: stopped by {signal.Signals(received[0]).name}; the reply so far "
                  "is saved.", file=sys.stderr)
        return 128 + received[0]
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)


def prompt_from_editor(start: str | None, env: Mapping[str, str]) -> str:
    """The prompt as written in the user's editor (`ask -e`), starting from `start`."""
    from tui_chat.core.editor import edit_text

    if start == "-":
        raise UsageError("ask -e takes the prompt from your editor: give the text to start "
                         "from as an argument, not '-'.")
    prompt = without_lone_surrogates(edit_text(start or "", env))
    if not prompt.strip():
        raise UsageError("Nothing was written in the editor, so nothing was sent.")
    return prompt


async def _ask(args: argparse.Namespace, context: Context) -> int:
    going_on = _reply_to_continue_wanted(args)
    prompt = None if args.editor or going_on else read_prompt(args.prompt, sys.stdin)
    settings = context.settings()
    if args.timeout is not None:
        if args.timeout <= 0:
            raise UsageError("--timeout must be a positive number of seconds.")
        settings = settings.model_copy(update={
            "timeouts": settings.timeouts.model_copy(update={"read": args.timeout})})
    provider = args.ask_provider or args.provider
    models = _models(args, settings, provider or settings.default_provider)
    single = models[0] if len(models) == 1 else None
    if single is not None and single[0] != (provider or settings.default_provider):
        provider = single[0]  # -m PROVIDER:MODEL
    model = single[1] if single is not None else (None if models else args.model)
    with _store_for(args, context, settings) as store:
        workspace = Workspace(settings, store, env=context.env, provider=provider, model=model)
        try:
            _open_conversation(workspace, args)
            workspace.override(provider, model)
            if args.persona is not None:
                _apply_persona(workspace, args.persona, keep_model=bool(provider or models))
            if len(models) > 1:
                workspace.choose_several(models)
            else:
                workspace.require_model()
            _warn_about_tls(workspace)
            parameters = _parameters(args, workspace.session.conversation.parameters)
            await _say_if_reasoning_unsent(workspace, parameters)
            if args.system is not None:
                workspace.session.set_system_prompt(args.system)
            files = [read_attachment(Path(name), name) for name in args.attach]
            asker = TerminalAsker(assume_yes=args.yes)
            if going_on:
                return await print_stream(workspace.continue_reply(
                    _last_reply(workspace), asker=asker), args.show_reasoning)
            if prompt is None:  # -e: after the checks above, so no writing is wasted on them
                prompt = prompt_from_editor(args.prompt, context.env)
            if len(models) > 1:
                from tui_chat.commands.ask_compare import print_compare

                if (note := workspace.compare_note()) is not None:
                    print(f"{PROG}: {note}", file=sys.stderr)
                return await print_compare(workspace.compare(prompt, parameters, files,
                                                             asker=asker),
                                           models, args.show_reasoning)
            await workspace.learn_whether_model_takes_tools()
            tools = _tools_allowed(workspace, asker, args.approve_tools)
            try:
                events = workspace.send(prompt, parameters, files, asker=asker)
                return await print_stream(_saying_how_it_was_sent(events) if args.e2ee
                                          else events, args.show_reasoning, tools=tools)
            except asyncio.CancelledError:
                stopped = workspace.session.stopped_reply
                if stopped is None or not stopped.stopped_before_start:
                    raise
                raise StoppedBeforeStart from None  # said as such, not as "interrupted"
        finally:
            await workspace.aclose()


async def _saying_how_it_was_sent(
        events: AsyncIterator[SessionEvent]) -> AsyncIterator[SessionEvent]:
    """With --e2ee: once the reply is complete, one line on stderr says how it went."""
    from tui_chat.core.protection import protection_badges

    async for event in events:
        yield event  # first: the reply's last line is written before the sentence
        if isinstance(event, ReplyFinished):
            badges = protection_badges(event.message.sent_as)
            how = "end-to-end encrypted" if "end-to-end" in badges else "in plain text"
            tee = (", from a model listed as running in a TEE (not verified)"
                   if "TEE" in badges else "")
            print(f"{PROG}: the prompt went and the reply came {how}{tee}.", file=sys.stderr)


def _tools_allowed(workspace: Workspace, asker: TerminalAsker, approve_all: bool) -> bool:
    """Whether tools go with the message (tool servers on, a model that takes them); each
    call is then approved on the terminal, or without asking with --approve-tools. With no
    terminal and no --approve-tools, the calls a server's policy lets run alone (approve =
    "always", or "read-only" and a read-only tool) run and the rest are refused, each in a
    sentence; when every server on asks for every call, or the model takes no tools (which
    the terminal would be asked about): UsageError, before anything is sent."""
    servers = workspace.tool_servers()
    if not servers:
        return False
    if not workspace.takes_tools():
        # The workspace asks whether to send without them; with no one to ask, say it once.
        if not asker.assume_yes and not asker.has_terminal():
            raise UsageError(f"{workspace.no_tools_sentence()}, so nothing was sent: there is "
                             "no terminal to ask whether to send it without them (--yes "
                             "does).")
        return False
    workspace.approve_tools = approve_all
    policies = {workspace.settings.mcp.servers[name].approve for name in servers}
    if not approve_all and policies == {"ask"} and not asker.has_terminal():
        raise UsageError("Tool servers are configured, and tui-chat ask approves each tool "
                         "call on the terminal, but there is none: pass --approve-tools to "
                         "run the calls without asking, or set enabled = false under "
                         "[mcp.servers.NAME] in config.toml.")
    return True


def _models(args: argparse.Namespace, settings: Settings, provider: str) -> list[ModelRef]:
    """The models of -m (any number of times) and --compare, as (provider, model): a model
    may be PROVIDER:MODEL, else it is one of -p's (or the default provider's)."""
    given = list(args.ask_model or [])
    if args.compare is not None:
        given += [part.strip() for part in args.compare.split(",") if part.strip()]
        if len(given) < 2:
            raise UsageError("--compare takes two to four models, separated by commas.")
    return list(dict.fromkeys(split_model_ref(settings, name, provider) for name in given))


def _apply_persona(workspace: Workspace, name: str, *, keep_model: bool) -> None:
    """The persona's prompt and parameters (and its model, unless -p/-m say otherwise);
    broken persona files are named on stderr."""
    from tui_chat.core.personas import find_persona, load_personas

    personas, problems = load_personas()
    for problem in problems:
        print(f"{PROG}: warning: {problem}.", file=sys.stderr)
    workspace.apply_persona(find_persona(name, personas), keep_model=keep_model)


def _warn_about_tls(workspace: Workspace) -> None:
    from tui_chat.core.protection import is_research_proxy, research_warning
    from tui_chat.core.transport import tls_warning

    warning = tls_warning(workspace.provider)
    if warning is not None:  # every time: it is not safe
        print(f"{PROG}: warning: {warning}", file=sys.stderr)
    provider = workspace.provider
    if is_research_proxy(provider.base_url):
        print(f"{PROG}: warning: {research_warning(provider.display_name, provider.base_url)}",
              file=sys.stderr)


def _reply_to_continue_wanted(args: argparse.Namespace) -> bool:
    """--continue-reply, checked against what goes with it (UsageError)."""
    if not args.continue_reply:
        return False
    if not _continues(args):
        raise UsageError("--continue-reply continues a reply of a saved conversation: add -c "
                         "(the most recent) or --conversation ID.")
    if args.prompt is not None or args.editor or args.attach or args.compare or (
            args.ask_model and len(args.ask_model) > 1):
        raise UsageError("--continue-reply takes no prompt, attachment or comparison: it "
                         "continues the last reply as it is.")
    return True


def _last_reply(workspace: Workspace) -> str:
    """The id of the reply with text the conversation's active path ends with
    (UsageError when it ends otherwise)."""
    path = workspace.session.messages()
    if not path or path[-1].role is not Role.ASSISTANT or not path[-1].content.strip():
        raise UsageError("The conversation does not end with a reply with text, so there is "
                         "nothing to continue: send a prompt instead.")
    return path[-1].id


def _wanted_conversation(args: argparse.Namespace) -> str | None:
    wanted: str | None = args.ask_conversation or args.conversation
    return wanted


def _continues(args: argparse.Namespace) -> bool:
    return bool(_wanted_conversation(args) or args.ask_continue_last or args.continue_last)


@contextlib.contextmanager
def _store_for(args: argparse.Namespace, context: Context, settings: Settings
               ) -> Iterator[Store]:
    """The real store; with --no-save a temporary one (holding a copy of the conversation
    being continued), deleted when the command ends."""
    if not args.no_save:
        with context.open_store(settings) as store:
            if store.notice:
                print(f"{PROG}: {store.notice}", file=sys.stderr)
            yield store
        return
    with Store.open_temporary("") as scratch:
        if _continues(args):
            with context.open_store(settings) as store:
                conversation = _resolve(store, args)
                messages = store.get_messages(conversation)
                scratch.import_conversation(store.get_conversation(conversation), messages,
                                            store.attachments_of(m.id for m in messages
                                                                 if m.attachments))
        yield scratch


def _resolve(store: Store, args: argparse.Namespace) -> str:
    wanted = _wanted_conversation(args)
    if wanted:
        return store.resolve_id(wanted)
    latest = store.latest_conversation()
    if latest is None:
        raise UsageError("There is no saved conversation to continue; ask without -c first.")
    return latest.id


def _open_conversation(workspace: Workspace, args: argparse.Namespace) -> None:
    if _continues(args):
        workspace.open_conversation(_resolve(workspace.store, args))


def _parameters(args: argparse.Namespace, base: Parameters) -> Parameters:
    """The conversation's parameters with --temperature / --max-tokens / --e2ee /
    --reasoning over them (--reasoning default: the model's own, none sent)."""
    from pydantic import ValidationError

    given = {"temperature": args.temperature, "max_tokens": args.max_tokens,
             "e2ee": getattr(args, "e2ee", None)}
    options = {"temperature": "--temperature", "max_tokens": "--max-tokens", "e2ee": "--e2ee",
               "reasoning": "--reasoning"}
    over = {k: v for k, v in given.items() if v is not None}
    reasoning = getattr(args, "reasoning", None)
    if reasoning is not None:
        over["reasoning"] = None if reasoning == "default" else reasoning
    try:
        return Parameters.model_validate({**base.model_dump(), **over})
    except ValidationError as error:
        first = error.errors()[0]
        name = options.get(str(first["loc"][0]), str(first["loc"][0]))
        raise UsageError(f"{name} {validation_problem(first, Parameters)}.") from None


async def _say_if_reasoning_unsent(workspace: Workspace, parameters: Parameters) -> None:
    """With a reasoning setting: learn the model's features when they are not known yet (the
    provider's list), and say on stderr once when it is not sent (core.dialect)."""
    if parameters.reasoning is None or workspace.model is None:
        return
    from tui_chat.core import dialect

    catalog = workspace.catalog
    if not dialect.takes_reasoning(workspace.facts()) and not catalog.knows_facts(
            workspace.provider):
        await catalog.refresh(workspace.provider)
    if not dialect.takes_reasoning(workspace.facts()):
        print(f"{PROG}: --reasoning {parameters.reasoning} is not sent: "
              f"{one_line(workspace.model, 80)} is not known to take a reasoning setting "
              f"(say reasoning = true under [models.\"{workspace.provider_name}:"
              f"{one_line(workspace.model, 80)}\"] in config.toml if it does).", file=sys.stderr)


def end_line_on_terminal(out: TextIO, mid_line: bool) -> None:
    """End the reply's line when it is stopped mid-line on a terminal, so that the sentence
    on stderr starts a line of its own rather than following the partial text. Into a pipe or
    a file the text stays exactly what was received (and saved): the sentence goes to another
    stream there, as after a reply that ends without a newline."""
    if mid_line and out.isatty():
        out.write("\n")
        out.flush()


class ReasoningOut:
    """The reasoning, written to stderr as it arrives (`--show-reasoning`). On a terminal it
    is dim, and ends with its own line break before the answer starts (stdout and stderr
    share the screen there: "plan it" then "Answer" must not read "plan itAnswer"); into a
    pipe or a file it is the text as received."""

    DIM, PLAIN = "\x1b[2m", "\x1b[0m"

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.terminal = err.isatty()
        self.open = False
        self.ends_with_newline = True

    def write(self, text: str) -> None:
        if self.terminal and not self.open:
            self.err.write(self.DIM)
        self.open = True
        self.err.write(sanitize(text))
        self.ends_with_newline = text.endswith("\n")
        self.err.flush()

    def close(self) -> None:
        """The reasoning is over (the answer starts, or the reply ends)."""
        if self.open and self.terminal:
            self.err.write(self.PLAIN + ("" if self.ends_with_newline else "\n"))
            self.err.flush()
        self.open = False


class StreamPrinter:
    """Writes one reply's events: its text to stdout as it arrives, its reasoning to stderr
    if asked (`ReasoningOut`), notes (a retry, the max-tokens limit, tool calls) on stderr;
    remembers how it failed."""

    def __init__(self, out: TextIO, err: TextIO, show_reasoning: bool, *,
                 tools: bool = False) -> None:
        """`tools`: tools are offered, so a reply's calls are run (each said as it runs)."""
        self.out, self.err, self.show_reasoning = out, err, show_reasoning
        self.tools = tools
        self.clean = cleaner_for(out)
        self.reasoning = ReasoningOut(err)
        self.wrote_any = False
        self.ends_with_newline = True
        self.failure: TuiChatError | None = None
        self.usage_note: str | None = None  # the provider's usage made no sense: said after
        self.calls: dict[str, str] = {}  # the arguments of the last reply's calls, by id

    @property
    def mid_line(self) -> bool:
        return self.wrote_any and not self.ends_with_newline

    def apply(self, event: SessionEvent) -> None:
        # Exhaustive: a new kind of session event is a type error here until it is handled.
        out, err = self.out, self.err
        match event:
            case ContentDelta():
                self.reasoning.close()
                out.write(self.clean(event.text))
                out.flush()
                self.wrote_any = True
                self.ends_with_newline = event.text.endswith("\n")
            case ReasoningDelta():
                if self.show_reasoning:
                    self.reasoning.write(event.text)
            case RetryScheduled():
                print(f"{PROG}: {sanitize(event.reason)}; retrying in {event.delay:.0f} s.",
                      file=err)
            case FinishReason():
                if event.reason == "length":
                    print(f"\n{PROG}: the reply stopped at the max-tokens limit; raise "
                          "--max-tokens for more.", file=err)
            case ReplyFailed():
                self.failure = event.error
            case ReplyFinished():
                self.calls = {call.id: call.arguments for call in event.message.tool_calls}
                if self.tools and event.message.tool_calls:
                    self.end_line()
                elif calls := tool_call_lines(event.message):
                    self.end_line()
                    said = sanitize(f"{calls[0].rstrip('.')}: {'; '.join(calls[1])}.")
                    print(f"{PROG}: {' '.join(said.split())}", file=err)
            case ToolCallStarted():
                run = event.message.tool_run
                label = tool_label(run.name, run.server) if run else "a tool"
                print(f"{PROG}: running {one_line(label, 80)}…", file=err)
            case ToolCallFinished():
                line = tool_result_line(event.message,
                                        self.calls.get(event.message.tool_call_id or ""))
                print(f"{PROG}: {one_line(line, 200)}.", file=err)
                if event.message.tool_run and event.message.tool_run.status in (
                        "not-run", "invalid", "failed", "timed-out"):  # why, in its sentence
                    print(f"{PROG}: {one_line(event.message.content, 300)}", file=err)
            case UsageReported():
                self.usage_note = event.note
            case (ActivePathChanged() | UserMessageSaved() | ReplyStarted() | ToolCallDelta()
                  | StreamDone() | SentAs() | ModelChosen()):
                pass  # nothing to print: the reply's text and its end say it all
            case _:
                assert_never(event)

    def end_line(self) -> None:
        """End the reply's line, if it is open."""
        if self.mid_line:
            self.out.write("\n")
            self.out.flush()
            self.ends_with_newline = True


async def print_stream(events: AsyncIterator[SessionEvent], show_reasoning: bool, *,
                       tools: bool = False) -> int:
    """Write a reply's text to stdout as it arrives; reasoning to stderr if asked; one
    sentence on stderr on failure; each tool call as it runs and ends (`tools`)."""
    out, err = sys.stdout, sys.stderr
    printer = StreamPrinter(out, err, show_reasoning, tools=tools)
    try:
        async for event in events:
            printer.apply(event)
    except TuiChatError as error:
        printer.failure = error
    except asyncio.CancelledError:  # Ctrl+C, SIGTERM, SIGHUP: a sentence follows on stderr
        with contextlib.suppress(OSError):  # SIGHUP: the terminal may be gone
            end_line_on_terminal(out, printer.mid_line)
        raise
    finally:
        with contextlib.suppress(OSError):  # SIGHUP: the terminal may be gone
            printer.reasoning.close()
        # Close the events as soon as we stop (a failed write to stdout, say), so the session
        # saves its reply as interrupted now rather than when the loop shuts down.
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()
    if printer.failure is not None:
        printer.end_line()
        print(f"{PROG}: {sentence(printer.failure)}", file=err)
        return int(printer.failure.exit_code)
    if printer.mid_line and out.isatty():
        out.write("\n")
    out.flush()
    if printer.usage_note:
        print(f"{PROG}: {sanitize(printer.usage_note)}", file=err)
    return int(ExitCode.OK)
