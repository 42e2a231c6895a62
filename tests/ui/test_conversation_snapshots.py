"""Snapshots of the conversation screen: fixed content, fixed clock, no cursor blink."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, live_reply
from tests.ui.demo import STREAM_PIECES, seed_demo
from tui_chat.core.store import Store

SIZE = (100, 34)


async def steady(pilot: Pilot[Any]) -> None:
    """No blinking cursor; everything streamed so far is drawn."""
    screen = conversation(pilot.app)
    screen.prompt.cursor_blink = False
    await pilot.pause()


def test_conversation_with_history_snapshot(snap_compare: Any, make_app: AppFactory,
                                            store: Store) -> None:
    chat = seed_demo(store)
    assert snap_compare(make_app(conversation=chat.id), terminal_size=SIZE, run_before=steady)


def test_conversation_mid_stream_snapshot(snap_compare: Any, make_app: AppFactory,
                                          store: Store, chutes_server: FakeProvider) -> None:
    chat = seed_demo(store)
    pieces = ["<think>", "The user wants an example.", "</think>", *STREAM_PIECES]
    chutes_server.script(Reply(stream_of(pieces), stall_after=len(pieces) + 1,
                               stall_seconds=600))

    async def mid_stream(pilot: Pilot[Any]) -> None:
        screen = conversation(pilot.app)
        screen.prompt.cursor_blink = False
        screen.prompt.load_text("Show me an async fetch in Python")
        screen.prompt.submit()
        await live_reply(pilot, screen, lambda text: text.endswith("asyncio.run("))
        await pilot.pause(0.1)

    app = make_app(conversation=chat.id, provider="chutes")
    assert snap_compare(app, terminal_size=SIZE, run_before=mid_stream)


def test_first_run_without_keys_snapshot(snap_compare: Any, make_app: AppFactory) -> None:
    assert snap_compare(make_app(key=False), terminal_size=SIZE, run_before=steady)
