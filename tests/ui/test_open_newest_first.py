"""Opening a long conversation from the sidebar: its newest messages are drawn before the rest
of the path is read (MessageList.load's `above`), and what needs the whole path waits for it.

The rest is read in a thread through `ChatSession.messages_above`; these tests hold that read
at a gate (a threading.Event, like the fake provider's `Reply(gate=...)`) to act while it is
not done, then open the gate and wait for the state that follows.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
from textual import events
from textual.app import App

from tests.fakeprovider import FakeProvider
from tests.ui.conftest import AppFactory, conversation, wait_idle, wait_until
from tui_chat.core import store as store_module
from tui_chat.core.context import context_text
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.session import ChatSession
from tui_chat.core.store import Store
from tui_chat.ui.screens.conversation import ConversationScreen
from tui_chat.ui.widgets.conversation_list import ConversationList
from tui_chat.ui.widgets.message_list import NEWEST, PAGE
from tui_chat.ui.widgets.message_view import MessageView

COUNT = 120


def saved_conversation(store: Store, count: int, title: str = "Long chat") -> Conversation:
    chat = store.create_conversation(Conversation(title=title))
    for index in range(count):
        role = Role.USER if index % 2 == 0 else Role.ASSISTANT
        store.add_message(Message(
            conversation_id=chat.id, role=role, content=f"{title} {index}",
            provider="chutes" if role is Role.ASSISTANT else None,
            model="old/model" if role is Role.ASSISTANT else None))
    return chat


class Gate:
    """Holds `ChatSession.messages_above` (the read of the rest of a path) until opened;
    counts the messages made from store rows meanwhile."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.open = threading.Event()
        self.entered = threading.Event()
        self.made = 0
        real_above = getattr(ChatSession, "messages_above", None)
        real_from = store_module.message_from

        def held(session: ChatSession, message_id: str) -> list[Message]:
            self.entered.set()
            self.open.wait(60)
            assert real_above is not None
            return real_above(session, message_id)  # type: ignore[no-any-return]

        def counted(row: object) -> Message:
            self.made += 1
            return real_from(row)  # type: ignore[arg-type]

        monkeypatch.setattr(ChatSession, "messages_above", held, raising=False)
        monkeypatch.setattr(store_module, "message_from", counted)

    async def reached(self) -> None:
        """Until the read has begun (and waits at the gate). Not through the pilot, whose
        pauses wait for every queue to be empty, while a handler may be waiting for this."""
        assert await asyncio.to_thread(self.entered.wait, 60), "the read never began"


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    held = Gate(monkeypatch)
    yield held
    held.open.set()  # a test that failed early leaves no thread waiting


def send_key(app: App[object], key: str) -> None:
    """A key press as the terminal delivers it: Pilot.press waits for every queue to be
    empty, and the key's handler is waiting for the gate."""
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    app.post_message(event)


def newest_drawn(screen: ConversationScreen, content: str) -> bool:
    views = screen.query(MessageView)
    return bool(views) and views[-1].message.content == content


async def test_the_newest_messages_are_drawn_before_the_rest_is_read(
        make_app: AppFactory, store: Store, gate: Gate) -> None:
    chat = saved_conversation(store, COUNT)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        gate.made = 0
        screen.post_message(ConversationList.ConversationChosen(chat.id))
        await wait_until(pilot, lambda: newest_drawn(screen, f"Long chat {COUNT - 1}"))
        # Drawn with the rest not read: only the newest part was made into messages.
        assert gate.made <= NEWEST < COUNT
        messages = screen.message_list
        assert messages.reading and len(messages.messages) == NEWEST
        assert screen.status.info.context == ""  # not a figure of a part of the path
        gate.open.set()
        assert await messages.whole_path()
        assert [m.content for m in messages.messages] == [f"Long chat {i}"
                                                         for i in range(COUNT)]
        views = screen.query(MessageView)
        assert len(views) == PAGE and views[-1].message is messages.messages[-1]
        assert messages._index_of(views[0]) == COUNT - PAGE  # the window moved with the path
        whole = context_text(screen.workspace.context_plan("", path=store.get_messages(
            chat.id)).use)
        await wait_until(pilot, lambda: screen.status.info.context == whole)
        await pilot.press("up")  # the prompt's history holds the first prompt too
        assert screen.prompt.text == f"Long chat {COUNT - 2}"
        prompts = [f"Long chat {i}" for i in range(0, COUNT, 2)]
        assert screen.prompt.prompt_history == prompts[-100:]


async def test_home_before_the_rest_is_read_waits_for_it_and_shows_the_first_message(
        make_app: AppFactory, store: Store, gate: Gate) -> None:
    chat = saved_conversation(store, COUNT)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        screen.post_message(ConversationList.ConversationChosen(chat.id))
        await wait_until(pilot, lambda: newest_drawn(screen, f"Long chat {COUNT - 1}"))
        screen.message_list.focus()
        await pilot.pause()
        send_key(app, "home")
        await gate.reached()
        assert screen.message_list.reading and screen.message_list.selected != 0
        gate.open.set()
        await wait_until(pilot, lambda: screen.message_list.selected == 0)
        views = screen.query(MessageView)
        assert views[0].message.content == "Long chat 0"
        assert screen.message_list.messages[0] is views[0].message
        assert screen.message_list.selected_message() is views[0].message
        await pilot.press("end")
        await wait_until(pilot, lambda: screen.message_list.selected == COUNT - 1)
        assert screen.query(MessageView)[-1].message.content == f"Long chat {COUNT - 1}"


async def test_a_send_before_the_rest_is_read_goes_with_the_whole_path(
        make_app: AppFactory, store: Store, gate: Gate, chutes_server: FakeProvider) -> None:
    chat = saved_conversation(store, COUNT)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        screen.post_message(ConversationList.ConversationChosen(chat.id))
        await wait_until(pilot, lambda: newest_drawn(screen, f"Long chat {COUNT - 1}"))
        await pilot.press("n", "e", "x", "t")
        send_key(app, "enter")
        await gate.reached()  # the send asked for the rest
        assert not chutes_server.requests
        gate.open.set()
        await wait_idle(pilot)
        await wait_until(pilot, lambda: len(screen.message_list.messages) == COUNT + 2)
        shown = [m.content for m in screen.message_list.messages]
    sent = chutes_server.requests[-1].body["messages"]
    assert [m["content"] for m in sent] == [f"Long chat {i}" for i in range(COUNT)] + ["next"]
    path = store.get_messages(chat.id)
    assert [m.content for m in path] == shown
    assert path[COUNT].parent_id == path[COUNT - 1].id and path[COUNT].content == "next"


async def test_another_conversation_opened_before_the_rest_is_read_is_the_one_shown(
        make_app: AppFactory, store: Store, gate: Gate) -> None:
    long_chat = saved_conversation(store, COUNT)
    short_chat = saved_conversation(store, 4, title="Short chat")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        screen.post_message(ConversationList.ConversationChosen(long_chat.id))
        await wait_until(pilot, lambda: newest_drawn(screen, f"Long chat {COUNT - 1}"))
        await gate.reached()  # its read has begun, and waits
        screen.post_message(ConversationList.ConversationChosen(short_chat.id))
        await wait_until(pilot, lambda: newest_drawn(screen, "Short chat 3"))
        gate.open.set()
        messages = screen.message_list
        assert not messages.reading and await messages.whole_path()
        await pilot.pause()
        await pilot.pause()
        assert [m.content for m in messages.messages] == [f"Short chat {i}" for i in range(4)]
        assert [v.message.content for v in screen.query(MessageView)] == [
            f"Short chat {i}" for i in range(4)]
        assert screen.workspace.session.conversation.id == short_chat.id


async def test_a_branch_key_before_the_rest_is_read_switches_the_whole_path(
        make_app: AppFactory, store: Store, gate: Gate) -> None:
    chat = saved_conversation(store, COUNT)
    prompt = store.get_messages(chat.id)[-2]
    store.add_message(Message(conversation_id=chat.id, role=Role.ASSISTANT,
                              content="another answer", parent_id=prompt.id))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        screen.post_message(ConversationList.ConversationChosen(chat.id))
        await wait_until(pilot, lambda: newest_drawn(screen, "another answer"))
        await pilot.press("ctrl+o")  # the last message is selected
        send_key(app, "left")
        await gate.reached()
        gate.open.set()
        await wait_until(pilot, lambda: newest_drawn(screen, f"Long chat {COUNT - 1}"))
        messages = screen.message_list
        assert [m.content for m in messages.messages] == [f"Long chat {i}"
                                                         for i in range(COUNT)]
        assert messages.selected == COUNT - 1
        assert [m.id for m in messages.messages] == [m.id for m in store.get_messages(chat.id)]


async def test_a_search_hit_older_than_the_newest_messages_is_revealed_once_read(
        make_app: AppFactory, store: Store, gate: Gate) -> None:
    chat = saved_conversation(store, COUNT)
    hit = store.get_messages(chat.id)[7]
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        screen.post_message(ConversationList.ConversationChosen(chat.id, hit.id))
        await gate.reached()  # the hit is not among the newest
        gate.open.set()
        await wait_until(pilot, lambda: screen.message_list.selected == 7)
        assert screen.message_list.selected_message() == hit
        assert any(v.message.id == hit.id for v in screen.query(MessageView))


async def test_a_long_conversation_given_at_start_is_read_newest_first_too(
        make_app: AppFactory, store: Store, gate: Gate) -> None:
    chat = saved_conversation(store, COUNT)
    gate.made = 0
    app = make_app(conversation=chat.id[:8])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await wait_until(pilot, lambda: newest_drawn(screen, f"Long chat {COUNT - 1}"))
        assert screen.message_list.reading and gate.made <= NEWEST
        gate.open.set()
        assert await screen.message_list.whole_path()
        assert len(screen.message_list.messages) == COUNT
        screen.message_list.focus()
        await pilot.press("home")
        await wait_until(pilot, lambda: screen.message_list.selected == 0)
        assert screen.query(MessageView)[0].message.content == "Long chat 0"
