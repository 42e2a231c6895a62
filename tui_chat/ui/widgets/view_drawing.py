"""Message views drawn before they are mounted, off the event loop.

A view mounted undrawn is drawn by the layout that first measures it, on the event loop: a
reply with highlighted code takes milliseconds there, and the frame (and every key press)
waits. `draw_views` draws the views whose lines are not already kept (LINES) in one worker
thread, for the width they will be shown at; the layout then finds them drawn. Views drawn
before (the usual case when switching back and forth between branches) are taken from LINES
at once, without the hop to a thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from rich.console import Console, ConsoleOptions
from textual.app import App

from tui_chat.ui.widgets.message_view import LINES, MessageView


def drawn_before(view: MessageView, width: int) -> bool:
    """Whether LINES keeps `view`'s lines for `width` (taken from there at once)."""
    cached = view.cached
    return cached.key is not None and LINES.get(cached.conversation_id, cached.key,
                                                width) is not None


def _draw(views: Sequence[MessageView], console: Console, options: ConsoleOptions) -> None:
    for view in views:
        view.cached.prepare(console, options)


async def draw_views(app: App[object], views: Sequence[MessageView], width: int) -> None:
    """Draw `views` (not mounted yet) for `width` cells; those not kept already, in a
    worker thread."""
    if width <= 0 or not views:
        return
    options = app.console_options.update_width(width).update(highlight=False)
    kept = [view for view in views if drawn_before(view, width)]
    _draw(kept, app.console, options)
    undrawn = [view for view in views if view not in kept]
    if undrawn:
        await asyncio.to_thread(_draw, undrawn, app.console, options)
