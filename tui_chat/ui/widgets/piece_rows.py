"""Rows of a long text kept as pieces, each drawn the first time one of its rows is read.

A 20,000-chunk reply is about 8,400 rows, and drawing all of them with Rich costs seconds of
CPU, when the user sees forty at a time. So the live reply (live_text) keeps its settled
Markdown as pieces of source text, draws those near its end as they settle, and leaves the
rest undrawn with an estimated height (`estimate_markdown_rows`). A piece is drawn when one
of its rows is read: by a paint, by `draw_range` ahead of a scroll, or by a selection. The
finished message takes the same rows (reply_view.finished_lines), so a long reply is never
drawn whole unless the user reads it all.

When a piece drawn turns out taller or shorter than estimated, every row below it moves:
`on_resize(first_row, delta)` tells the owner, which lays out again and scrolls by `delta`
if those rows start above the top of the view, so what is on screen stays in place
(`row_moves.keep_in_place`). Estimates err on the tall side, so that the scroll
moves up, never past the end.

Pieces are joined as they come: each is drawn with its context (piece_context), the seam
above it included, so its rows are its rows of the whole text (the spec examples in
tests/ui/test_streamed_equals_whole.py hold them to it). But at the cut of a split fence the
fence's padding rows on both sides of the cut are dropped, so the fence reads as one block.
"""

from __future__ import annotations

import bisect
import itertools
import math
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, overload

from msgspec import Struct
from rich.cells import cell_len
from textual.strip import Strip

from tui_chat.ui.widgets.code_blocks import closes_fence, opening_fence
from tui_chat.ui.widgets.line_cache import ROW_BYTES, SEGMENT_BYTES, strips_bytes
from tui_chat.ui.widgets.piece_context import PieceContext

if TYPE_CHECKING:
    from tui_chat.ui.widgets.live_text import Draw


class Piece(Struct, eq=False):
    """A settled piece of text (or the live tail), drawn or not."""

    text: str
    fence_open: bool
    """It ends inside a code fence (closed by us) that the next piece reopens."""
    context: PieceContext
    lines: list[Strip] | None = None
    """As the draw function drew it for the rows' width; None: not drawn."""
    estimate: tuple[int, int] | None = None
    """(width, rows): its estimated height at that width, kept (it is asked again each time
    the piece before or after it is drawn or replaced)."""

    @property
    def blank(self) -> bool:
        """Draws no row (Markdown draws none for blank text)."""
        return not self.lines if self.lines is not None else not self.text.strip()


Estimate = Callable[[str, int], int]
"""Rows a piece of text will take at a width, about (never called on blank text)."""

def estimate_markdown_rows(text: str, width: int, reading_width: int | None = None) -> int:
    """About how many rows Rich draws `text` (Markdown) in at `width` cells, on the tall
    side: prose wraps at `reading_width` when narrower, a code block takes its lines and
    two rows of padding, a blank row separates two blocks, and one row more for the piece."""
    prose = max(1, min(width, reading_width or width))
    code = max(1, width - 2)
    rows = blocks = cells = 0
    fence: str | None = None
    for line in text.splitlines():
        if fence is not None:
            if closes_fence(fence, line):
                fence, rows = None, rows + 1  # its padding row below
            else:
                rows += max(1, math.ceil(cell_len(line) / code))
            continue
        opened = opening_fence(line)
        if opened is not None or not line.strip():
            if cells:
                rows, blocks, cells = rows + _prose_rows(cells, prose), blocks + 1, 0
            if opened is not None:
                fence, rows, blocks = opened, rows + 1, blocks + 1  # its number's row
        else:
            cells += cell_len(line) + 1
    if cells:
        rows, blocks = rows + _prose_rows(cells, prose), blocks + 1
    return rows + max(0, blocks - 1) + 1


def _prose_rows(cells: int, width: int) -> int:
    # Words wrap before the edge: a row holds a little less than the width, on average.
    return math.ceil(cells * 1.1 / width)


def _is_blank(strip: Strip) -> bool:
    return not strip.text.strip()


class _Rows(Sequence[Strip]):
    """A Sequence of rows from `_row(y)`, y from 0 (slices and negative indices here)."""

    def _row(self, y: int) -> Strip:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> Strip: ...

    @overload
    def __getitem__(self, index: slice) -> list[Strip]: ...

    def __getitem__(self, index: int | slice) -> Strip | list[Strip]:
        if isinstance(index, slice):
            return [self[y] for y in range(*index.indices(len(self)))]
        y = index + len(self) if index < 0 else index
        if not 0 <= y < len(self):
            raise IndexError(index)
        return self._row(y)


class PieceRows(_Rows):
    """The rows of `pieces` at `width`, each piece drawn when first read (see the module
    doc). Thread-safe: a finished reply's rows may be read in a worker thread."""

    def __init__(self, draw: Draw, width: int, *, estimate: Estimate) -> None:
        self._draw = draw
        self.width = width
        self._estimate = estimate
        self._lock = threading.RLock()
        self.pieces: list[Piece] = []
        self._shares: list[list[Strip] | None] = []  # each piece's rows in the joined whole
        self._heights: list[int] = []
        self._starts: list[int] | None = None  # prefix sums of _heights; None when stale
        self._changed_from: int | None = None
        self.on_resize: Callable[[int, int], None] | None = None
        """Called with (first row, delta) when drawing a piece moved the rows below it."""
        self.moves = 0
        """How many times rows moved: rows read before a move may be at other places now."""

    # --- building ------------------------------------------------------------------------

    def replace_from(self, index: int, pieces: Sequence[Piece]) -> None:
        """Pieces `index` on become `pieces` (the live tail replaced by what settled of it
        and the new tail)."""
        with self._lock:
            first = self.start(min(index, len(self.pieces)))
            del self.pieces[index:], self._shares[index:], self._heights[index:]
            self.pieces.extend(pieces)
            self._shares.extend(None for _ in pieces)
            self._heights.extend(0 for _ in pieces)
            for at in range(max(0, index - 1), len(self.pieces)):
                self._measure(at)
            self._starts = None
            self.moves += 1
            self._changed_from = first if self._changed_from is None else min(
                self._changed_from, first)

    def replace_pieces(self, changes: Sequence[tuple[int, Piece]]) -> None:
        """Each (index, piece) of `changes`: piece `index` becomes `piece` (the same text in
        another context: see LiveText), if it still holds that text."""
        moved: list[tuple[int, int]] = []
        with self._lock:
            for index, piece in changes:
                if index >= len(self.pieces) or self.pieces[index].text is not piece.text:
                    continue
                before, first = self._total_below(index), self.start(index)
                self.pieces[index] = piece
                self._measure(index)
                self._starts = None
                self.moves += 1
                self._changed_from = first if self._changed_from is None else min(
                    self._changed_from, first)
                delta = self._total_below(index) - before
                if delta:
                    moved.append((first, delta))
        if self.on_resize is not None:
            for first, delta in moved:
                self.on_resize(first, delta)

    def copy_for(self, width: int) -> PieceRows:
        """The same pieces at `width`: none drawn yet if it is another, else sharing the
        lines drawn (Strips are never changed); their estimates go too (each says its width)."""
        with self._lock:
            rows = PieceRows(self._draw, width, estimate=self._estimate)
            same = width == self.width
            rows.replace_from(0, [Piece(p.text, p.fence_open, p.context,
                                        p.lines if same else None, p.estimate)
                                  for p in self.pieces])
            return rows

    def release(self) -> None:
        """Let go of every drawn row (drawn again when read)."""
        with self._lock:
            for piece in self.pieces:
                piece.lines = None
            self.replace_from(0, list(self.pieces))

    def take_changed(self) -> int | None:
        """The first row that changed since the last call (None: none did)."""
        with self._lock:
            changed, self._changed_from = self._changed_from, None
            return changed

    # --- drawing -------------------------------------------------------------------------

    def draw_piece(self, index: int) -> None:
        """Draw piece `index` if it is not drawn (any thread)."""
        with self._lock:
            piece, width = self.pieces[index], self.width
            if piece.lines is not None:
                return
        lines = self._draw(piece.text, width, piece.context)  # outside the lock
        with self._lock:
            if (piece.lines is not None or width != self.width or index >= len(self.pieces)
                    or self.pieces[index] is not piece):
                return  # drawn meanwhile, or for a width gone
            piece.lines = lines
            before = self._total_below(index)
            first = self.start(index)
            self._measure(index)
            self._starts = None
            delta = self._total_below(index) - before
            if delta:  # the rows from here down moved: to be painted again (take_changed)
                self.moves += 1
                self._changed_from = first if self._changed_from is None else min(
                    self._changed_from, first)
        if delta and self.on_resize is not None:
            self.on_resize(first, delta)

    def draw_range(self, start: int, stop: int) -> None:
        """Draw the pieces holding rows `start` to `stop` (ahead of showing them)."""
        while True:
            with self._lock:
                undrawn = [index for index in self._pieces_in(start, stop)
                           if self.pieces[index].lines is None]
            if not undrawn:
                return
            self.draw_piece(undrawn[0])

    def draw_tail_rows(self, rows: int) -> None:
        """Draw the last pieces, up to about `rows` rows from the end."""
        with self._lock:
            end = len(self)
        self.draw_range(max(0, end - rows), end)

    def drawn_rows(self) -> int:
        """Rows of the pieces drawn."""
        with self._lock:
            return sum(len(share) for share in self._shares if share is not None)

    def held_bytes(self) -> int:
        """About the memory the rows hold once all drawn (line_cache.strips_bytes): a
        cache counting what is drawn so far would be outgrown as the rest is read."""
        with self._lock:
            drawn = [row for share in self._shares if share is not None for row in share]
            undrawn = sum(height for share, height in zip(self._shares, self._heights,
                                                          strict=True) if share is None)
        return strips_bytes(drawn) + undrawn * (ROW_BYTES + 4 * SEGMENT_BYTES + self.width)

    # --- Sequence ------------------------------------------------------------------------

    def __len__(self) -> int:
        with self._lock:
            return self.start(len(self.pieces))

    def _row(self, y: int) -> Strip:
        drew = False
        while True:  # drawing a piece may move the rows: look again
            with self._lock:
                if not 0 <= y < self.start(len(self.pieces)):
                    if drew:  # the rows shrank under y as it was read: a blank row
                        return Strip([], 0)
                    raise IndexError(y)
                at = self._piece_at(y)
                share = self._shares[at]
                if share is not None:
                    return share[y - self.start(at)]
            self.draw_piece(at)
            drew = True

    def __iter__(self) -> Iterator[Strip]:
        for index in range(len(self.pieces)):
            self.draw_piece(index)
        with self._lock:
            shares = [share or [] for share in self._shares]
        return itertools.chain.from_iterable(shares)

    # --- bookkeeping ---------------------------------------------------------------------

    def start(self, index: int) -> int:
        """The first row of piece `index` (the rows' end for `len(pieces)`)."""
        with self._lock:
            if self._starts is None:
                self._starts = [0, *itertools.accumulate(self._heights)]
            return self._starts[index]

    def _total_below(self, index: int) -> int:
        return sum(self._heights[index:])

    def _piece_at(self, y: int) -> int:
        self.start(0)
        assert self._starts is not None
        at = bisect.bisect_right(self._starts, y) - 1
        while self._heights[at] == 0:  # y is in a later piece: skip the empty ones
            at += 1
        return at

    def _pieces_in(self, start: int, stop: int) -> list[int]:
        total = self.start(len(self.pieces))
        start, stop = max(0, start), min(stop, total)
        if start >= stop:
            return []
        first, last = self._piece_at(start), self._piece_at(stop - 1)
        return list(range(first, last + 1))

    def _measure(self, index: int) -> None:
        """Piece `index`'s share of the rows (if drawn) and its height (estimated if not)."""
        piece = self.pieces[index]
        if piece.blank:
            self._shares[index], self._heights[index] = [], 0
            return
        if piece.lines is None:
            self._shares[index] = None
            if piece.estimate is None or piece.estimate[0] != self.width:
                piece.estimate = (self.width, self._estimate(piece.text, self.width))
            self._heights[index] = piece.estimate[1] + piece.context.after_block
            return
        share = list(piece.lines)
        if index and self.pieces[index - 1].fence_open and share and _is_blank(share[0]):
            share = share[1:]  # the fence's padding rows at the cut go
        if piece.fence_open and share and _is_blank(share[-1]) and index + 1 < len(self.pieces):
            share.pop()
        self._shares[index], self._heights[index] = share, len(share)


def as_drawn_whole(rows: Sequence[Strip], whole: list[Strip]) -> Sequence[Strip]:
    """`rows` (every one drawn) if they are the rows of `whole`, the same text drawn at
    once; else `whole`, its rows that `rows` already held kept as those objects (a row
    painted is not painted again)."""
    if len(rows) == len(whole) and all(
            list(row) == list(right) for row, right in zip(rows, whole, strict=True)):
        return rows
    kept = dict(zip(map(_segments, rows), rows, strict=True))
    return [kept.get(_segments(row), row) for row in whole]


def _segments(row: Strip) -> tuple[object, ...]:
    return tuple(row)


class ChainRows(_Rows):
    """Several runs of rows read as one (a message's header rows, its answer's pieces, its
    error below), without drawing the lazy ones (see PieceRows)."""

    def __init__(self, *parts: Sequence[Strip]) -> None:
        self.parts = [part for part in parts if isinstance(part, PieceRows) or part]

    def __len__(self) -> int:
        return sum(len(part) for part in self.parts)

    def _row(self, y: int) -> Strip:
        index = y
        for part in self.parts:
            size = len(part)
            if 0 <= y < size:
                return part[y]
            y -= size
        raise IndexError(index)

    def __iter__(self) -> Iterator[Strip]:
        return itertools.chain.from_iterable(self.parts)

    @property
    def moves(self) -> int:
        """How many times the lazy parts' rows moved (PieceRows.moves)."""
        return sum(part.moves for _, part in self.lazy_parts())

    def held_bytes(self) -> int:
        return sum(part.held_bytes() if isinstance(part, PieceRows) else strips_bytes(part)
                   for part in self.parts)

    def lazy_parts(self) -> Iterator[tuple[int, PieceRows]]:
        """(first row, rows) of each lazy part."""
        offset = 0
        for part in self.parts:
            if isinstance(part, PieceRows):
                yield offset, part
            offset += len(part)
