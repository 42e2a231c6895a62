"""Text that streams in, kept as drawn lines: settled pieces drawn once, a tail redrawn.

Used by the live reply (`reply_view.ReplyView`) for its answer (Markdown) and its reasoning
(plain text). The text is split into settled pieces and a live tail: for Markdown, settled is
every block before the last blank line outside a code fence; for plain text, every line
before the last newline. Each settled piece is drawn once, with the same Rich Markdown as
finished messages; only the tail (one paragraph, or the last lines of an open fence) is drawn
again per append. `prepare` draws in a worker thread; `take` swaps the lines in on the event
loop. So an append costs the same at the end of a long reply as at its start.

The lines are a `PieceRows` (see piece_rows): Markdown settles in pieces of about
PIECE_CHARS, and only those within a screenful of the end are drawn as they settle; the
others are drawn when read (a scroll up, a selection). A reply streamed fast settles far
more per append than the screen shows, and most of it is then never drawn unless read.

A piece cut out of a long open fence (see `split_markdown`) is joined to the next without the
padding rows Rich puts around a code block, so the fence reads as one block.

Each piece is drawn with what it must know of the text around it (piece_context): its code
block numbers (each settled piece's blocks are counted once; a fence continued from the piece
before keeps its number and shows none), the seam above it, and the link reference
definitions of the whole text that it uses. A definition that arrives later changes the
pieces above that use its label: they are drawn again (those near the end at once, in the
worker thread; the others when read). So the rows streamed are the rows of the whole text
drawn at once: the CommonMark and GFM spec examples in any chunking are the test
(tests/ui/test_streamed_equals_whole.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from textual.strip import Strip

from tui_chat.core.text import GrowingText
from tui_chat.ui.widgets.code_blocks import closes_fence, opening_fence
from tui_chat.ui.widgets.piece_context import (
    Definitions,
    PieceContext,
    definitions,
    merged,
    next_context,
    references_for,
)
from tui_chat.ui.widgets.piece_rows import Estimate, Piece, PieceRows

FENCE_LINES = 40
"""An open code fence longer than this many lines is split: its lines so far settle."""



class Split(NamedTuple):
    settled: str
    rest: str
    fence_open: bool
    """`settled` ends inside a code fence (closed by us) that `rest` reopens."""


def split_markdown(text: str, fence_lines: int | None = FENCE_LINES) -> Split | None:
    """`text` cut after its complete blocks, or None when nothing is settled yet.

    Settled is every block before the last blank line outside a code fence that is followed
    by the start of a new block: not by an indented line or a list item, which may belong to
    the block above (a loose list, an indented code block). Inside an open fence with more
    than `fence_lines` complete lines, the fence is split instead: settled gets its complete
    lines but the last, and a closing fence; rest reopens it with the same opener line.
    """
    scan = _scan(text)
    fence = scan.fence
    if fence is not None and fence_lines is not None:
        # Cut before the last complete line, so that the fence's continuation always holds a
        # line of code: an empty continuation (the closing fence came next) is drawn by Rich
        # as a code block of its own, one padding row more than the whole fence.
        last_line = text.rfind("\n", 0, text.rfind("\n")) + 1
        if (last_line > scan.fence_body_start
                and text.count("\n", scan.fence_body_start) > fence_lines):
            return Split(text[:last_line] + fence + "\n", scan.opener_line + text[last_line:],
                         True)
    settled = scan.cuts[-1] if scan.cuts else 0
    return Split(text[:settled], text[settled:], False) if settled else None


class _Scan(NamedTuple):
    cuts: list[int]
    """Where a block starts that surely begins anew (see split_markdown), in order."""
    fence: str | None
    """The fence left open at the end, if any; then its opener line, and where its body
    starts."""
    opener_line: str
    fence_body_start: int


def _scan(text: str) -> _Scan:
    fence: str | None = None
    html_end: re.Pattern[str] | None = None  # the end of the HTML block (kinds 1-5) open
    opener_line = ""
    offset = blank_end = fence_body_start = 0
    cuts: list[int] = []
    for line in text.splitlines(keepends=True):
        if fence is not None:
            if closes_fence(fence, line):
                fence = None
        elif html_end is not None:
            if html_end.search(line):
                html_end = None
        elif not line.strip():
            if offset and line.endswith("\n"):
                blank_end = offset + len(line)
        else:
            if blank_end and _starts_a_block(line):
                cuts.append(blank_end)
            blank_end = 0
            opened = opening_fence(line)
            if opened is not None:
                fence, opener_line = opened, line
                fence_body_start = offset + len(line)
            else:
                html_end = _html_block_end(line)
        offset += len(line)
    return _Scan(cuts, fence, opener_line, fence_body_start)


_HTML_BLOCKS = [(re.compile(start, re.IGNORECASE), re.compile(end, re.IGNORECASE)) for
                start, end in ((r" {0,3}<(?:pre|script|style|textarea)(?:[ \t>]|$)",
                                r"</(?:pre|script|style|textarea)>"),
                               (r" {0,3}<!--", r"-->"), (r" {0,3}<\?", r"\?>"),
                               (r" {0,3}<![a-z]", r">"), (r" {0,3}<!\[CDATA\[", r"\]\]>"))]
"""CommonMark's HTML blocks of kinds 1 to 5 (start, end): they run until the end's line,
over blank lines (the others end at a blank line, as a paragraph does)."""


def _html_block_end(line: str) -> re.Pattern[str] | None:
    """What ends the HTML block `line` starts if it starts one that runs over blank lines
    and does not end on the same line (a line in a list item may start one too: that it
    is taken for one only keeps the text from being cut there)."""
    for start, end in _HTML_BLOCKS:
        if start.match(line):
            return None if end.search(line) else end
    return None


def block_pieces(text: str, max_chars: int) -> list[str]:
    """Settled Markdown `text` cut between its blocks (where split_markdown may cut) into
    pieces of at most `max_chars`, but for a block longer than that, which stays whole."""
    pieces: list[str] = []
    start = last = 0
    for cut in [*_scan(text).cuts, len(text)]:
        if cut - start > max_chars and last > start:
            pieces.append(text[start:last])
            start = last
        last = cut
    pieces.append(text[start:])
    return [piece for piece in pieces if piece]


_CONTINUES = re.compile(r"[ \t]|[-*+]([ \t]|$)|\d{1,9}[.)]([ \t]|$)")
"""A line that may continue the block above a blank line: indented, or a list item."""


def _starts_a_block(line: str) -> bool:
    """Whether `line`, after a blank line, surely starts a new top-level block. A line still
    arriving (no newline yet) is judged only once its first character rules a list out."""
    if not line.endswith("\n"):
        return not (line[0] in " \t-*+" or line[0].isdigit())
    return _CONTINUES.match(line.rstrip("\n")) is None


def settled_length(text: str) -> int:
    """How much of `text` is complete Markdown blocks: up to the last blank line outside a
    fence."""
    split = split_markdown(text, fence_lines=None)
    return len(split.settled) if split else 0


def split_lines(text: str) -> Split | None:
    """Plain text cut after its last newline (lines wrap on their own: drawing the pieces
    one by one gives the same lines as drawing the whole)."""
    end = text.rfind("\n") + 1
    return Split(text[:end], text[end:], False) if end else None


Draw = Callable[[str, int, PieceContext], list[Strip]]
"""Draws a piece of text for a width, in lines, as in the whole text (see piece_context);
must be safe to call in a worker thread."""


class Drawn(NamedTuple):
    """What `LiveText.prepare` drew for one append."""

    appended: str
    width: int
    settled: Split | None
    pieces: list[Piece]
    """What settled, in pieces: those near the end drawn, the others left for when read."""
    tail: Piece
    after: PieceContext
    """The next piece's (the tail's, without its references)."""
    definitions: Definitions
    """The link reference definitions of the settled text."""
    found: Definitions
    """Those of the whole text so far (the tail's too)."""
    again: list[tuple[int, Piece]]
    """Pieces settled before, by index, with the references they now use: to be drawn
    again (those near the end are drawn)."""


PIECE_CHARS = 800
"""A settled append is cut at its blocks into pieces of about this many characters at
most, so that a piece drawn when read (see piece_rows) costs a few milliseconds, not a
whole append's."""
EAGER_ROWS = 60
"""Rows at the end drawn as they settle (a screenful: `LiveText.eager_rows` is set to the
screen's height); the rest is drawn when read. Streamed slowly, every piece settles at the
end and is drawn; streamed fast, an append settles more than a screenful, and only its end
is ever on screen unless the user scrolls up to it."""


class LiveText:
    """Streamed text as lines (see the module doc). Not a widget: `ReplyView` shows it."""

    def __init__(self, draw: Draw, split: Callable[[str], Split | None], *,
                 markdown: bool, estimate: Estimate | None = None,
                 piece_chars: int = PIECE_CHARS, eager_rows: int = EAGER_ROWS) -> None:
        """`markdown`: the text is Markdown, its pieces drawn in their context (see
        piece_context; plain text needs none); `estimate` tells about how many rows a
        text takes at a width: with it, settled text is kept in pieces of about
        `piece_chars`, and those beyond the last `eager_rows` rows are drawn only when
        read (see piece_rows); without it, every piece is drawn as it settles."""
        self._draw = draw
        self._split = split
        self._markdown = markdown
        self._estimate = estimate
        self._piece_chars = piece_chars
        self.eager_rows = eager_rows
        self._context = PieceContext()  # the next settled piece's, and the tail's
        self._definitions: Definitions = {}  # of the settled text
        self._found: Definitions = {}  # of all the text, the tail's too
        self._tail_text = ""
        self._appended = GrowingText()
        self.rows = PieceRows(draw, 0, estimate=estimate or _one_row)
        self._handed_out = False  # `rows` belong to a finished view too (see lines_for)
        self._on_resize: Callable[[int, int], None] | None = None

    @property
    def on_resize(self) -> Callable[[int, int], None] | None:
        """Called as PieceRows.on_resize is, for the rows shown."""
        return self._on_resize

    @on_resize.setter
    def on_resize(self, callback: Callable[[int, int], None] | None) -> None:
        self._on_resize = self.rows.on_resize = callback

    def _own_rows(self) -> PieceRows:
        """The rows, to change: a copy if they were handed out (a finished view shows
        them; the live view may still lay out, at another width, before it goes)."""
        if self._handed_out:
            self.rows = self.rows.copy_for(self.rows.width)
            self.rows.on_resize = self._on_resize
            self._handed_out = False
        return self.rows

    @property
    def lines(self) -> PieceRows:
        """The rows, settled pieces then the tail (read lazily: see piece_rows)."""
        return self.rows

    @property
    def width(self) -> int:
        return self.rows.width

    @property
    def source(self) -> str:
        """The text drawn so far, as it was appended."""
        return self._appended.text

    @property
    def tail_text(self) -> str:
        """The part drawn again on every append."""
        return self._tail_text

    def prepare(self, text: str, width: int) -> Drawn:
        """Draw what appending `text` settles (near the end), and the new tail, for `width`
        cells (any thread; one append at a time)."""
        live = self._tail_text + text
        split = self._split(live)
        tail = split.rest if split else live
        pieces, after = self._pieces_of(split, self._context) if split else ([], self._context)
        settled, found = self._definitions, self._found
        if self._markdown:
            for piece in pieces:
                settled = merged(settled, definitions(piece.text))
            found = merged(settled, definitions(tail))
            for piece in pieces:
                piece.context = piece.context._replace(
                    references=references_for(piece.text, found))
        tail_context = after._replace(references=references_for(tail, found))
        tail_piece = Piece(tail, False, tail_context, self._draw(tail, width, tail_context))
        again = self._using_other_references(found) if found != self._found else []
        self._draw_end(pieces, again, width)
        return Drawn(text, width, split, pieces, tail_piece, after, settled, found, again)

    def _pieces_of(self, split: Split, context: PieceContext
                   ) -> tuple[list[Piece], PieceContext]:
        """The settled text in pieces of about PIECE_CHARS, cut between its blocks (one
        piece when every piece is drawn anyway), each with its context (but references);
        and the context after them."""
        texts = (block_pieces(split.settled, self._piece_chars) if self._estimate
                 else [split.settled])
        pieces: list[Piece] = []
        for index, text in enumerate(texts):
            fence_open = split.fence_open and index == len(texts) - 1
            pieces.append(Piece(text, fence_open, context))
            if self._markdown:
                context = next_context(text, context, fence_open=fence_open)
        return pieces, context

    def _using_other_references(self, found: Definitions) -> list[tuple[int, Piece]]:
        """The pieces settled before (not the tail) whose references differ with the
        definitions `found`, by index, with them."""
        again: list[tuple[int, Piece]] = []
        for index, piece in enumerate(self.rows.pieces[:-1]):
            references = references_for(piece.text, found)
            if references != piece.context.references:
                again.append((index, Piece(piece.text, piece.fence_open,
                                           piece.context._replace(references=references))))
        return again

    def _draw_end(self, pieces: list[Piece], again: list[tuple[int, Piece]], width: int
                  ) -> None:
        """Draw the new `pieces` and the pieces to draw `again` that lie within the last
        `eager_rows` rows (all of them without an estimate)."""
        budget = self.eager_rows if self._estimate else None
        for piece in reversed(pieces):
            if budget is not None and budget <= 0:
                return
            if not piece.blank:
                piece.lines = self._draw(piece.text, width, piece.context)
                if budget is not None:
                    budget -= len(piece.lines)
        redraw = dict(again)
        settled = self.rows.pieces[:-1]  # before this append's (the last is the old tail)
        for index in range(len(settled) - 1, -1, -1) if redraw else ():
            if budget is not None and budget <= 0:
                return
            changed = redraw.get(index)
            if changed is not None:
                changed.lines = self._draw(changed.text, width, changed.context)
            if budget is not None:
                budget -= self._rows_of(changed or settled[index], width)

    def _rows_of(self, piece: Piece, width: int) -> int:
        if piece.lines is not None:
            return len(piece.lines)
        return 0 if piece.blank or self._estimate is None else self._estimate(piece.text, width)

    def take(self, drawn: Drawn) -> None:
        """Swap in what `prepare` drew (drawn again here if the width changed meanwhile)."""
        if drawn.width != self.width and self.width:  # the tail is still the one it began with
            drawn = self.prepare(drawn.appended, self.width)
        rows = self._own_rows()
        if not rows.pieces:
            rows.width = drawn.width
        if drawn.again:  # pieces above using other link definitions now
            rows.replace_pieces(drawn.again)
        # The last piece is the tail so far: what settled of it, and the new tail, replace it.
        rows.replace_from(max(0, len(rows.pieces) - 1), [*drawn.pieces, drawn.tail])
        self._tail_text = drawn.tail.text
        self._context = drawn.after
        self._definitions, self._found = drawn.definitions, drawn.found
        self._appended.append(drawn.appended)

    def redraw(self, width: int) -> None:
        """Every piece again for a new width (a resize, or the scrollbar appearing): those
        near the end at once, the others when read."""
        rows = self._own_rows()
        rows.width = width
        rows.release()
        moved, rows.on_resize = rows.on_resize, None  # everything is laid out again anyway
        try:
            self._draw_last_rows(rows)
        finally:
            rows.on_resize = moved

    def _draw_last_rows(self, rows: PieceRows) -> None:
        if self._estimate:
            rows.draw_tail_rows(self.eager_rows)
        else:
            rows.draw_range(0, len(rows))

    def release(self) -> None:
        """Let go of the lines drawn (the text stays: `redraw` or `lines_for` draws them
        again). Rows handed out by `lines_for` are left to their new owner."""
        self.rows = self.rows.copy_for(0)
        self._handed_out = False

    def lines_for(self, width: int) -> PieceRows:
        """The rows for `width`, without changing what is shown (any thread, once no more
        text is appended): the rows shown, at their width."""
        if width == self.width:
            self._handed_out = True
            return self.rows
        rows = self.rows.copy_for(width)
        self._draw_last_rows(rows)
        return rows


def _one_row(_text: str, _width: int) -> int:
    return 1


def markdown_text(draw: Draw, estimate: Estimate | None, **kwargs: int) -> LiveText:
    """The live text of a reply's answer (Markdown) as ReplyView shows it, drawn by `draw`
    (`kwargs`: LiveText's piece_chars and eager_rows)."""
    return LiveText(draw, split_markdown, markdown=True, estimate=estimate, **kwargs)
