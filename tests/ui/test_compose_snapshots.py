"""Snapshots of what composing and moving show: the wait for a first token, a prompt longer
than its box, and a mouse selection across messages (numbered code blocks are in the
conversation snapshots). Fixed content, fixed clock, no cursor blink."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, wait_until
from tests.ui.demo import seed_demo
from tests.ui.test_first_token_wait import ManualClock
from tui_chat.core.store import Store
from tui_chat.ui.widgets.message_view import MessageView

SIZE = (100, 34)


@pytest.fixture
def held(chutes_server: FakeProvider) -> Iterator[None]:
    """The next reply sends its headers, then nothing until the test ends."""
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["late"]), gate=gate, gate_after=0))
    yield
    gate.set()


def test_waiting_for_the_first_token_snapshot(snap_compare: Any, make_app: AppFactory,
                                              store: Store, held: None) -> None:
    chat = seed_demo(store)
    clock = ManualClock()

    async def waiting(pilot: Pilot[Any]) -> None:
        screen = conversation(pilot.app)
        screen.prompt.cursor_blink = False
        screen.prompt.load_text("Is the model awake?")
        screen.prompt.submit()
        await wait_until(pilot, lambda: screen.presenter.wait.running)
        clock.now += 42.5
        screen.presenter.wait.tick()
        await pilot.pause()

    app = make_app(conversation=chat.id, provider="chutes", clock=clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=waiting)


def test_a_prompt_longer_than_its_box_snapshot(snap_compare: Any, make_app: AppFactory,
                                               store: Store) -> None:
    chat = seed_demo(store)
    long_prompt = "\n".join(
        [f"Line {i}: please check this paragraph of the report." for i in range(1, 9)]
        + ["भारत की राजधानी नई दिल्ली है, और सबसे बड़ा शहर मुंबई।"] * 4)

    async def typed(pilot: Pilot[Any]) -> None:
        screen = conversation(pilot.app)
        screen.prompt.cursor_blink = False
        screen.prompt.insert(long_prompt)
        await wait_until(pilot, lambda: bool(screen.prompt.border_subtitle))
        await pilot.pause()

    assert snap_compare(make_app(conversation=chat.id), terminal_size=SIZE, run_before=typed)


def test_a_mouse_selection_across_messages_snapshot(snap_compare: Any, make_app: AppFactory,
                                                    store: Store) -> None:
    chat = seed_demo(store)

    async def selected(pilot: Pilot[Any]) -> None:
        screen = conversation(pilot.app)
        screen.prompt.cursor_blink = False
        await pilot.pause()  # laid out where the pointer will be: no layout in the queue
        views = screen.query(MessageView)
        await pilot.mouse_down(views[-2], offset=(8, 1))
        await pilot.hover(views[-1], offset=(20, 2))
        await pilot.mouse_up(views[-1], offset=(20, 2))
        await wait_until(pilot, lambda: bool(pilot.app.screen.get_selected_text()))
        await pilot.pause()

    assert snap_compare(make_app(conversation=chat.id), terminal_size=SIZE,
                        run_before=selected)
