"""Snapshots of a reply of every kind of block at 200×60 and 80×24: prose at the reading width,
a table as wide as it needs, a code block, one blank row between blocks; a short conversation
from the top; a reply streaming with no bar below its text."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, live_reply, wait_until
from tests.ui.reading_demo import ANSWER, seed_reading
from tui_chat.core.store import Store
from tui_chat.ui.widgets.message_view import MessageView


async def steady(pilot: Pilot[Any]) -> None:
    screen = conversation(pilot.app)
    screen.prompt.cursor_blink = False
    await wait_until(pilot, lambda: len(screen.query(MessageView)) == 2)
    await pilot.pause()


@pytest.mark.parametrize("size", [(200, 60), (80, 24)], ids=["200x60", "80x24"])
def test_a_reply_of_every_block_snapshot(snap_compare: Any, make_app: AppFactory,
                                         store: Store, size: tuple[int, int]) -> None:
    chat = seed_reading(store)
    assert snap_compare(make_app(conversation=chat.id), terminal_size=size, run_before=steady)


def test_a_reply_streaming_at_200_columns_snapshot(snap_compare: Any, make_app: AppFactory,
                                                   chutes_server: FakeProvider) -> None:
    pieces = [ANSWER[i:i + 40] for i in range(0, len(ANSWER), 40)]
    gate = threading.Event()  # never set: the reply stays held after its text (the app's
    # exit closes the connection)
    chutes_server.script(Reply(stream_of(pieces), gate=gate, gate_after=1 + len(pieces)))

    async def streaming(pilot: Pilot[Any]) -> None:
        screen = conversation(pilot.app)
        screen.prompt.cursor_blink = False
        screen.prompt.load_text("How does tui-chat lay out a reply on a wide terminal?")
        screen.prompt.submit()
        await live_reply(pilot, screen, lambda text: text == ANSWER)

    assert snap_compare(make_app(), terminal_size=(200, 60), run_before=streaming)
