"""How tool calls and their results look in the conversation (issue 23).

- Under a reply that called tools: the head sentence (`tool_call_lines`: "The model called a
  tool (…)" when tools were offered and the calls answered, else "…tools are not enabled…"),
  then one row per call, `🔧 name {arguments}` cut to one line; `t` shows the arguments
  whole (pretty JSON, cut at `SHOWN_CHARS`).
- A tool message (the result of one call) is one folded row, `▶ 🔧 time.get_current_time
  {"timezone": "Asia/Kolkata"} · 0.2 s · ok` (the call as the user knows it, `server.tool`,
  and its arguments, taken from the reply's `tool_calls` by the message list and cut with …
  to fit the line: `ResultSummary`) and the result's first line cut short; `t` shows the
  arguments and the result, cut at `SHOWN_CHARS` with a marker: a 1 MB result is never laid
  out whole.
- While a reply streams, `LiveCalls` shows each call as its fragments arrive (name,
  arguments so far), and then the call that runs, with how long it has run, redrawn every
  `TICK` s by a timer of the widget's own (`🔧 running time.get_current_time… 1.2 s · Esc
  cancels`; the clock is the widget's `clock`, so a test sets the time).

Everything here is untrusted (the model's names and arguments, the server's results):
`sanitize`d and drawn as `rich.text.Text`, never markup.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.constrain import Constrain
from rich.measure import Measurement
from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from tui_chat.core.events import ToolCallDelta
from tui_chat.core.models import Message, MessageStatus
from tui_chat.core.text import one_line, sanitize
from tui_chat.core.tool_calls import tool_call_lines
from tui_chat.core.tool_turns import result_line_parts, tool_label, tool_status
from tui_chat.ui.widgets.tool_files import file_rows

if TYPE_CHECKING:
    from tui_chat.core.tool_exchange import RunProgress

SHOWN_CHARS = 20_000
"""Characters of a result (or of a call's arguments) shown when expanded; the rest is named
by a marker."""
ROW_CHARS = 100
"""Characters of a folded row's preview."""
TICK = 0.1
"""Seconds between redraws of a running call's time."""

STATUS_STYLES = {"error": "tc.error", "failed": "tc.error",
                 "timed-out": "tc.warning", "denied": "tc.warning", "cancelled": "tc.warning",
                 "invalid": "tc.error", "not-run": "tc.warning", "interrupted": "tc.warning"}


BLOCK_INDENT = "    "
"""Where an unfolded result's arguments and text start, under their labels."""


def cut(text: str, limit: int = SHOWN_CHARS, *, indent: str = "") -> Text:
    """`text` sanitized, at most `limit` characters, with a marker naming the rest; each
    line after `indent`."""
    shown = Text(indent + sanitize(text[:limit]).replace("\n", "\n" + indent))
    if len(text) > limit:
        shown.append(f"\n{indent}… {len(text) - limit:,} more characters not shown",
                     style="italic")
    return shown


def pretty_arguments(arguments: str) -> str:
    """A call's arguments as pretty JSON, or as they are when they are not JSON."""
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return arguments
    return json.dumps(parsed, indent=2, ensure_ascii=False)


def call_rows(message: Message, *, run: bool, expanded: bool) -> list[RenderableType]:
    """The rows under a reply that called tools (none for any other message); `run`: tools
    were offered and the calls answered (tool messages follow the reply)."""
    calls = tool_call_lines(message, run=run)
    if calls is None:
        return []
    head, lines = calls
    rows: list[RenderableType] = []
    if expanded and not run:  # none ran: `name(arguments)` as the model sent them
        rows.append(Text(f"▼ {sanitize(head)}", style="italic"))
        rows.extend(Text(f"  {sanitize(line)}", style="dim") for line in lines)
        return rows
    if expanded:
        rows.append(Text(f"▼ {sanitize(head)}", style="italic"))
        for call in message.tool_calls:
            rows.append(Text(f"  🔧 {one_line(call.name or '(no name)', 80)}", style="bold"))
            rows.append(cut(pretty_arguments(call.arguments), indent=BLOCK_INDENT))
        return rows
    rows.append(Text(f"▶ {sanitize(head)} (t shows the calls)", style="italic"))
    if not run:  # none ran: the calls stay folded under the sentence
        return rows
    for call in message.tool_calls:
        row = Text(f"  🔧 {one_line(call.name or '(no name)', 80)} ", style="dim", no_wrap=True,
                   overflow="ellipsis")
        row.append(one_line(call.arguments[:ROW_CHARS * 4], ROW_CHARS))
        rows.append(row)
    return rows


class ResultSummary:
    """A tool message's folded row, `▶ 🔧 time.get_current_time {"timezone": "Asia/Kolkata"}
    · 0.2 s · ok (t shows the result)`, on one line of the width it is drawn at: the
    arguments are cut with … to fit, so the time and the status always show (the hint goes
    first when the line is narrow). The parts are sanitized already (result_line_parts)."""

    def __init__(self, head: str, arguments: str, tail: str, *, tail_style: str = "",
                 hint: str = "") -> None:
        self.head, self.arguments, self.tail = head, arguments, tail
        self.tail_style, self.hint = tail_style, hint

    @property
    def plain(self) -> str:
        return self.line(10_000).plain

    def line(self, width: int) -> Text:
        fixed = cell_len(self.head) + cell_len(self.tail) + 3
        hint = self.hint if fixed + cell_len(self.hint) + 12 <= width else ""
        room = width - fixed - cell_len(hint) - 1
        arguments = self.arguments
        if cell_len(arguments) > room:
            arguments = set_cell_size(arguments, room - 1).rstrip() + "…" if room > 4 else ""
        out = Text(self.head, no_wrap=True, overflow="ellipsis")
        if arguments:
            out.append(f" {arguments}", style="dim")
        out.append(" · ")
        out.append(self.tail, style=self.tail_style)
        if hint:
            out.append(hint, style="dim")
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.line(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(options.max_width, 20), cell_len(self.plain))


def result_rows(message: Message, *, expanded: bool, arguments: str | None = None
                ) -> list[RenderableType]:
    """A tool message (the result of one call): folded, its summary (the call as the user
    knows it, its `arguments` when known, time and status) and the first line of the
    result; expanded, the arguments whole and the result (each cut at SHOWN_CHARS). Either
    way, a row for each of its images and links (tool_files)."""
    status = tool_status(message)
    name, shown, tail = result_line_parts(message, arguments)
    complete = message.status is MessageStatus.COMPLETE
    summary = ResultSummary(f"{'▼' if expanded else '▶'} 🔧 {name}", shown, tail,
                            tail_style=STATUS_STYLES.get(status, ""),
                            hint=" (t shows the result)" if complete and not expanded else "")
    if not complete:
        return [summary]
    if not expanded:
        preview = one_line(message.content[:ROW_CHARS * 4], ROW_CHARS)
        folded: list[RenderableType] = [summary]
        if preview:
            folded.append(Text(f"  {preview}", style="dim", no_wrap=True, overflow="ellipsis"))
        return [*folded, *file_rows(message)]
    rows: list[RenderableType] = [summary]
    if arguments and arguments.strip():
        rows += [Text("  arguments:", style="dim"),
                 cut(pretty_arguments(arguments), indent=BLOCK_INDENT)]
    return [*rows, Text("  result:", style="dim"), cut(message.content, indent=BLOCK_INDENT),
            *file_rows(message)]


def progress_text(progress: RunProgress | None) -> str:
    """`3/10 · ` (or `3 · ` with no total), as the server last reported, else nothing."""
    if progress is None or progress.done is None:
        return ""
    total = f"/{progress.total:g}" if progress.total is not None else ""
    return f"{progress.done:g}{total} · "


def running_row(name: str, server: str | None, seconds: float,
                progress: RunProgress | None = None) -> Text:
    """The row of a call that has run for `seconds`, with its `progress` when the server
    reports any (`🔧 running everything.longRunningOperation… 3/10 · 1.2 s · Esc cancels`)
    and the progress message below it (sanitized, one line)."""
    label = one_line(tool_label(name, server), 80)
    row = Text(f"🔧 running {label}… {progress_text(progress)}{max(seconds, 0.0):.1f} s · "
               "Esc cancels", style="italic")
    if progress is not None and progress.message:
        row.append(f"\n   {one_line(progress.message, 200)}", style="dim")
    return row


class LiveCalls(Static):
    """The calls of the reply in progress as they form, then the one that runs. Of each
    call's arguments only the start is kept (what its row shows) and their length: a call
    whose arguments stream 1 MB in thousands of fragments costs no joining of them all at
    each fragment."""

    DEFAULT_CSS = """
    LiveCalls {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        border-left: thick $secondary 50%;
        color: $text-muted;
    }
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, *,
                 reading_width: int | None = None) -> None:
        super().__init__("", markup=False)
        self.clock = clock
        self.reading_width = reading_width
        """Widest row, in cells (None: the widget's width): the message list's, as the
        finished rows under the reply have, so nothing moves when the reply ends."""
        self.calls: dict[int, tuple[str, str, int]] = {}  # index: (name, start, length)
        self.running: tuple[str, str | None, float] | None = None  # name, server, started
        self.progress: RunProgress | None = None  # the running call's, as last reported
        self._ticker: Timer | None = None

    def add(self, fragment: ToolCallDelta) -> None:
        name, start, length = self.calls.get(fragment.index, ("", "", 0))
        more = fragment.arguments or ""
        if len(start) < ROW_CHARS * 4:
            start += more[:ROW_CHARS * 4 - len(start)]
        self.calls[fragment.index] = (name + (fragment.name or ""), start, length + len(more))
        self._show()

    def run(self, name: str, server: str | None, progress: RunProgress | None = None) -> None:
        """A call runs from now: its row, and its time (and `progress`, which the server's
        notifications update) redrawn while it runs."""
        self.running = (name, server, self.clock())
        self.progress = progress
        if self._ticker is None and self.is_running:
            self._ticker = self.set_interval(TICK, self._show, name="running call time")
        self._show()

    def rows(self) -> Text:
        out = Text(no_wrap=True, overflow="ellipsis")
        for _, (name, start, length) in sorted(self.calls.items()):
            if out:
                out.append("\n")
            out.append(f"🔧 {one_line(name or '…', 80)} ", style="bold")
            out.append(one_line(start, ROW_CHARS))
            if length > ROW_CHARS:
                out.append(f" ({length:,} characters)", style="dim")
        if self.running is not None:
            if out:
                out.append("\n")
            name, server, started = self.running
            out.append_text(running_row(name, server, self.clock() - started, self.progress))
        return out

    def _show(self) -> None:
        rows = self.rows()
        self.update(Constrain(rows, self.reading_width) if self.reading_width else rows)
