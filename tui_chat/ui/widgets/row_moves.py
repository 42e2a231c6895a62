"""Rows of a view moved by a piece drawn when read (see piece_rows), kept in place on screen.

A piece drawn taller or shorter than its estimate moves every row below it. When those rows
begin above the top of the scrolled list, the list scrolls by the same amount, so the rows
on screen stay where the eye is; below the top, nothing on screen above them moves.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from textual.widget import Widget

from tui_chat.ui import textual_compat


def keep_in_place(view: Widget, row: int, delta: int) -> None:
    """Rows of `view` from `row` down moved by `delta` (a piece drawn when read, taller or
    shorter than estimated: see piece_rows): when they begin above the top of the list
    scrolled, scroll by `delta`, so the rows on screen stay where they were."""
    parent = view.parent
    if not isinstance(parent, Widget) or not parent.allow_vertical_scroll:
        return
    if textual_compat.follows_end(parent):
        return  # it follows the end: kept so
    if view.virtual_region.y + view.styles.gutter.top + row < round(parent.scroll_y):
        parent.scroll_to(y=parent.scroll_y + delta, animate=False, immediate=True,
                         release_anchor=False)


class RowMoves:
    """The moves of a view's rows (PieceRows.on_resize), applied on the event loop: the view
    laid out again (`relayout`) and the list scrolled to keep what is on screen in place
    (`keep_in_place`). At once after a drawing ahead of a scroll (`apply`), else soon after
    the paint that drew a piece."""

    def __init__(self, view: Widget, relayout: Callable[[], object] | None = None) -> None:
        self._view = view
        self._relayout = relayout
        self._lock = threading.Lock()
        self._pending: list[tuple[int, int]] = []

    def add(self, row: int, delta: int) -> None:
        with self._lock:
            self._pending.append((row, delta))
            first = len(self._pending) == 1
        view = self._view
        if (first and view.is_attached
                and threading.get_ident() == textual_compat.app_thread_id(view.app)):
            view.call_later(self.apply)

    def apply(self) -> None:
        with self._lock:
            moves, self._pending = self._pending, []
        if not moves or not self._view.is_attached:
            return
        if self._relayout is not None:
            self._relayout()
        else:
            self._view.refresh(layout=True)
        for row, delta in moves:
            keep_in_place(self._view, row, delta)


class PaintedRows:
    """Which rows a view last painted, and how many times they had moved then
    (PieceRows.moves): Textual keeps a view's painted rows by position, so once the rows
    moved since (a piece drawn by a paint, a selection, a worker thread), the kept ones are
    stale and the view drops them before painting."""

    __slots__ = ("_moves", "_rows")

    def __init__(self) -> None:
        self._rows: object = None
        self._moves = 0

    def changed(self, rows: object, moves: int) -> bool:
        """Whether `rows` or their moves differ from the last call's (which this call is now)."""
        if rows is self._rows and moves == self._moves:
            return False
        self._rows, self._moves = rows, moves
        return True

    def forget(self) -> None:
        """Let go of the rows (the view left the screen)."""
        self._rows, self._moves = None, 0
