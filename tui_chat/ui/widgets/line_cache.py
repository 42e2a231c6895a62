"""Drawn lines kept for later, bounded by the memory they hold rather than by a count.

A drawn row is a Textual `Strip`, and most of its memory is not its text: each Strip
carries seven small caches of its own, and each segment is a tuple beside its string, so
a row costs several times the characters it shows. A long reply is thousands of rows. A
cache bounded by entries alone (it was 300 drawn messages) therefore held whole long
replies from conversations long left: a session left open all day grew by the size of
every long reply it showed (benchmarks/bench_ui_memory.py).

- `strips_bytes`: an estimate of the memory a list of rows holds, measured with
  tracemalloc and pinned by tests/ui/test_line_cache.py.
- `LineCache`: drawn messages by (conversation, key, width), least recently used first
  out, bounded by that estimate; it forgets the conversations no longer on screen
  (`keep_only`), since only a page of the conversation shown can be mounted again.
  Thread-safe: messages are drawn in worker threads.
- `styled`: a row with a style applied, without keeping the copy inside the row it came
  from (`Strip.apply_style` does, for as long as the original lives: in a cache, a twin
  of every row).
- `forget_painted`: what a widget leaving the screen must let go of by hand, because
  Textual keeps it (see there).
- `unkey_inner_outer`: Textual's cache of two background styles no longer keyed by the
  widget's painted rows (installed when this module is imported; see there).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Hashable, Iterable, Sequence

from cachetools import LRUCache
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.strip import Strip
from textual.style import Style as TextualStyle
from textual.widget import Widget

from tui_chat.ui import textual_compat

ROW_BYTES = 1200
"""A Strip, its list of segments and its seven small caches."""
SEGMENT_BYTES = 140
"""A segment: its tuple, its place in the list, and its string's header."""


def strips_bytes(strips: Iterable[Strip]) -> int:
    """About how much memory `strips` hold (their styles are shared, and not counted);
    rows drawn when read (piece_rows) tell it themselves, without being drawn."""
    held = getattr(strips, "held_bytes", None)
    if held is not None:
        return int(held())
    return sum(ROW_BYTES + SEGMENT_BYTES * len(strip) + strip.cell_length for strip in strips)


def styled(strip: Strip, style: Style) -> Strip:
    """`strip` with `style` under its own styles, as `Strip.apply_style` draws it, but not
    remembered by `strip`."""
    return Strip(Segment.apply_style(strip, style), strip.cell_length)


def forget_painted(widget: Widget) -> None:
    """Drop the rows `widget` painted on screen, for a widget being removed.

    Textual 8.2.8 keeps the last 1,024 of these caches of painted rows alive after their
    widgets are gone (`StylesCache.get_inner_outer` is an `lru_cache` on a method, so its
    `self` is a key: Textualize/textual#6665). Each holds the rows of its widget last on
    screen, border and padding included. Clearing it is harmless if Textual fixes that.
    """
    textual_compat.clear_styles_cache(widget)


@functools.lru_cache(1024)
def _inner_outer(base_background: Color, background: Color
                 ) -> tuple[TextualStyle, TextualStyle]:
    """StylesCache.get_inner_outer's styles, cached by the colours alone."""
    return (TextualStyle(background=base_background + background),
            TextualStyle(background=base_background))


def unkey_inner_outer() -> None:
    """Make `StylesCache.get_inner_outer` a cache of the two colours alone.

    Textual 8.2.8 caches it with `lru_cache(1024)` on the method, so each key holds the
    `StylesCache` that asked (Textualize/textual#6665): every widget ever painted (each
    message view, each live reply, the footer's Esc Stop that every reply mounts and
    removes) kept its painted rows and caches after it was gone, until 1,024 newer ones
    pushed it out: about four a reply, so the memory of a long day grew for its first 250
    replies or so (benchmarks/bench_ui_soak.py). The styles depend on the colours only.
    Harmless if Textual fixes it; tests/ui/test_line_cache.py fails if the method moves.
    """
    textual_compat.replace_get_inner_outer(_inner_outer)


unkey_inner_outer()


CacheKey = tuple[str | None, Hashable, int]


class LineCache:
    """Drawn messages by (conversation, key, width), within `budget` bytes (strips_bytes);
    see the module doc. A message larger than the whole budget is not kept."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._lock = threading.Lock()
        self._lines: LRUCache[CacheKey, Sequence[Strip]] = LRUCache(budget,
                                                                    getsizeof=strips_bytes)

    def get(self, conversation_id: str | None, key: Hashable, width: int
            ) -> Sequence[Strip] | None:
        with self._lock:
            return self._lines.get((conversation_id, key, width))

    def put(self, conversation_id: str | None, key: Hashable, width: int,
            strips: Sequence[Strip]) -> None:
        with self._lock:
            try:
                self._lines[(conversation_id, key, width)] = strips
            except ValueError:  # larger than the budget: its view keeps it while shown
                self._lines.pop((conversation_id, key, width), None)

    def keep_only(self, conversation_id: str | None) -> None:
        """Forget every message that is not of `conversation_id` (None: forget all)."""
        with self._lock:
            for key in [key for key in self._lines if key[0] != conversation_id]:
                del self._lines[key]

    def clear(self) -> None:
        with self._lock:
            self._lines.clear()

    @property
    def size(self) -> int:
        """Bytes held, by the estimate."""
        with self._lock:
            return int(self._lines.currsize)

    def __len__(self) -> int:
        with self._lock:
            return len(self._lines)
