"""The status line while a reply has not started: the seconds waited, that Esc cancels, and
that a cold start can take minutes.

A Chutes model with no instance running holds its response back until one has started,
which takes minutes: with nothing moving, that looks like a hang. From the reply's start
until its first token, its end or its failure, a one-second timer on the screen writes the
seconds waited, counted by the workspace's clock (injected: tests move it themselves and call
`tick`, rather than wait for real seconds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.timer import Timer

if TYPE_CHECKING:
    from collections.abc import Callable

    from tui_chat.ui.conversation.view import Surface

TICK = 1.0
"""Seconds between two updates of the count."""


def waiting_state(seconds: float) -> str:
    """The status line's state after `seconds` of waiting (the most useful words first: a
    narrow status line cuts its end)."""
    return f"waiting {int(seconds)} s · Esc cancels · a cold start can take minutes"


class FirstTokenWait:
    """Counts the seconds until the first token on its view's status line."""

    def __init__(self, view: Surface, clock: Callable[[], float]) -> None:
        self.view = view
        self.clock = clock
        self._since = 0.0
        self._timer: Timer | None = None

    @property
    def running(self) -> bool:
        return self._timer is not None

    def start(self) -> None:
        self.stop()
        self._since = self.clock()
        self._timer = self.view.set_interval(TICK, self.tick, name="first-token-wait")
        self.tick()

    def stop(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.stop()

    def tick(self) -> None:
        if self._timer is not None:
            self.view.status.update_info(state=waiting_state(self.clock() - self._since))
