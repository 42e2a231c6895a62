"""Reasoning per conversation in the app: F9 cycles it (default, off, low, medium, high), F8
sets it, F1 lists the key; the request carries it for a model known to take it, the status
line shows the setting and the reply's header what it was sent with; a model not known to
take it gets nothing, and one warning says so once."""

from __future__ import annotations

from textual.widgets import Select

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import (
    AppFactory,
    conversation,
    record_notifications,
    rendered_text,
    wait_idle,
    wait_until,
)
from tests.ui.test_conversation_settings import open_settings
from tests.ui.test_tool_calls_app import send
from tui_chat.core.config import Settings
from tui_chat.core.model_facts import ModelSettings
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.ui.screens.help import collect_key_help

MODEL = "fake/thinker"


def settings(takes: bool | None = True) -> Settings:
    return Settings(default_model=MODEL,
                    models={f"chutes:{MODEL}": ModelSettings(reasoning=takes)})


def last_body(server: FakeProvider) -> dict[str, object]:
    return [r.body for r in server.requests if r.method == "POST"][-1]


async def test_f5_turns_reasoning_off_and_the_reply_says_so(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    app = make_app(settings=settings())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        await pilot.pause()
        await pilot.press("f9")
        await wait_until(pilot, lambda: screen.status.info.reasoning == "reasoning off")
        assert screen.workspace.reasoning == "off"
        chutes_server.script(Reply(stream_of(["Quick answer."])))
        await send(pilot, "hello")
        await wait_idle(pilot)
        assert last_body(chutes_server)["chat_template_kwargs"] == {
            "enable_thinking": False, "thinking": False}
        await wait_until(pilot, lambda: "reasoning off" in rendered_text(screen.message_list))
        await pilot.press("f9")  # low: reasoning_effort
        await wait_until(pilot, lambda: screen.workspace.reasoning == "low")
        chutes_server.script(Reply(stream_of(["Thought a little."])))
        await send(pilot, "again")
        await wait_idle(pilot)
        assert last_body(chutes_server)["reasoning_effort"] == "low"
        await wait_until(pilot, lambda: "reasoning low" in rendered_text(screen.message_list))
        for _ in range(3):  # medium, high, and round again to the model's default
            await pilot.press("f9")
        await wait_until(pilot, lambda: screen.workspace.reasoning == "default")
        assert screen.status.info.reasoning == ""
    saved = store.list_conversations()[0]
    assert store.get_conversation(saved.id).parameters.reasoning is None


async def test_a_model_not_known_to_take_it_is_said_once(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(settings=settings(takes=None))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        notes = record_notifications(app)
        screen = conversation(app)
        await pilot.pause()
        for _ in range(3):
            await pilot.press("f9")
        await wait_until(pilot, lambda: screen.workspace.reasoning == "medium")
        assert screen.status.info.reasoning == "reasoning medium not sent"
        warnings = [text for severity, text in notes if severity == "warning"]
        assert len(warnings) == 1 and MODEL in warnings[0] and "not sent" in warnings[0]
        chutes_server.script(Reply(stream_of(["Default."])))
        await send(pilot, "hello")
        await wait_idle(pilot)
        body = last_body(chutes_server)
        assert "reasoning_effort" not in body and "chat_template_kwargs" not in body
        assert "reasoning medium" not in rendered_text(screen.message_list)


async def test_f8_sets_reasoning_and_keeps_it(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chat = store.create_conversation(Conversation(title="Mine"))
    store.add_message(Message(conversation_id=chat.id, role=Role.USER, content="hi"))
    app = make_app(conversation=chat.id, settings=settings())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        await pilot.pause()
        dialog = await open_settings(pilot)
        select = dialog.query_one("#reasoning", Select)
        assert select.value == "default"
        select.value = "high"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.screen is screen)
        assert screen.status.info.reasoning == "reasoning high"
    assert store.get_conversation(chat.id).parameters.reasoning == "high"


async def test_f1_lists_the_reasoning_key(make_app: AppFactory) -> None:
    app = make_app(settings=settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        rows = collect_key_help(app, conversation(app))
        assert any(row.keys == "F9" and row.description == "Reasoning" for row in rows), rows
