"""Snapshots of the conversation screen: fixed content, fixed clock, no cursor blink."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, live_reply, wait_until
from tests.ui.demo import (
    COMPARE_CHUTES,
    COMPARE_PROMPT,
    COMPARE_SUTRA,
    STREAM_PIECES,
    seed_branches,
    seed_demo,
)
from tui_chat.core.store import Store

SIZE = (100, 34)


async def steady(pilot: Pilot[Any]) -> None:
    """No blinking cursor; the personas read (the empty view offers them); everything
    streamed so far is drawn."""
    screen = conversation(pilot.app)
    screen.prompt.cursor_blink = False
    await wait_until(pilot, lambda: bool(screen.setup.personas))
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

    app = make_app(conversation=chat.id, provider="chutes")
    assert snap_compare(app, terminal_size=SIZE, run_before=mid_stream)


def test_first_run_without_keys_snapshot(snap_compare: Any, make_app: AppFactory) -> None:
    assert snap_compare(make_app(key=False), terminal_size=SIZE, run_before=steady)


def test_message_header_with_siblings_snapshot(snap_compare: Any, make_app: AppFactory,
                                               store: Store) -> None:
    chat = seed_demo(store)
    seed_branches(store, chat)

    async def selected(pilot: Pilot[Any]) -> None:
        screen = conversation(pilot.app)
        screen.prompt.cursor_blink = False
        await pilot.press("ctrl+o")  # the last reply, ‹ 2/2 ›: the footer shows ← → Branch
        await pilot.pause()

    assert snap_compare(make_app(conversation=chat.id), terminal_size=SIZE,
                        run_before=selected)


async def settled(pilot: Pilot[Any]) -> None:
    """Until two frames in a row are the same: the columns' finished views are laid out and
    the list has followed them (a shot between the two drew the page at another height).
    Each shot after the screen has painted what was asked of it: a shot reads the last
    layout, and under load two pauses could pass before a layout asked for ran, giving two
    same shots of a page the list had already left (its scrollbar still of the taller one)."""
    previous = None
    for _ in range(50):  # a bound for a broken build, not a time
        await pilot.pause()
        await pilot.app.screen.wait_for_refresh()
        shot = pilot.app.export_screenshot()
        if shot == previous:
            return
        previous = shot
    raise AssertionError("the screen never settled")


def comparing(chutes: FakeProvider, sutra: FakeProvider) -> Callable[[Pilot[Any]], Any]:
    """Compare a Chutes and a SUTRA model until both have finished."""
    chutes.script(Reply(stream_of(COMPARE_CHUTES)))
    sutra.script(Reply(stream_of(COMPARE_SUTRA, flavour="sutra", model="sutra-v2")))

    async def run(pilot: Pilot[Any]) -> None:
        from tui_chat.ui.widgets.compare_view import CompareView
        from tui_chat.ui.widgets.reply_view import ReplyView

        screen = conversation(pilot.app)
        screen.prompt.cursor_blink = False
        screen.workspace.choose_several([("chutes", "deepseek-ai/DeepSeek-V3-0324"),
                                         ("sutra", "sutra-v2")])
        screen.prompt.load_text(COMPARE_PROMPT)
        screen.prompt.submit()
        await wait_until(pilot, lambda: bool(screen.query(CompareView)))
        view = screen.query_one(CompareView)
        # Ended, and each column's live reply swapped for its finished view (the live one is
        # taller, rounded up to its row block: a shot taken between the two drew its rows).
        await wait_until(pilot, lambda: not screen.streaming and not view.query(ReplyView)
                         and all(column.message is not None for column in view.columns))
        await settled(pilot)

    return run


@pytest.mark.parametrize("width", [120, 80])
def test_compare_snapshot(snap_compare: Any, make_app: AppFactory, store: Store,
                          chutes_server: FakeProvider, sutra_server: FakeProvider,
                          monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    monkeypatch.setenv("SUTRA_BASE_URL", sutra_server.url)
    monkeypatch.setenv("SUTRA_API_KEY", "sutra-test-key-0001")
    # A clock that stands still: the two streams share it, in an order that varies.
    app = make_app(provider="chutes", clock=lambda: 1000.0)
    assert snap_compare(app, terminal_size=(width, 40),
                        run_before=comparing(chutes_server, sutra_server))
