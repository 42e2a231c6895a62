"""The reply in progress: a header, a "Thinking" collapsible and a live Textual `Markdown`.

Deltas are queued and appended by a `PacedMarkdownStream` at most every MIN_FLUSH_INTERVAL
seconds (longer when an append is slow). Settled text (every block before the last blank line
outside a code fence) is moved out of the live Markdown into one cheap Static once the live
part passes FREEZE_CHARS, so an append costs the same at the end of a long reply as at its
start, and a frame lays out a few dozen widgets rather than hundreds.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Awaitable, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Markdown, Static

from tui_chat.core.models import Message
from tui_chat.core.text import sanitize
from tui_chat.ui.widgets.message_view import CachedRender, author_line, markdown_renderable

MIN_FLUSH_INTERVAL = 0.05
"""Seconds between two appends to the live Markdown, at least (20 a second at most)."""
MAX_FLUSH_INTERVAL = 0.5
"""Seconds between two appends, at most, however busy the process is."""
CPU_BUDGET = 0.08
"""Share of one core the process may use while a reply streams: above it, appends (each one
a layout and a full repaint of the scrolled view) are spaced out; below it, drawn sooner."""
FLUSH_COST_FACTOR = 2.0
"""Wait at least this many times the last append's cost, so rendering never hogs the loop."""
FREEZE_CHARS = 800
"""Live Markdown longer than this moves its settled blocks into a Static."""
MAX_BATCH_CHARS = 8000
"""Characters appended at most per flush; at full speed the live view lags a little and the
finished message (drawn whole) catches up, instead of one huge append blocking the end."""
REASONING_INTERVAL = 0.2
"""Seconds between two redraws of the Thinking block while reasoning streams."""
FENCE_LINES = 40
"""An open code fence longer than this many lines is split: its lines so far settle."""

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def settled_length(text: str) -> int:
    """How much of `text` is complete blocks: up to the last blank line outside a fence."""
    split = split_settled(text, fence_lines=None)
    return len(split[0]) if split else 0


def split_settled(text: str, fence_lines: int | None = FENCE_LINES
                  ) -> tuple[str, str] | None:
    """(settled, rest) of `text`, or None when nothing is settled yet.

    Settled is every block before the last blank line outside a code fence. Inside an open
    fence with more than `fence_lines` complete lines, the fence is split instead: settled
    gets its complete lines and a closing fence, rest reopens it with the same opener line.
    """
    fence: str | None = None
    opener_line = ""
    offset = settled = 0
    fence_body_start = 0
    for line in text.splitlines(keepends=True):
        match = _FENCE.match(line)
        if fence is None:
            if match:
                fence, opener_line = match.group(1), line
                fence_body_start = offset + len(line)
            elif not line.strip() and offset and line.endswith("\n"):
                settled = offset + len(line)
        elif (match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence)
              and not line[match.end():].strip()):
            fence = None
        offset += len(line)
    if fence is not None and fence_lines is not None:
        complete = text.rfind("\n") + 1
        if complete > fence_body_start and text.count("\n", fence_body_start) > fence_lines:
            return text[:complete] + fence + "\n", opener_line + text[complete:]
    return (text[:settled], text[settled:]) if settled else None


class PacedMarkdownStream:
    """Textual's `MarkdownStream` with a frame-rate cap and settled text moved out.

    Textual's own `MarkdownStream` appends as often as it can; a long code fence is
    re-highlighted whole on every append, so unpaced appends grow more costly per chunk.
    """

    def __init__(self, markdown: Markdown,
                 freeze: Callable[[str, str], Awaitable[None]] | None = None) -> None:
        """`freeze(settled, rest)` moves `settled` out and leaves `rest` in the Markdown."""
        self.markdown = markdown
        self._freeze = freeze
        self.live = ""
        self._pending: list[str] = []
        self._wake = asyncio.Event()
        self._stopped = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._mark: tuple[float, float] | None = None
        self._showing = False
        self.interval = MIN_FLUSH_INTERVAL
        self.appends = 0

    @property
    def caught_up(self) -> bool:
        """Everything written so far is on screen (no fragment queued or being appended)."""
        return not self._pending and not self._showing

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run())

    def write(self, fragment: str) -> None:
        """Queue `fragment` (already sanitized); never blocks."""
        if fragment:
            self._pending.append(fragment)
            self._wake.set()

    async def stop(self) -> None:
        """End the pump after the append in progress; what is queued is dropped (the finished
        message replaces this view at once)."""
        self._stopped.set()
        self._wake.set()
        if self._task is not None:
            await self._task
            self._task = None

    async def _run(self) -> None:
        while not self._stopped.is_set():
            await self._wake.wait()
            self._wake.clear()
            if self._stopped.is_set() or not self._pending:
                continue
            text = "".join(self._pending)
            self._pending.clear()
            if len(text) > MAX_BATCH_CHARS:  # the rest waits: a bounded append, a short stop
                text, rest = text[:MAX_BATCH_CHARS], text[MAX_BATCH_CHARS:]
                self._pending.append(rest)
                self._wake.set()
            started = time.perf_counter()
            self._showing = True
            try:
                await asyncio.shield(self._show(text))
            finally:
                self._showing = False
            self.appends += 1
            cost = time.perf_counter() - started
            pause = max(self._govern(), FLUSH_COST_FACTOR * cost)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopped.wait(), pause)

    def _govern(self) -> float:
        """The next pause: the process's CPU share since the last append, steered to the
        budget (a multiplicative step, so a burst at full speed spaces appends out quickly and
        a quiet trickle is drawn at the highest rate)."""
        wall, cpu = time.perf_counter(), time.process_time()
        if self._mark is not None:
            elapsed = wall - self._mark[0]
            share = (cpu - self._mark[1]) / elapsed if elapsed > 0 else 0.0
            step = min(2.0, max(0.5, (share / CPU_BUDGET) ** 0.5))
            self.interval = min(MAX_FLUSH_INTERVAL, max(MIN_FLUSH_INTERVAL,
                                                        self.interval * step))
        self._mark = (wall, cpu)
        return self.interval

    async def _show(self, text: str) -> None:
        self.live += text
        split = split_settled(self.live) if len(self.live) > FREEZE_CHARS else None
        if split is not None and self._freeze is not None:
            settled, self.live = split
            await self._freeze(settled, self.live)
            return
        # One batch: the screen lays out and paints once per append, not once per await.
        with self.markdown.app.batch_update():
            await self.markdown.append(text)


class ReplyView(Vertical):
    """The assistant reply being streamed: header, Thinking block, settled part, live Markdown."""

    DEFAULT_CSS = """
    ReplyView {
        layout: stream;
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        border-left: thick $secondary;
    }
    ReplyView > #reply-header { height: auto; }
    ReplyView > #thinking { display: none; margin: 0; padding: 0; border: none; }
    ReplyView > #thinking.-shown { display: block; }
    ReplyView #reasoning { color: $text-muted; text-style: italic; }
    ReplyView > .settled { height: auto; }
    ReplyView > #answer { margin: 0; padding: 0; layout: stream; }
    """

    def __init__(self, message: Message, *, code_theme: str = "monokai") -> None:
        super().__init__()
        self.message = message
        self.code_theme = code_theme
        self._content: list[str] = []  # joined on demand: += on a long reply copies it all
        self.reasoning = ""
        self._held_cr = ""
        self._reasoning_due = False
        self._reasoning_drawn = False
        self._stream: PacedMarkdownStream | None = None

    def compose(self) -> ComposeResult:
        yield Static(author_line(self.message, live=True), id="reply-header", markup=False)
        with Collapsible(title="Thinking", collapsed=False, id="thinking"):
            yield Static("", id="reasoning", markup=False)
        yield Markdown(open_links=False, id="answer")

    def on_mount(self) -> None:
        self._stream = PacedMarkdownStream(self.query_one("#answer", Markdown), self._settle)
        self._stream.start()

    async def _settle(self, settled: str, rest: str) -> None:
        """Draw `settled` in a worker thread (a big part must not stall the event loop), then
        swap it in for the live blocks in one batch."""
        cached = CachedRender(markdown_renderable(settled, self.code_theme), self)
        width = self.content_region.width
        if width > 0:
            options = self.app.console_options.update_width(width).update(highlight=False)
            await asyncio.to_thread(cached.prepare, self.app.console, options)
        with self.app.batch_update():
            await self.mount(Static(cached, classes="settled", markup=False), before="#answer")
            await self.query_one("#answer", Markdown).update(rest)

    @property
    def content(self) -> str:
        """The answer received so far, sanitized."""
        if len(self._content) > 1:
            self._content = ["".join(self._content)]
        return self._content[0] if self._content else ""

    @property
    def caught_up(self) -> bool:
        """All content received so far is drawn (tests and screenshots wait for this)."""
        return not self._reasoning_due and (self._stream is None or self._stream.caught_up)

    def add_reasoning(self, text: str) -> None:
        self.reasoning += sanitize(text)
        if not self._reasoning_due:  # drawn at most every REASONING_INTERVAL, not per delta
            self._reasoning_due = True
            if self._reasoning_drawn:
                self.set_timer(REASONING_INTERVAL, self._draw_reasoning)
            else:
                self.call_later(self._draw_reasoning)

    def _draw_reasoning(self) -> None:
        self._reasoning_due = False
        self._reasoning_drawn = True
        thinking = self.query_one("#thinking", Collapsible)
        thinking.add_class("-shown")
        self.query_one("#reasoning", Static).update(Text(self.reasoning.strip()))

    def add_content(self, text: str) -> None:
        # A CR at the end of a delta may be half of a CRLF: hold it until the next delta.
        text = self._held_cr + text
        self._held_cr = "\r" if text.endswith("\r") else ""
        if self._held_cr:
            text = text[:-1]
        clean = sanitize(text)
        if not clean:
            return
        if not self._content and self.reasoning:
            self.query_one("#thinking", Collapsible).collapsed = True
        self._content.append(clean)
        if self._stream is not None:
            self._stream.write(clean)

    async def finish(self) -> None:
        """Stop the stream; the finished message replaces this view."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
