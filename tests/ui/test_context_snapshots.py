"""Snapshots of context and cost: the status line's figures, a reply cut at max_tokens, and
the offer when a message would not fit the window. Fixed clock, usage as the fake counts it."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from tests.fakeprovider import PRICED_MODELS, FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, wait_idle, wait_until
from tui_chat.ui.screens.context_offer import ContextOverflowScreen

SIZE = (110, 30)
LONG = "many words in this message " * 20


def priced(server: FakeProvider) -> None:
    server.models_list = PRICED_MODELS
    server.count_usage = True


async def send(pilot: Pilot[Any], text: str) -> None:
    screen = conversation(pilot.app)
    screen.prompt.cursor_blink = False
    screen.prompt.load_text(text)
    await pilot.press("enter")
    await wait_idle(pilot)


def test_status_line_with_context_and_cost_snapshot(snap_compare: Any, make_app: AppFactory,
                                                     chutes_server: FakeProvider) -> None:
    priced(chutes_server)
    app = make_app(model="fake/large")

    async def two_replies(pilot: Pilot[Any]) -> None:
        await app.workspace.catalog.refresh(app.workspace.provider)
        await send(pilot, "What is a context window?")
        await send(pilot, "And what does a token cost?")

    assert snap_compare(app, terminal_size=SIZE, run_before=two_replies)


def test_reply_cut_at_max_tokens_snapshot(snap_compare: Any, make_app: AppFactory,
                                          chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["It was the best of times, it was the worst"],
                                         finish_reason="length")))

    async def cut(pilot: Pilot[Any]) -> None:
        await send(pilot, "Tell me a long story")

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=cut)


def test_overflow_offer_snapshot(snap_compare: Any, make_app: AppFactory,
                                 chutes_server: FakeProvider) -> None:
    priced(chutes_server)
    app = make_app(model="fake/small")

    async def offer(pilot: Pilot[Any]) -> None:
        await app.workspace.catalog.refresh(app.workspace.provider)
        for turn in range(3):
            await send(pilot, f"turn {turn}: {LONG * 2}")
        conversation(app).prompt.load_text(LONG * 3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextOverflowScreen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=offer)


def test_summary_row_folded_and_chosen_snapshot(snap_compare: Any, make_app: AppFactory,
                                                chutes_server: FakeProvider) -> None:
    """Issue 25: the summary sent in place of the first turn, folded after it, chosen in
    message mode (the turn above it marked out of context)."""
    priced(chutes_server)
    app = make_app(model="fake/large")

    async def summarised(pilot: Pilot[Any]) -> None:
        workspace = app.workspace
        await workspace.catalog.refresh(workspace.provider)
        await send(pilot, "My cat is called Miso.")
        await send(pilot, "What does she eat?")
        chutes_server.script(Reply(stream_of(["The user's cat is called Miso."])))
        await workspace.summarise_before(workspace.session.messages()[2].id)
        screen = conversation(app)
        screen.context_status.refresh()
        await pilot.press("ctrl+o", "up", "up")
        await wait_until(pilot, lambda: screen.message_list.summary_place.chosen)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=summarised)
