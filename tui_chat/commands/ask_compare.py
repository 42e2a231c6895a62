"""`tui-chat ask -m A -m B PROMPT`: one prompt to 2-4 models at once, each reply printed in
turn to stdout under a header, for scripts.

Every model streams at once (the workspace's compare); the first model's reply is printed as
it arrives, the others' are held until each one before them has ended, then printed and
followed live. Headers are `==> provider:model <==` (as `head` heads files), a blank line
between replies. Reasoning goes to stderr with --show-reasoning, in the same order. A model
that fails gets one sentence on stderr after its text; the others go on. Exit code: 0 when
every reply is complete, else that of the first model (in the order given) that failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import TextIO, assert_never

from tui_chat.commands.advice import sentence
from tui_chat.commands.ask import end_line_on_terminal
from tui_chat.core.compare import CompareEvent, TargetEvent
from tui_chat.core.errors import ExitCode, TuiChatError
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
from tui_chat.core.models import ActivePathChanged
from tui_chat.core.session import (
    ReplyFailed,
    ReplyFinished,
    ReplyStarted,
    UserMessageSaved,
)
from tui_chat.core.text import cleaner_for, sanitize
from tui_chat.core.tool_exchange import ToolCallFinished, ToolCallStarted
from tui_chat.core.workspace import ModelRef

PROG = "tui-chat"


@dataclass
class _Column:
    """One model's reply: what is held until its turn, and how it ended."""

    header: str
    held: list[tuple[bool, str]] = field(default_factory=list)  # (is reasoning, text)
    ended: bool = False
    failure: TuiChatError | None = None


class ComparePrinter:
    """Prints compare events in turn (see the module docstring)."""

    def __init__(self, models: Sequence[ModelRef], show_reasoning: bool,
                 out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self._clean = cleaner_for(self.out)
        self.show_reasoning = show_reasoning
        self.columns = [_Column(f"==> {provider}:{model} <==") for provider, model in models]
        self.turn = -1  # the column being printed live
        self._ends_with_newline = True
        self._advance()

    def _write(self, reasoning: bool, text: str) -> None:
        if reasoning:
            if self.show_reasoning:
                self.err.write(sanitize(text))
                self.err.flush()
            return
        self.out.write(self._clean(text))
        self.out.flush()
        self._ends_with_newline = text.endswith("\n")

    def _advance(self) -> None:
        """Close the column whose turn ended, then print the next ones until one is still
        streaming."""
        while True:
            if 0 <= self.turn < len(self.columns):
                self._close(self.columns[self.turn])
            self.turn += 1
            if self.turn >= len(self.columns):
                return
            column = self.columns[self.turn]
            self.out.write(("" if self.turn == 0 else "\n") + self._clean(column.header) + "\n")
            self._ends_with_newline = True
            for reasoning, text in column.held:
                self._write(reasoning, text)
            column.held.clear()
            if not column.ended:
                self.out.flush()
                return

    def _close(self, column: _Column) -> None:
        if not self._ends_with_newline:
            self.out.write("\n")
        self.out.flush()
        if column.failure is not None:
            print(f"{PROG}: {column.header.strip('=<> ')}: {sentence(column.failure)}",
                  file=self.err)

    def apply(self, event: CompareEvent) -> None:
        # Exhaustive: a new kind of compare or session event is a type error here until it
        # is handled.
        match event:
            case TargetEvent():
                self._apply_target(event)
            case UserMessageSaved() | ActivePathChanged():
                pass  # nothing to print
            case _:
                assert_never(event)

    def _apply_target(self, event: TargetEvent) -> None:
        column = self.columns[event.target]
        inner = event.event
        match inner:
            case ContentDelta() | ReasoningDelta():
                reasoning = isinstance(inner, ReasoningDelta)
                if event.target == self.turn:
                    self._write(reasoning, inner.text)
                else:
                    column.held.append((reasoning, inner.text))
            case ReplyFinished() | ReplyFailed():
                column.ended = True
                if isinstance(inner, ReplyFailed):
                    column.failure = inner.error
                if event.target == self.turn:
                    self._advance()
            case (ActivePathChanged() | UserMessageSaved() | ReplyStarted() | ToolCallDelta()
                  | FinishReason() | UsageReported() | StreamDone() | RetryScheduled()
                  | SentAs() | ModelChosen() | ToolCallStarted() | ToolCallFinished()):
                pass  # a column prints its text and how it ended (compare runs no tools)
            case _:
                assert_never(inner)

    def finish(self) -> None:
        """Print whatever is still held (a stream that never said it ended)."""
        while self.turn < len(self.columns):
            self.columns[self.turn].ended = True
            self._advance()

    @property
    def mid_line(self) -> bool:
        """Whether the last text printed left its line open."""
        return not self._ends_with_newline

    def exit_code(self) -> int:
        failed = next((c.failure for c in self.columns if c.failure is not None), None)
        return int(failed.exit_code) if failed is not None else int(ExitCode.OK)


async def print_compare(events: AsyncIterator[CompareEvent], models: Sequence[ModelRef],
                        show_reasoning: bool) -> int:
    """Print every model's reply in turn; the exit code."""
    printer = ComparePrinter(models, show_reasoning)
    try:
        async for event in events:
            printer.apply(event)
    except asyncio.CancelledError:  # Ctrl+C, SIGTERM, SIGHUP: a sentence follows on stderr
        with contextlib.suppress(OSError):
            end_line_on_terminal(printer.out, printer.mid_line)
        raise
    except TuiChatError as error:  # before any reply: the prompt could not be saved, say
        print(f"{PROG}: {sentence(error)}", file=sys.stderr)
        return int(error.exit_code)
    finally:
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()
    printer.finish()
    return printer.exit_code()
