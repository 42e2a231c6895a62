"""Mouse selection of text in widgets that draw their own rows (MessageView, ReplyView).

Textual 8 finds what lies under the pointer from an `offset` (x, y) in the style of each
drawn segment (`Strip.apply_offsets`): y is the row, x the character in it (characters, not
cells: a CJK character is two cells and one character). The screen keeps a `Selection` per
widget (the rows and characters between where the drag began and ended, or all of a widget
that lies between the two), asks each widget for its text (`get_selection`), and joins them
(`Screen.get_selected_text`, what Ctrl+C copies). Our widgets' rows are Rich renders; the
text is those rows as drawn, each without the padding at its end (what a terminal's own copy
of the screen gives: a paragraph wrapped in the view is copied wrapped).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.color import Color
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style

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


def highlighted(strips: Sequence[Strip], selection: Selection, paint: Paint) -> list[Strip]:
    """`strips` with the characters of `selection` painted."""
    return [highlighted_row(strip, y, selection, paint) for y, strip in enumerate(strips)]


def highlighted_row(strip: Strip, y: int, selection: Selection, paint: Paint) -> Strip:
    """Row `y`, `strip`, with the characters of `selection` in it painted."""
    span = selection.get_span(y)
    if span is None:
        return strip
    start, end = span
    return _painted(strip, start, len(strip.text) if end == -1 else end, paint)


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
    `Widget.get_selection`."""
    text = "\n".join(strip.text for strip in strips)
    chosen = selection.extract(text)
    return "\n".join(line.rstrip() for line in chosen.split("\n")), "\n"
