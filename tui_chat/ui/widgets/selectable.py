"""Mouse selection of text in widgets that draw their own rows (MessageView, ReplyView).

Textual 8 finds what lies under the pointer from an `offset` (x, y) in the style of each
drawn segment (`Strip.apply_offsets`): y is the row, x the character in it (characters, not
cells: a CJK character is two cells and one character). The screen keeps a `Selection` per
widget (the rows and characters between where the drag began and ended, or all of a widget
that lies between the two), asks each widget for its text (`get_selection`), and joins them
(`Screen.get_selected_text`, what Ctrl+C copies). Our widgets' rows are Rich renders; the
text is those rows as drawn, each without the padding at its end (what a terminal's own copy
of the screen gives: a paragraph wrapped in the view is copied wrapped).

A selection snaps to grapheme clusters (what a reader sees as one character: a Devanagari
consonant with its vowel sign or virama, `क्ष`, an emoji ZWJ sequence, a flag): its start moves
back to the start of the cluster it falls in, its end on to that cluster's end, so what is
painted and what is copied are whole clusters. The clusters are the `wcwidth` package's
(Unicode's extended grapheme clusters, with the Indic conjunct rule; the package whose tables
give the cell widths, ui/cell_table.py), imported on the first selection, not at start-up.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.color import Color
from textual.geometry import Offset, Region
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style

if TYPE_CHECKING:
    from textual.widget import Widget

    _Base = Widget
else:
    _Base = object

Paint = Callable[[RichStyle | None], RichStyle]
"""A selected character's style from its own."""


def selection_paint(selection: Style, background: Color | None) -> Paint:
    """How the screen's selection style (`screen--selection`) paints a character: its
    background laid over the character's own (it is translucent: a Rich style cannot say
    so, hence the blending here), the character's colour kept unless the style gives one.
    `background` stands in for a character that has none of its own (the widget's)."""
    over, text = selection.background, selection.foreground
    under = background or Color(0, 0, 0)

    @functools.lru_cache(maxsize=256)
    def paint(own: RichStyle | None) -> RichStyle:
        base = Color.from_rich_color(own.bgcolor) if own and own.bgcolor else under
        painted = RichStyle(bgcolor=(base + over).rich_color if over else None,
                            color=(base + text).rich_color if text and text.a else None)
        return (own or RichStyle()) + painted

    return paint


@functools.lru_cache(maxsize=512)
def cluster_starts(text: str) -> tuple[int, ...]:
    """Where each grapheme cluster of `text` starts (character offsets), and its length."""
    from wcwidth import iter_graphemes

    starts, at = [], 0
    for cluster in iter_graphemes(text):
        starts.append(at)
        at += len(cluster)
    return (*starts, len(text))


def snap_start(text: str, x: int) -> int:
    """`x` moved back to the start of the cluster of `text` it falls inside."""
    if x <= 0 or x >= len(text) or text.isascii():
        return x
    starts = cluster_starts(text)
    return starts[bisect.bisect_right(starts, x) - 1]


def snap_end(text: str, x: int) -> int:
    """`x` (an end, exclusive) moved on to the end of the cluster of `text` it falls inside."""
    if x <= 0 or x >= len(text) or text.isascii():
        return x
    starts = cluster_starts(text)
    return starts[bisect.bisect_left(starts, x)]


def snapped(selection: Selection, lines: Sequence[str]) -> Selection:
    """`selection` over rows `lines`, its ends moved out to whole grapheme clusters."""
    start, end = selection
    if start is not None and 0 <= start.y < len(lines):
        start = Offset(snap_start(lines[start.y], start.x), start.y)
    if end is not None and 0 <= end.y < len(lines):
        end = Offset(snap_end(lines[end.y], end.x), end.y)
    return Selection(start, end)


def highlighted(strips: Sequence[Strip], selection: Selection, paint: Paint) -> list[Strip]:
    """`strips` with the characters of `selection` painted."""
    return [highlighted_row(strip, y, selection, paint) for y, strip in enumerate(strips)]


def highlighted_row(strip: Strip, y: int, selection: Selection, paint: Paint) -> Strip:
    """Row `y`, `strip`, with the characters of `selection` in it painted."""
    span = selection.get_span(y)
    if span is None:
        return strip
    start, end = span
    text = strip.text
    end = len(text) if end == -1 else snap_end(text, end)
    return _painted(strip, snap_start(text, start), end, paint)


def _painted(strip: Strip, start: int, end: int, paint: Paint) -> Strip:
    segments: list[Segment] = []
    at = 0
    for text, own, control in strip:
        if control or at + len(text) <= start or at >= end:
            segments.append(Segment(text, own, control))
            at += len(text)
            continue
        cut_from, cut_to = max(0, start - at), min(len(text), end - at)
        if cut_from:
            segments.append(Segment(text[:cut_from], own))
        segments.append(Segment(text[cut_from:cut_to], paint(own)))
        if cut_to < len(text):
            segments.append(Segment(text[cut_to:], own))
        at += len(text)
    return Strip(segments, strip.cell_length)


def selected_text(strips: Sequence[Strip], selection: Selection) -> tuple[str, str]:
    """The text of `strips` under `selection`, and what ends it (a line break), for
    `Widget.get_selection`. Only the rows it spans are read: a long reply's rows not drawn
    yet (see piece_rows) stay so."""
    first = selection.start.y if selection.start is not None else 0
    last = selection.end.y if selection.end is not None else len(strips) - 1
    lines = [strips[y].text if first <= y <= last else "" for y in range(len(strips))]
    chosen = snapped(selection, lines).extract("\n".join(lines))
    return "\n".join(line.rstrip() for line in chosen.split("\n")), "\n"


class PlacesWhenAsked(_Base):
    """A widget whose rows carry the offsets of their characters only when the compositor
    asks what lies under the pointer (it calls `render_line` for that row then), not on
    every row painted: placing each segment (`Strip.apply_offsets`, a meta style made per
    segment) was a third of the cost of each new row of a streaming reply, and nothing reads
    the offsets of a painted row.

    A plain mixin, put first among the bases (`class V(PlacesWhenAsked, Static)`), not a
    Widget: Textual takes default CSS along the first base that is a DOMNode only, and a
    Widget here hid Static's `height: auto` (a comparison's replies were one row high)."""

    _painting = False

    def render_lines(self, crop: Region) -> list[Strip]:
        self._painting = True
        try:
            return super().render_lines(crop)
        finally:
            self._painting = False

    def placed(self, line: Strip, y: int) -> Strip:
        """`line`, row `y`, as `render_line` returns it (see the class doc)."""
        return line if self._painting else line.apply_offsets(0, y)
