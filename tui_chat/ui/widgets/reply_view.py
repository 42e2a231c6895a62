"""The reply in progress: ONE widget drawing its header, its reasoning and its answer.

Deltas are queued and handed on by a `PacedStream` at most every MIN_FLUSH_INTERVAL seconds
(more rarely when the process is busy). Each append is drawn in a worker thread by a
`LiveText` (settled pieces once, the tail again; see live_text), so the event loop only swaps
lines in: key presses are not held up by Markdown parsing or code highlighting.

Why one widget drawing its own lines, and not Textual's `Markdown` in a container: a frame
that grows the reply lays out and repaints everything on screen, and each nested widget adds
its rows to repaint: a container with Textual `Markdown` costs several times a frame of one
widget, more with a code fence (the README's Speed section has the figures). And the widget's
height is the text's rounded up to a multiple of GROW_ROWS: an append that fits in the blank
rows below the text repaints only its own rows, with no layout and no scrolling. Those rows
are drawn blank whole (`render_lines`): the message's bar stops with its text.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from functools import partial

from rich.console import ConsoleOptions, RenderableType
from rich.style import Style as RichStyle
from rich.text import Text
from textual import log
from textual.app import App
from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

from tui_chat.core.models import Message
from tui_chat.core.text import GrowingText, sanitize
from tui_chat.ui import textual_compat
from tui_chat.ui.widgets.line_cache import forget_painted, styled
from tui_chat.ui.widgets.live_text import LiveText, markdown_text, split_lines
from tui_chat.ui.widgets.markdown_render import markdown_rows
from tui_chat.ui.widgets.message_view import (
    PIECED_CHARS,
    Position,
    ProviderLabels,
    author_line,
    capped,
    message_chrome,
)
from tui_chat.ui.widgets.piece_context import WHOLE, PieceContext
from tui_chat.ui.widgets.piece_rows import ChainRows, as_drawn_whole, estimate_markdown_rows
from tui_chat.ui.widgets.row_moves import PaintedRows, RowMoves
from tui_chat.ui.widgets.selectable import (
    PlacesWhenAsked,
    highlighted_row,
    selected_text,
    selection_paint,
)

MIN_FLUSH_INTERVAL = 0.05
"""Seconds between two appends to the live answer, at least (20 a second at most)."""
MAX_FLUSH_INTERVAL = 0.5
"""Seconds between two appends, at most, however busy the process is."""
CPU_BUDGET = 0.04
"""Share of one core the process may use while a reply streams: above it, appends (each one
a layout and a repaint of the scrolled view) are spaced out; below it, drawn sooner. At 100
tokens a second about 3% of a core goes to reading the stream whatever is drawn (on the
2-core development VM): this leaves about 2.3 appends a second at that rate (a line or two
each; 4.8% of a core in all), and more on slower streams. At 0.10 it was ten a second, for
10.5%."""
GOVERNOR_WINDOW = 1.0
"""Seconds of history the CPU share is measured over."""
FLUSH_COST_FACTOR = 2.0
"""Wait at least this many times the last append's cost, so drawing never hogs the loop."""
MAX_BATCH_CHARS = 8000
"""Characters appended at most per flush; at full speed the live view lags a little and the
finished message (drawn whole) catches up, instead of one huge append blocking the end."""
GROW_ROWS = 8
"""The live reply grows by this many rows at a time (blank ones below the text, to grow into
without a layout)."""


Commit = Callable[[], None]
"""Takes in, on the event loop, what an append drew (see PacedStream)."""
Prepare = Callable[[str], Awaitable[Commit]]
"""Draws an append (in a worker thread) and returns what takes it in."""


class Governor:
    """The pause between two appends: a frame-rate cap and a CPU budget (see `next`)."""

    def __init__(self) -> None:
        self._marks: collections.deque[tuple[float, float]] = collections.deque()
        self.interval = MIN_FLUSH_INTERVAL

    def next(self) -> float:
        """The next pause: the process's CPU share over the last GOVERNOR_WINDOW seconds,
        steered to the budget (a multiplicative step, so a burst at full speed spaces appends
        out quickly and a quiet trickle is drawn at the highest rate). The window spans
        several appends and the frames they caused, which the share since the last append
        alone would miss."""
        marks = self._marks
        now = (time.perf_counter(), time.process_time())
        marks.append(now)
        while len(marks) > 2 and now[0] - marks[1][0] >= GOVERNOR_WINDOW:
            marks.popleft()  # marks[0] stays the newest mark at least a window old
        elapsed = now[0] - marks[0][0]
        if elapsed > 0:
            share = (now[1] - marks[0][1]) / elapsed
            step = min(2.0, max(0.5, (share / CPU_BUDGET) ** 0.5))
            self.interval = min(MAX_FLUSH_INTERVAL, max(MIN_FLUSH_INTERVAL,
                                                        self.interval * step))
        return self.interval


class PacedStream:
    """Hands queued text to `prepare`, paced: a frame-rate cap and a CPU budget; on its
    own, or with the other streams of a `PaceGroup`, at the same moments."""

    def __init__(self, prepare: Prepare, group: PaceGroup | None = None) -> None:
        self._prepare = prepare
        self._group = group
        self._pending: list[str] = []
        self._wake = asyncio.Event()
        self._stopped = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._governor = Governor()
        self._showing = False
        self._idle = asyncio.Event()  # no append in progress (stop waits for it)
        self._idle.set()
        self._in_flight = ""  # the text being appended now

    @property
    def caught_up(self) -> bool:
        """Everything written so far is on screen (no fragment queued or being appended)."""
        return not self._pending and not self._showing

    @property
    def unshown(self) -> str:
        """The text written but not appended yet: the append in progress, then the queue."""
        return self._in_flight + "".join(self._pending)

    def start(self) -> None:
        if self._group is not None:
            self._group.add(self)
        elif self._task is None:
            self._task = asyncio.create_task(self._run())

    def write(self, fragment: str) -> None:
        """Queue `fragment` (already sanitized); never blocks."""
        if fragment:
            self._pending.append(fragment)
            if self._group is not None:
                self._group.wake()
            else:
                self._wake.set()

    async def stop(self, *, drain: bool = False) -> None:
        """End the pump after the append in progress; what is queued is then appended in one
        go if `drain`, else dropped."""
        self._stopped.set()
        self._wake.set()
        if self._group is not None:
            self._group.discard(self)
            await self._idle.wait()
        if self._task is not None:
            await self._task
            self._task = None
        if drain and self._pending:
            text = "".join(self._pending)
            self._pending.clear()
            self._begin(text)
            (await self._prepared(text))()

    def detach(self) -> None:
        """Leave its group without appending anything more (its view is gone)."""
        self._stopped.set()
        if self._group is not None:
            self._group.discard(self)

    def _take(self) -> str:
        """The queued text for the next append (at most MAX_BATCH_CHARS: the rest waits,
        for a bounded append and a short stop); "" if none."""
        if self._stopped.is_set() or not self._pending:
            return ""
        text = "".join(self._pending)
        self._pending.clear()
        if len(text) > MAX_BATCH_CHARS:
            text, rest = text[:MAX_BATCH_CHARS], text[MAX_BATCH_CHARS:]
            self._pending.append(rest)
        self._begin(text)
        return text

    def _begin(self, text: str) -> None:
        """`text`, taken from the queue, is in flight from now until its append is taken in
        (`_prepared`), in the same step: the append is drawn in another task, and until that
        task starts the text was nowhere, so `caught_up` said yes and `unshown` and `stop`
        missed it (a stop in that moment ended the reply before its last append)."""
        self._in_flight = text
        self._showing = True
        self._idle.clear()

    async def _run(self) -> None:
        while not self._stopped.is_set():
            await self._wake.wait()
            self._wake.clear()
            text = self._take()
            if not text:
                continue
            if self._pending:
                self._wake.set()
            started = time.perf_counter()
            await asyncio.shield(self._show(text))
            cost = time.perf_counter() - started
            pause = max(self._governor.next(), FLUSH_COST_FACTOR * cost)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopped.wait(), pause)

    async def _show(self, text: str) -> None:
        (await self._prepared(text))()

    async def _prepared(self, text: str) -> Commit:
        """`text` (in flight since `_begin`) drawn, and what takes it in. In flight until
        taken (then it is in what `prepare` keeps), in the same step: `unshown` and the
        appended text never both hold it. A drawing bug must not end the reply: it is
        logged, the append lost."""
        try:
            commit = await self._prepare(text)
        except Exception as error:
            log.error(f"live reply: could not draw an append ({error!r})")
            commit = _nothing

        def taken() -> None:
            try:
                commit()
            except Exception as error:
                log.error(f"live reply: could not take an append ({error!r})")
            finally:
                self._in_flight = ""
                self._showing = False
                self._idle.set()

        return taken


def _nothing() -> None:
    pass


class PaceGroup:
    """Streams appended at the same moments: the replies of a comparison. Paced each on its
    own, two columns appended at moments of their own, and each append that grows a column
    lays the screen out and paints a frame: twice a reply's layouts, each dearer (issue 24).
    Paced together, what each has queued is drawn side by side (in worker threads) and taken
    in one step of the event loop, so one layout and one frame show every column's growth;
    the pause between appends is one reply's (a frame-rate cap and the CPU budget)."""

    def __init__(self) -> None:
        self._streams: list[PacedStream] = []
        self._wake = asyncio.Event()
        self._emptied = asyncio.Event()  # no stream left: the pump ends
        self._task: asyncio.Task[None] | None = None
        self._governor = Governor()

    def add(self, stream: PacedStream) -> None:
        self._streams.append(stream)
        self._emptied.clear()
        if self._task is None:
            self._task = asyncio.create_task(self._run())

    def discard(self, stream: PacedStream) -> None:
        if stream in self._streams:
            self._streams.remove(stream)
            if not self._streams:
                self._emptied.set()
                self._wake.set()

    def wake(self) -> None:
        self._wake.set()

    async def _run(self) -> None:
        try:
            while self._streams:
                await self._wake.wait()
                self._wake.clear()
                batch = [(stream, text) for stream in list(self._streams)
                         if (text := stream._take())]
                if not batch:
                    continue
                if any(stream._pending for stream, _ in batch):
                    self._wake.set()
                started = time.perf_counter()
                await asyncio.shield(self._show(batch))
                cost = time.perf_counter() - started
                pause = max(self._governor.next(), FLUSH_COST_FACTOR * cost)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._emptied.wait(), pause)
        finally:
            self._task = None

    async def _show(self, batch: list[tuple[PacedStream, str]]) -> None:
        commits = await asyncio.gather(*(stream._prepared(text) for stream, text in batch))
        for commit in commits:  # one step of the event loop: one layout shows them all
            commit()


class MarkdownDrawer:
    """Draws the answer's pieces (live_text.Draw; any thread). The finished message and the
    line cache keep the answer's rows (`finished_lines`), which keep their draw function to
    draw pieces when read: a bound method of the live view kept the whole view (its widgets,
    its text, its painted rows) for as long as the rows lived (benchmarks/bench_ui_soak.py).
    This holds only what drawing needs."""

    __slots__ = ("_code_theme", "_reading_width", "app")

    def __init__(self, code_theme: str, reading_width: int | None) -> None:
        self._code_theme = code_theme
        self._reading_width = reading_width
        self.app: App[object] | None = None
        """Set when the view is mounted (nothing is drawn before)."""

    def __call__(self, text: str, width: int, context: PieceContext) -> list[Strip]:
        app = self.app
        assert app is not None, "drawn before its view was mounted"
        options = app.console_options.update_width(max(1, width)).update(highlight=False)
        return markdown_rows(text, app.console, options, code_theme=self._code_theme,
                             context=context, reading_width=self._reading_width)

    def estimate(self, text: str, width: int) -> int:
        return estimate_markdown_rows(text, width, self._reading_width)


class ReplyView(PlacesWhenAsked, Widget):
    """The assistant reply being streamed: header, Thinking, answer; see the module doc."""

    DEFAULT_CSS = """
    ReplyView {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        border-left: thick $secondary;
    }
    """

    def __init__(self, message: Message, *, code_theme: str = "monokai",
                 position: Position | None = None, labels: ProviderLabels | None = None,
                 reading_width: int | None = None, pace: PaceGroup | None = None) -> None:
        """`pace`: the group its appends are paced with (a comparison's columns), else
        paced on its own."""
        super().__init__()
        self.message = message
        self.code_theme = code_theme
        self.position = position  # among its siblings (a regenerated or compared reply)
        self.labels = labels
        self.reading_width = reading_width  # see reading_column
        self._answering = False  # any answer text arrived (its text: `content`)
        self._reasoning = GrowingText()
        self._reasoning_words: tuple[int, int] = (0, 0)  # (characters counted, words)
        self._held_cr = ""
        self._drawer = MarkdownDrawer(code_theme, reading_width)  # its app: on_mount
        self.answer = markdown_text(self._drawer, self._drawer.estimate)
        # Rows moved by a piece drawn when read (see piece_rows), below the rows above it:
        self._moves = RowMoves(self, relayout=self._relayout)
        self.answer.on_resize = (lambda row, delta:
                                 self._moves.add(len(self._prefix) + row, delta))
        self.thinking = LiveText(self._draw_reasoning, split_lines, markdown=False)
        self.thinking_collapsed = False
        self._answer_stream = PacedStream(partial(self._prepare, self.answer), pace)
        self._thinking_stream = PacedStream(partial(self._prepare, self.thinking), pace)
        self._width = 0  # the width the rows below were drawn for
        self._chrome: dict[str, list[Strip]] = {}  # header and Thinking titles, by their text
        self._prefix: list[Strip] = []  # the rows above the answer: header and Thinking
        # Rows as painted, by row: ((style, width), {y: (row drawn, row styled)}):
        self._painted: tuple[tuple[RichStyle, int], dict[int, tuple[Strip, Strip]]] = (
            (RichStyle(), 0), {})
        self._lines: Sequence[Strip] = []
        self._height = 0  # rows: the lines and blank rows to grow into (_rows_for)
        # The answer's rows and their moves that Textual's kept rows account for (see
        # PaintedRows): a growth refreshes the rows it changed itself (_relayout).
        self._painted_rows = PaintedRows()

    def on_mount(self) -> None:
        self._drawer.app = self.app
        self._answer_stream.start()
        self._thinking_stream.start()
        self._relayout()

    def on_unmount(self) -> None:
        """Gone from the screen (its finished view took its rows): Textual may keep the
        widget a while, and what it painted longer (see forget_painted)."""
        for stream in (self._answer_stream, self._thinking_stream):
            stream.detach()  # a view removed unfinished: its group paces it no more
        for text in (self.answer, self.thinking):
            text.release()
        self._lines, self._prefix, self._chrome = [], [], {}
        self._painted = ((RichStyle(), 0), {})
        self._painted_rows.forget()
        forget_painted(self)

    # --- what arrives ------------------------------------------------------------------

    @property
    def content(self) -> str:
        """The answer received so far, sanitized: what the live text holds, then what waits
        to be appended to it (the widget keeps no copy of its own: issue 22's delta path)."""
        return self.answer.source + self._answer_stream.unshown

    @property
    def caught_up(self) -> bool:
        """All text received so far is drawn, and the view laid out as tall as its rows (an
        append taken in may wait for the next layout to grow the view; until then its last
        rows are not on screen). Tests and screenshots wait for this."""
        return (self._answer_stream.caught_up and self._thinking_stream.caught_up
                and self.size.height >= self._height)

    @property
    def reasoning(self) -> str:
        """The reasoning received so far, sanitized (joined only when read: `+=` on a long
        text would copy all of it on every delta)."""
        return self._reasoning.text

    def add_reasoning(self, text: str) -> None:
        clean = sanitize(text)
        self._reasoning.append(clean)
        self._thinking_stream.write(clean)

    def _word_count(self) -> int:
        """Words of the reasoning, counted again only when it has grown."""
        text = self.reasoning
        if self._reasoning_words[0] != len(text):
            self._reasoning_words = (len(text), len(text.split()))
        return self._reasoning_words[1]

    def add_content(self, text: str) -> None:
        # A CR at the end of a delta may be half of a CRLF: hold it until the next delta.
        text = self._held_cr + text
        self._held_cr = "\r" if text.endswith("\r") else ""
        if self._held_cr:
            text = text[:-1]
        clean = sanitize(text)
        if not clean:
            return
        if not self._answering and self._reasoning:
            self.thinking_collapsed = True  # the answer starts: Thinking folds to one row
            self._relayout()
        self._answering = True
        self._answer_stream.write(clean)

    async def finish(self) -> None:
        """Stop drawing, with every answer delta received drawn (see `finished_lines`)."""
        await self._thinking_stream.stop()
        await self._answer_stream.stop(drain=True)

    def finished_lines(self, message: Message, width: int,
                       position: Position | None = None) -> Sequence[Strip] | None:
        """`message` (this reply, finished) drawn as its finished view draws it, from the
        answer's pieces (drawn again only if `width` is another); None when the text differs,
        so the finished view draws it whole. Saves drawing a long reply twice, and nothing
        jumps; the answer's pieces not drawn yet stay so (see piece_rows). A reply shorter
        than PIECED_CHARS, which its view would draw whole, is drawn whole here too, and any
        row of the pieces that is not the whole's is replaced by it: the pieces are drawn as
        the whole (tests/ui/test_streamed_equals_whole.py), but a row kept wrong would stay
        until the conversation is opened again. Call it after `finish`; it may run in a
        worker thread."""
        if (not self._answer_stream.caught_up or not message.content.strip()
                or self.answer.source != sanitize(message.content)):
            return None
        above, below = message_chrome(message, position=position, labels=self.labels,
                                      reading_width=self.reading_width)
        answer: Sequence[Strip] = self.answer.lines_for(width)
        if len(self.answer.source) < PIECED_CHARS:
            checked = as_drawn_whole(answer, self._drawer(self.answer.source, width, WHOLE))
            if checked is not answer:  # a drawing bug: tests/ui/test_streamed_equals_whole.py
                log.warning("live reply: rows drawn in pieces were not the whole's; "
                            "the whole's are shown")
            answer = checked
        return ChainRows([row for part in above for row in self._draw_rows(part, width)],
                         answer,
                         [row for part in below for row in self._draw_rows(part, width)])

    # --- drawing (the two _draw functions run in worker threads) ------------------------

    def _options(self, width: int) -> ConsoleOptions:
        return self.app.console_options.update_width(max(1, width)).update(highlight=False)

    def _draw_reasoning(self, text: str, width: int, _context: PieceContext) -> list[Strip]:
        if not text:
            return []
        return self._draw_rows(capped(Text(text.removesuffix("\n"), style="dim italic"),
                                      self.reading_width), width)

    def _draw_rows(self, renderable: RenderableType, width: int) -> list[Strip]:
        lines = self.app.console.render_lines(renderable, self._options(width), pad=False)
        return [Strip(line) for line in lines]

    def _drawing_width(self) -> int:
        if self.size.width:
            return self.content_size.width
        parent = self.parent  # not laid out yet: the width it will have in the list
        if isinstance(parent, Widget):
            return max(1, parent.scrollable_content_region.width - self.styles.gutter.width)
        return 1

    async def _prepare(self, live: LiveText, text: str) -> Commit:
        """`text` appended to `live`, drawn in a worker thread; taken in (and the rows
        refreshed) by the function returned, on the event loop."""
        live.eager_rows = self.app.size.height  # a screenful at the end: see live_text
        drawn = await asyncio.to_thread(live.prepare, text, self._drawing_width())

        def take() -> None:
            live.take(drawn)
            self._relayout()

        return take

    def _chrome_line(self, text: Text) -> list[Strip]:
        """A header or title row, drawn once per text and width (so rows stay the same
        objects and are not repainted)."""
        key = text.plain
        lines = self._chrome.get(key)
        if lines is None:
            lines = self._chrome[key] = self._draw_rows(text, self._width)
        return lines

    def _compose_prefix(self) -> list[Strip]:
        """The rows above the answer."""
        rows = list(self._chrome_line(author_line(self.message, live=True,
                                                  position=self.position,
                                                  labels=self.labels)))
        if self._reasoning:
            if self.thinking_collapsed:
                words = self._word_count()
                rows += self._chrome_line(Text(f"▶ Thinking ({words} words)", style="dim"))
            else:
                rows += self._chrome_line(Text("▼ Thinking", style="dim"))
                rows += self.thinking.lines
        return rows

    def _set_width(self, width: int) -> None:
        if width == self._width:
            return
        self._width = width
        self._chrome.clear()
        for text in (self.answer, self.thinking):
            if text.width and text.width != width:
                text.redraw(width)

    def _relayout(self) -> None:
        """New rows: repaint those that changed, or lay out when they outgrow the reserve."""
        self._set_width(self._drawing_width())
        old, self._prefix = self._prefix, self._compose_prefix()
        self._lines = ChainRows(self._prefix, self.answer.lines)
        height = self._rows_for(len(self._lines))
        changed = self.answer.rows.take_changed()
        self._painted_rows.changed(self.answer.rows, self.answer.rows.moves)  # refreshed below
        first = next((row for row, (was, now) in enumerate(zip(old, self._prefix,
                                                                strict=False))
                      if was is not now), min(len(old), len(self._prefix)))
        if first == len(old) == len(self._prefix):  # the answer's rows, from `changed`
            first += len(self.answer.lines) if changed is None else changed
        if height != self._height:
            self._height = height
            # Only the rows from `first` down are repainted: the ones above are kept, drawn,
            # by Textual (see _size_updated).
            self.refresh(Region(0, first, self._width, max(1, height - first)), layout=True)
        elif first < self._height:  # the rows above are the same objects: not repainted
            self.refresh(Region(0, first, self._width, self._height - first))

    # --- Textual's side -------------------------------------------------------------------

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        """A new height at the same width moves no row already drawn (the widget has no
        border or padding above or below its rows): Textual would repaint every row of the
        widget for any new size, and a growing reply gets a new height several times a
        second, so every row on screen was drawn again each time. Keep them: `_relayout`
        marks the rows that changed, and rows new to the widget are drawn as they come."""
        laid_out = textual_compat.laid_out_size(self)
        if (laid_out.width == size.width and laid_out.height
                and not self._has_vertical_chrome()):
            textual_compat.set_laid_out_size(self, size)
            # Nor lay out again for the new virtual size (it scrolls nothing here).
            layout = False
        return super()._size_updated(size, virtual_size, container_size, layout)

    def _has_vertical_chrome(self) -> bool:
        """A top or bottom border or padding: rows would then depend on the height."""
        styles = self.styles
        return bool(styles.border_top[0] or styles.border_bottom[0]
                    or styles.padding.top or styles.padding.bottom)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width != self._width:
            self._set_width(width)
            self._prefix = self._compose_prefix()
            self._lines = ChainRows(self._prefix, self.answer.lines)
            self._height = self._rows_for(len(self._lines))
        return self._height

    def _rows_for(self, lines: int) -> int:
        """The widget's height for `lines` of text: the next multiple of GROW_ROWS, so the
        blank rows below the text (1 to GROW_ROWS) depend on the text alone, not on how it
        arrived (screenshots and snapshots are the same every time)."""
        if not (self.answer.lines or self.thinking.lines):
            return lines
        return (lines // GROW_ROWS + 1) * GROW_ROWS

    def render_lines(self, crop: Region) -> list[Strip]:
        """Textual's rows, but the blank rows below the text (the reserve to grow into) are
        drawn blank whole, without the bar: no column of empty bar rows under the reply.
        The answer's pieces in `crop` are drawn first (see piece_rows), so that the rows
        Textual kept from the last paint are dropped if that, or a drawing elsewhere since
        (a selection, a worker thread), moved them."""
        rows = self.answer.rows
        offset = self._answer_top()
        rows.draw_range(crop.y - offset, crop.bottom - offset)
        if self._painted_rows.changed(rows, rows.moves):
            textual_compat.clear_styles_cache(self)
        strips = super().render_lines(crop)
        text_rows = len(self._lines) + self.styles.gutter.top
        if crop.bottom <= text_rows:
            return strips
        for index in range(max(0, text_rows - crop.y), len(strips)):
            strip = strips[index]
            segments = list(strip)
            style = segments[-1].style if segments else None
            strips[index] = Strip.blank(strip.cell_length, style)
        return strips

    def render_line(self, y: int) -> Strip:
        style = self.visual_style.rich_style
        if not 0 <= y < len(self._lines):
            return Strip.blank(self._width, style)
        source = self._lines[y]
        painted = self._painted
        if painted[0] != (style, self._width):
            painted = self._painted = ((style, self._width), {})
        kept = painted[1].get(y)
        if kept is not None and kept[0] is source:
            line = kept[1]
        else:
            # Not Strip.apply_style: the styled copy would live inside the row, and the
            # finished message keeps these rows (in the line cache too).
            line = styled(source, style).extend_cell_length(self._width, style)
            painted[1][y] = (source, line)
        selection = self.text_selection
        if selection is not None:
            paint = selection_paint(Style.from_styles(
                self.screen.get_component_styles("screen--selection")),
                self.visual_style.background)
            line = highlighted_row(line, y, selection, paint)
        return self.placed(line, y)  # where each character is: see PlacesWhenAsked

    def _answer_top(self) -> int:
        """The row of the widget where the answer's rows begin."""
        return self.styles.gutter.top + len(self._prefix)

    def draw_ahead(self, start: int, stop: int) -> None:
        """Draw its rows `start` to `stop` if they are not drawn yet, ahead of the frame
        that shows them (the user scrolled up while it streams)."""
        offset = self._answer_top()
        self.answer.rows.draw_range(start - offset, stop - offset)
        self._moves.apply()

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selected_text(self._lines, selection)
