"""Fixtures for Pilot tests: an app factory over a tmp store and the loopback fake provider."""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_textual_snapshot import node_to_report_path  # type: ignore[import-untyped]
from textual.app import App
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

from tests.fakeprovider import FakeProvider
from tests.ui.snapshot_text import row_diff
from tui_chat.core.config import Settings
from tui_chat.core.store import Store
from tui_chat.ui.app import TuiChatApp
from tui_chat.ui.conversation import first_token_wait
from tui_chat.ui.screens.conversation import ConversationScreen
from tui_chat.ui.services import AppServices
from tui_chat.ui.widgets.reply_view import ReplyView

AppFactory = Callable[..., TuiChatApp]
TEST_KEY = "test-key-123456789"


@pytest.fixture
def snap_compare(snap_compare: Callable[..., bool], request: pytest.FixtureRequest
                 ) -> Callable[..., bool]:
    """pytest-textual-snapshot's `snap_compare`; a shot that differs fails with the rows it
    saw beside the rows expected (the HTML report stays on the machine that ran it)."""

    def compare(*args: Any, **kwargs: Any) -> bool:
        if snap_compare(*args, **kwargs):
            return True
        saved = pickle.loads(node_to_report_path(request.node).read_bytes())
        expected, actual = saved[1], saved[2]
        diff = row_diff(expected, actual) or "(the same text: a colour or a style differs)"
        raise AssertionError(f"the screenshot differs from the snapshot:\n{diff}")

    return compare


class FixedClock:
    """A clock that only moves when a test says so (status line figures are stable)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 0.25
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "store.sqlite3") as opened:
        yield opened


@pytest.fixture
def make_app(store: Store, tmp_path: Path, chutes_server: FakeProvider,
             monkeypatch: pytest.MonkeyPatch) -> AppFactory:
    """`make_app(key=True, settings=None, **app_kwargs)`: a TuiChatApp on the fake Chutes
    (`key`: True for the usual test key, False for none, or the key itself).

    The base URL and key go through the environment, as for a user, so every part of the
    app (model picker included) sees the same provider."""
    monkeypatch.setenv("CHUTES_BASE_URL", chutes_server.url)
    # The first-token wait's one-second timer reads the app's clock, and FixedClock moves at
    # each reading: on a loaded machine, where a first token can take more than a real
    # second, it ticked and every figure after it moved by 0.25 s (a snapshot showed "first
    # token 1.75 s"). Tests tick it themselves (`wait.tick()`), as test_first_token_wait does.
    monkeypatch.setattr(first_token_wait, "TICK", 24 * 3600.0)

    def factory(*, key: bool | str = True, settings: Settings | None = None,
                clock: Callable[[], float] | None = None, **kwargs: Any) -> TuiChatApp:
        if key:
            monkeypatch.setenv("CHUTES_API_KEY", key if isinstance(key, str) else TEST_KEY)
        else:
            monkeypatch.delenv("CHUTES_API_KEY", raising=False)
        services = AppServices.create(settings or Settings(), store,
                                      config_path=tmp_path / "config.toml",
                                      provider=kwargs.get("provider"), model=kwargs.get("model"),
                                      clock=clock or FixedClock())
        return TuiChatApp(services, **kwargs)

    return factory


async def wait_until(pilot: Pilot[Any], predicate: Callable[[], bool],
                     seconds: float = 60.0) -> None:
    """Pause the pilot until `predicate()` holds. `seconds` only bounds a broken build: it is
    not a timing (CI is a loaded 2-core machine, where a long reply takes many times longer)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.01)


async def settle(pilot: Pilot[Any]) -> None:
    """Until every message in flight has been handled: what the last input caused (a key's
    Submitted bubbling up to the screen, whose handler starts the exchange) has happened.

    A state, not a time. Each round puts a marker (`call_later`) behind the messages queued on
    the app and on every widget of every screen, and waits until all are reached; a message
    that bubbles moves up one widget a round (it is posted to the parent's queue, behind the
    parent's marker), so as many rounds as the deepest widget has ancestors, and one more for
    the handler it ends at, see it through. (Pilot's own `_wait_for_screen` is one round.)"""
    app = pilot.app
    nodes = [app, *(node for screen in app.screen_stack
                    for node in screen.walk_children(with_self=True))]
    for _round in range(max(len(node.ancestors_with_self) for node in nodes) + 1):
        reached = [asyncio.Event() for _node in nodes]
        waits = [event.wait() for node, event in zip(nodes, reached, strict=True)
                 if node.call_later(event.set)]
        async with asyncio.timeout(60.0):  # bounds a broken build only; it sizes nothing
            await asyncio.gather(*waits)


async def wait_idle(pilot: Pilot[Any]) -> None:
    """Until the conversation screen has no reply streaming: what the last input started (a
    reply, a regenerate, a stop) has ended."""
    await settle(pilot)
    await wait_until(pilot, lambda: not conversation(pilot.app).streaming)
    await settle(pilot)


async def live_reply(pilot: Pilot[Any], screen: ConversationScreen,
                     received: Callable[[str], bool]) -> ReplyView:
    """The reply streaming on `screen`, once its text so far satisfies `received` and is all
    drawn."""
    await wait_until(pilot, lambda: bool(screen.query(ReplyView))
                     and received(screen.query_one(ReplyView).content))
    reply = screen.query_one(ReplyView)
    await wait_until(pilot, lambda: reply.caught_up)
    return reply


def conversation(app: App[Any]) -> ConversationScreen:
    for screen in app.screen_stack:
        if isinstance(screen, ConversationScreen):
            return screen
    raise AssertionError("no conversation screen")


def record_notifications(app: App[Any]) -> list[tuple[str, str]]:
    """Capture (severity, message) of every notification the app shows."""
    notes: list[tuple[str, str]] = []
    original = app.notify

    def notify(message: str, **kwargs: Any) -> None:
        notes.append((str(kwargs.get("severity", "information")), message))
        original(message, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return notes


def footer_label(screen: Screen[Any], key: str) -> str | None:
    """What the footer says `key` does now (None: not offered)."""
    active = screen.active_bindings.get(key)
    return active.binding.description if active is not None and active.enabled else None


def rendered_text(widget: Widget) -> str:
    """What `widget` (and the widgets inside it) shows, as plain text, one line per row."""
    leaves = [w for w in [widget, *widget.query("*")] if not w.children]
    return "\n".join(_own_text(leaf) for leaf in leaves)


def _own_text(widget: Widget) -> str:
    width, height = widget.region.size
    lines = widget.render_lines(Region(0, 0, width, height))
    return "\n".join("".join(segment.text for segment in line).rstrip() for line in lines)
