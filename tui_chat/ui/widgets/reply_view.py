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

from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Markdown, Static

from tui_chat.core.models import Message
from tui_chat.core.text import sanitize
from tui_chat.ui.widgets.message_view import CachedRender, author_line

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

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def settled_length(text: str) -> int:
    """How much of `text` is complete blocks: up to the last blank line outside a fence."""
    fence: str | None = None
    offset = settled = 0
    for line in text.splitlines(keepends=True):
        opener = _FENCE.match(line)
        if fence is None:
            if opener:
                fence = opener.group(1)
            elif not line.strip() and offset and line.endswith("\n"):
                settled = offset + len(line)
        elif (opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence)
              and not line[opener.end():].strip()):
            fence = None
        offset += len(line)
    return settled


class PacedMarkdownStream:
    """Textual's `MarkdownStream` with a frame-rate cap and settled text moved out.

    Textual's own `MarkdownStream` appends as often as it can; a long code fence is
    re-highlighted whole on every append, so unpaced appends grow more costly per chunk.
    """

    def __init__(self, markdown: Markdown,
                 freeze: Callable[[str], Awaitable[None]] | None = None) -> None:
        self.markdown = markdown
        self._freeze = freeze
        self.live = ""
        self._pending: list[str] = []
        self._wake = asyncio.Event()
        self._stopped = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._mark: tuple[float, float] | None = None
        self.interval = MIN_FLUSH_INTERVAL
        self.appends = 0

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
            started = time.perf_counter()
            await asyncio.shield(self._show(text))
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
        # One batch: the screen lays out and paints once per append, not once per await.
        with self.markdown.app.batch_update():
            self.live += text
            cut = settled_length(self.live) if len(self.live) > FREEZE_CHARS else 0
            if cut and self._freeze is not None:
                settled, self.live = self.live[:cut], self.live[cut:]
                await self._freeze(settled)
                await self.markdown.update(self.live)
            else:
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
        self.content = ""
        self.reasoning = ""
        self._held_cr = ""
        self.settled = ""
        """The text moved out of the live Markdown into `.settled` Statics."""
        self._stream: PacedMarkdownStream | None = None

    def compose(self) -> ComposeResult:
        yield Static(author_line(self.message, live=True), id="reply-header", markup=False)
        with Collapsible(title="Thinking", collapsed=False, id="thinking"):
            yield Static("", id="reasoning", markup=False)
        yield Markdown(open_links=False, id="answer")

    def on_mount(self) -> None:
        self._stream = PacedMarkdownStream(self.query_one("#answer", Markdown), self._settle)
        self._stream.start()

    async def _settle(self, text: str) -> None:
        self.settled += text
        renderable = RichMarkdown(text, code_theme=self.code_theme, hyperlinks=False)
        await self.mount(Static(CachedRender(renderable), classes="settled", markup=False),
                         before="#answer")

    def add_reasoning(self, text: str) -> None:
        self.reasoning += sanitize(text)
        thinking = self.query_one("#thinking", Collapsible)
        if not thinking.has_class("-shown"):
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
        if not self.content and self.reasoning:
            self.query_one("#thinking", Collapsible).collapsed = True
        self.content += clean
        if self._stream is not None:
            self._stream.write(clean)

    async def finish(self) -> None:
        """Stop the stream; the finished message replaces this view."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
