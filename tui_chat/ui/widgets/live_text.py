"""Text that streams in, kept as drawn lines: settled pieces drawn once, a tail redrawn.

Used by the live reply (`reply_view.ReplyView`) for its answer (Markdown) and its reasoning
(plain text). The text is split into settled pieces and a live tail: for Markdown, settled is
every block before the last blank line outside a code fence; for plain text, every line
before the last newline. Each settled piece is drawn once, with the same Rich Markdown as
finished messages; only the tail (one paragraph, or the last lines of an open fence) is drawn
again per append. `prepare` draws in a worker thread; `take` swaps the lines in on the event
loop. So an append costs the same at the end of a long reply as at its start.

A piece cut out of a long open fence (see `split_markdown`) is joined to the next without the
padding rows Rich puts around a code block, so the fence reads as one block.

Code blocks are numbered across pieces as in the whole text (`Numbering`, given to each
drawing): each settled piece's blocks are counted once, and a fence continued from the piece
before keeps its number and shows none.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from textual.strip import Strip

from tui_chat.core.text import GrowingText

FENCE_LINES = 40
"""An open code fence longer than this many lines is split: its lines so far settle."""

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


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
    fence: str | None = None
    opener_line = ""
    offset = settled = blank_end = 0
    fence_body_start = 0
    for line in text.splitlines(keepends=True):
        match = _FENCE.match(line)
        if fence is None:
            if not line.strip():
                if offset and line.endswith("\n"):
                    blank_end = offset + len(line)
            else:
                if blank_end and _starts_a_block(line):
                    settled = blank_end
                blank_end = 0
                if match:
                    fence, opener_line = match.group(1), line
                    fence_body_start = offset + len(line)
        elif (match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence)
              and not line[match.end():].strip()):
            fence = None
        offset += len(line)
    if fence is not None and fence_lines is not None:
        # Cut before the last complete line, so that the fence's continuation always holds a
        # line of code: an empty continuation (the closing fence came next) is drawn by Rich
        # as a code block of its own, one padding row more than the whole fence.
        last_line = text.rfind("\n", 0, text.rfind("\n")) + 1
        if last_line > fence_body_start and text.count("\n", fence_body_start) > fence_lines:
            return Split(text[:last_line] + fence + "\n", opener_line + text[last_line:], True)
    return Split(text[:settled], text[settled:], False) if settled else None


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


def _is_blank(strip: Strip) -> bool:
    return not strip.text.strip()


def join(head: list[Strip], head_open: bool, tail: list[Strip], gap: Strip | None
         ) -> list[Strip]:
    """`head` then `tail`, in a new list (see `extend`)."""
    joined = list(head)
    extend(joined, head_open, tail, gap)
    return joined


def extend(head: list[Strip], head_open: bool, tail: list[Strip], gap: Strip | None) -> None:
    """Add `tail` to `head`, with `gap` between them (Rich's blank row between two Markdown
    blocks; None for plain lines), or with neither the gap nor the padding rows of a fence
    that `head` leaves open and `tail` continues. Rich draws lists, quotes and tables with an
    empty row above them (and a rule with one below): that row is the gap then."""
    if not tail:
        return
    if head and head_open and _is_blank(head[-1]) and _is_blank(tail[0]):
        head.pop()
        head.extend(tail[1:])
        return
    if head and gap is not None and head[-1].cell_length and tail[0].cell_length:
        head.append(gap)
    head.extend(tail)


class Numbering(NamedTuple):
    """How a piece's code blocks are numbered: from `first`; with `continues`, the first one
    is the block the piece before left open (it keeps that number, and shows none)."""

    first: int = 1
    continues: bool = False


Draw = Callable[[str, int, Numbering], list[Strip]]
"""Draws a piece of text for a width, in lines; must be safe to call in a worker thread."""


class Drawn(NamedTuple):
    """What `LiveText.prepare` drew for one append."""

    appended: str
    width: int
    settled: Split | None
    settled_lines: list[Strip]
    tail: str
    tail_lines: list[Strip]
    numbering: Numbering
    """The settled piece's."""
    after: Numbering
    """The next piece's (and the tail's)."""


class LiveText:
    """Streamed text as lines (see the module doc). Not a widget: `ReplyView` shows it."""

    def __init__(self, draw: Draw, split: Callable[[str], Split | None], *,
                 gap: bool, count_blocks: Callable[[str], int] | None = None) -> None:
        """`count_blocks` counts a piece's code blocks (None: the text has none)."""
        self._draw = draw
        self._split = split
        self._gap = gap
        self._count_blocks = count_blocks
        self._numbering = Numbering()  # the next settled piece's, and the tail's
        # settled texts, fence_open and numbering, to redraw:
        self._pieces: list[tuple[str, bool, Numbering]] = []
        self._settled: list[Strip] = []
        self._settled_open = False
        self._tail_text = ""
        self._tail: list[Strip] = []
        self._appended = GrowingText()
        self.width = 0
        self.lines: list[Strip] = []

    @property
    def source(self) -> str:
        """The text drawn so far, as it was appended."""
        return self._appended.text

    @property
    def tail_text(self) -> str:
        """The part drawn again on every append."""
        return self._tail_text

    def prepare(self, text: str, width: int) -> Drawn:
        """Draw what appending `text` settles, and the new tail, for `width` cells (any
        thread; one append at a time)."""
        live = self._tail_text + text
        split = self._split(live)
        tail = split.rest if split else live
        numbering = self._numbering
        piece = self._draw(split.settled, width, numbering) if split else []
        after = self._numbering_after(split, numbering) if split else numbering
        return Drawn(text, width, split, piece, tail, self._draw(tail, width, after),
                     numbering, after)

    def _numbering_after(self, split: Split, numbering: Numbering) -> Numbering:
        blocks = self._count_blocks(split.settled) if self._count_blocks else 0
        if split.fence_open:  # its last block goes on in the next piece
            return Numbering(numbering.first + blocks - 1, True)
        return Numbering(numbering.first + blocks, False)

    def take(self, drawn: Drawn) -> None:
        """Swap in what `prepare` drew (drawn again here if the width changed meanwhile)."""
        if drawn.width != self.width and self.width:  # the tail is still the one it began with
            drawn = self.prepare(drawn.appended, self.width)
        if drawn.settled is not None:
            self._pieces.append((drawn.settled.settled, drawn.settled.fence_open,
                                 drawn.numbering))
            extend(self._settled, self._settled_open, drawn.settled_lines, self._gap_row())
            self._settled_open = drawn.settled.fence_open
        self._tail_text, self._tail = drawn.tail, drawn.tail_lines
        self._numbering = drawn.after
        self._appended.append(drawn.appended)
        self.width = drawn.width
        self._join()

    def redraw(self, width: int) -> None:
        """Every piece again for a new width (a resize, or the scrollbar appearing)."""
        self._settled, self._settled_open = self._draw_settled(width)
        self._tail = self._draw(self._tail_text, width, self._numbering)
        self.width = width
        self._join()

    def release(self) -> None:
        """Let go of the lines drawn (the text stays: `redraw` or `lines_for` draws them
        again)."""
        self._settled, self._tail, self.lines, self.width = [], [], [], 0

    def lines_for(self, width: int) -> list[Strip]:
        """The lines for `width`, without changing what is shown (any thread, once no more
        text is appended)."""
        if width == self.width:
            return self.lines
        settled, settled_open = self._draw_settled(width)
        return join(settled, settled_open,
                    self._draw(self._tail_text, width, self._numbering), self._gap_row())

    def _draw_settled(self, width: int) -> tuple[list[Strip], bool]:
        lines: list[Strip] = []
        is_open = False
        for text, fence_open, numbering in list(self._pieces):
            extend(lines, is_open, self._draw(text, width, numbering), self._gap_row())
            is_open = fence_open
        return lines, is_open

    def _gap_row(self) -> Strip | None:
        """Rich's blank row between two blocks: an empty line (padded when shown)."""
        return Strip([], 0) if self._gap else None

    def _join(self) -> None:
        self.lines = join(self._settled, self._settled_open, self._tail,
                          self._gap_row())
