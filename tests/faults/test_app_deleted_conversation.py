"""Issue 12: another process deletes the conversation the app is writing. The app says so
once, keeps what is on screen, and the next send starts a new conversation (it used to fail
every later send with a FOREIGN KEY error until Ctrl+N)."""

from __future__ import annotations

import threading

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.faults.pilot import send, wait_idle
from tests.ui.conftest import AppFactory, conversation, live_reply, record_notifications
from tui_chat.core.store import Store


def delete_elsewhere(store: Store, conversation_id: str) -> None:
    """As another tui-chat would: its own connection to the same file."""
    with Store.open(store.path) as other:
        other.delete_conversation(conversation_id)


async def test_a_send_into_a_deleted_conversation_says_so_once_then_starts_anew(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    app = make_app()
    notes = record_notifications(app)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = conversation(app)
        await send(pilot, "one")
        first = screen.workspace.session.conversation.id
        delete_elsewhere(store, first)
        await send(pilot, "two")
        assert screen.prompt.text == "two"  # not lost: back in the prompt
        await pilot.press("enter")
        await wait_idle(pilot)
        assert [m.content for m in screen.message_list.messages][:1] == ["two"]
    warnings = [text for severity, text in notes if "deleted outside this window" in text]
    assert len(warnings) == 1 and "next message starts a new conversation" in warnings[0]
    assert not [text for _, text in notes if "FOREIGN KEY" in text or "orphan" in text]
    (only,) = store.list_conversations()
    assert only.id != first and only.title == "two"
    assert chutes_server.requests[-1].body["messages"] == [{"role": "user", "content": "two"}]


async def test_a_conversation_deleted_while_its_reply_streams(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["kept ", "on ", "screen"]), gate=gate, gate_after=2))
    app = make_app()
    notes = record_notifications(app)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = conversation(app)
        screen.prompt.insert("hello")
        await pilot.press("enter")
        await live_reply(pilot, screen, lambda text: text.startswith("kept"))
        delete_elsewhere(store, screen.workspace.session.conversation.id)
        gate.set()
        await wait_idle(pilot)
        assert screen.message_list.messages[-1].content == "kept on screen"  # still shown
        await send(pilot, "again")
    said = [text for _, text in notes if "deleted outside this window" in text]
    assert len(said) == 1 and "stays on screen but is not saved" in said[0], said
    (only,) = store.list_conversations()
    assert only.title == "again" and store.count_messages(only.id) == 2
