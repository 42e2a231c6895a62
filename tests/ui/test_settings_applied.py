"""Saved Settings reach the app through the workspace (issue 10): a reply streaming while they
are saved finishes whole; an empty conversation takes the new defaults at once; one with
messages keeps its own and says how to apply them; Ctrl+N starts on the new default model."""

from __future__ import annotations

import threading
from typing import Any

from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import (
    AppFactory,
    conversation,
    live_reply,
    record_notifications,
    wait_idle,
    wait_until,
)
from tui_chat.core.models import MessageStatus
from tui_chat.core.store import Store
from tui_chat.ui.screens.settings import SettingsScreen


async def save_settings(pilot: Pilot[Any], **values: str) -> None:
    """Open Settings (F3), set fields (dotted paths), save with Ctrl+S."""
    app = pilot.app
    await pilot.press("f3")
    await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen))
    screen = app.screen
    assert isinstance(screen, SettingsScreen)
    for dotted, value in values.items():
        widget: Any = screen.query_one(f"#{screen._ids[tuple(dotted.split('__'))]}")
        if hasattr(widget, "text") and not hasattr(widget, "value"):
            widget.text = value
        else:
            widget.value = value
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: not isinstance(app.screen, SettingsScreen))
    await pilot.pause()


async def type_and_send(pilot: Pilot[Any], text: str) -> None:
    screen = conversation(pilot.app)
    screen.prompt.clear()
    screen.prompt.insert(text)
    await pilot.press("enter")


async def test_saving_settings_while_a_reply_streams_does_not_cut_it_off(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["first ", "second ", "third"]), gate=gate,
                               gate_after=2))
    app = make_app()
    notes = record_notifications(app)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = conversation(app)
        await type_and_send(pilot, "hi")
        await live_reply(pilot, screen, lambda text: text.startswith("first"))
        await save_settings(pilot, max_retries="1")
        gate.set()
        await wait_idle(pilot)
    latest = store.latest_conversation()
    assert latest is not None
    reply = store.get_messages(latest.id)[-1]
    assert reply.status is MessageStatus.COMPLETE, reply.error
    assert reply.content == "first second third"
    saved = [text for _, text in notes if "in force from the next request" in text]
    assert saved and "reply in progress" in saved[0]


async def test_saved_defaults_reach_the_empty_conversation_on_screen(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await save_settings(pilot, system_prompt="Answer in Tamil.",
                            parameters__temperature="0.4", default_model="x/chosen")
        assert "x/chosen" in str(conversation(app).status.render())
        await type_and_send(pilot, "hello")
        await wait_idle(pilot)
    body = chutes_server.requests[-1].body
    assert body["messages"][0] == {"role": "system", "content": "Answer in Tamil."}
    assert body["temperature"] == 0.4 and body["model"] == "x/chosen"


async def test_a_conversation_with_messages_keeps_its_own_and_ctrl_n_takes_the_new(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app()
    notes = record_notifications(app)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await type_and_send(pilot, "one")
        await wait_idle(pilot)
        await save_settings(pilot, system_prompt="Be brief.", default_model="x/new")
        said = [text for _, text in notes if "for new conversations" in text]
        assert said and "Apply Settings to this conversation" in said[0]
        await type_and_send(pilot, "two")
        await wait_idle(pilot)
        body = chutes_server.requests[-1].body
        assert body["messages"][0]["role"] == "user"
        assert body["model"] == "deepseek-ai/DeepSeek-V3-0324"
        await pilot.press("ctrl+n")
        await pilot.pause()
        await type_and_send(pilot, "three")
        await wait_idle(pilot)
    body = chutes_server.requests[-1].body
    assert body["model"] == "x/new"
    assert body["messages"] == [{"role": "system", "content": "Be brief."},
                                {"role": "user", "content": "three"}]
