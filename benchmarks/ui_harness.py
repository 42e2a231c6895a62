"""What the UI benchmarks share: the app on a tmp store and the fake provider, headless at a
fixed size, and a frame clock.

"To the frame" means: the first frame painted (Textual's compositor has laid out the screen
and rendered every changed line, `App.post_display_hook`) at which the condition holds. The
hook runs right after the frame is rendered, in the same synchronous call, so the state seen
there is the state that was drawn. Headless, the frame is not turned into escape sequences
and written to a terminal: that last step (a few ms for a full 120×40 screen) is not counted.
"""

from __future__ import annotations

# isort: off
import tui_chat.ui  # noqa: F401  (before Textual: it sets the app's frame rate)
# isort: on
import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual import events
from textual.pilot import Pilot

from benchmarks.common import timer
from tui_chat.core.config import Settings
from tui_chat.core.store import Store
from tui_chat.ui.app import TuiChatApp
from tui_chat.ui.screens.conversation import ConversationScreen
from tui_chat.ui.services import AppServices
from tui_chat.ui.widgets.message_view import MessageView

SIZE = (120, 40)


class FrameClock:
    """Futures that resolve with the time of the first frame painted while a condition holds."""

    def __init__(self, app: TuiChatApp) -> None:
        self.frames = 0
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[float]]] = []
        app.post_display_hook = self._painted  # type: ignore[method-assign]

    def _painted(self) -> None:
        now = timer()
        self.frames += 1
        for waiter in list(self._waiters):
            predicate, future = waiter
            if future.done():
                self._waiters.remove(waiter)
            elif predicate():
                future.set_result(now)
                self._waiters.remove(waiter)

    def when(self, predicate: Callable[[], bool]) -> asyncio.Future[float]:
        """Register before acting, await after: the frame may come before the action returns."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, future))
        return future


def services(url: str, store: Store, folder: Path, model: str | None = None) -> AppServices:
    """`model`: the model of new conversations, as `-m` on the command line gives it."""
    return AppServices.create(Settings(), store, config_path=folder / "config.toml",
                              env={"CHUTES_BASE_URL": url, "CHUTES_API_KEY": "bench-key"},
                              model=model)


@asynccontextmanager
async def running_app(url: str, folder: Path, *, model: str = "bench/1",
                      store_path: Path | None = None
                      ) -> AsyncIterator[tuple[TuiChatApp, Pilot[Any], ConversationScreen]]:
    """The app, started and settled (see below), with its conversation screen."""
    with Store.open(store_path or folder / "store.sqlite3") as store:
        # The model goes to the workspace: the app's own -m applies to a conversation opened
        # at start only (given there alone, every benchmark streamed the default model).
        app = TuiChatApp(services(url, store, folder, model))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            # As a user would find it: up and idle, its warm-up thread done (it runs while
            # the first prompt is typed, which takes longer than the warm-up).
            await app.workers.wait_for_complete()
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ConversationScreen)
            yield app, pilot, screen


def last_view(screen: ConversationScreen) -> MessageView | None:
    children = screen.message_list.children
    view = children[-1] if children else None
    return view if isinstance(view, MessageView) else None


def reply_shown(screen: ConversationScreen, expected: str) -> Callable[[], bool]:
    """The finished reply is the last message view, with the whole text (the live view gone)."""
    def shown() -> bool:
        view = last_view(screen)
        return (screen.message_list.reply is None and view is not None and view.is_mounted
                and view.message.content == expected)
    return shown


def send_key(app: TuiChatApp, key: str) -> None:
    """A key press as the terminal driver delivers it (Pilot.press also waits for idle)."""
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    assert app._driver is not None
    app._driver.send_message(event)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]
