"""Switching branches deep in a long path (←/→ on a message with alternatives): the new path is
shown below the branch point (its views drawn off the event loop, the window completed after
the first frame), its last message ends the list, switching again and again shows each path,
and a message sent afterwards continues the branch shown."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from rich.console import RenderableType
from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider
from tests.ui.conftest import AppFactory, conversation, wait_idle, wait_until
from tui_chat.core.context import context_text
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.ui.widgets import message_view
from tui_chat.ui.widgets.message_list import PAGE, MessageList
from tui_chat.ui.widgets.message_view import MessageView

LONG = 60
"""Messages below the first answer (the branch the conversation opens on)."""
SHORT = 6
"""Messages below the second answer."""


def text(name: str) -> str:
    return f"{name}\n\nline two of {name}\n\nline three of {name}"


def two_branches(store: Store) -> tuple[Conversation, list[Message], list[Message]]:
    """q ─ a1 ─ LONG messages (active) and q ─ a2 ─ SHORT messages: (the chat, the two
    paths)."""
    chat = store.create_conversation(Conversation(title="Two branches"))

    def add(content: str, role: Role, parent: str | None = None) -> Message:
        return store.add_message(Message(conversation_id=chat.id, role=role, content=content,
                                         parent_id=parent), activate=parent is None)

    q = add(text("q"), Role.USER)
    first = [q, add(text("a1"), Role.ASSISTANT)]
    for index in range(LONG):
        first.append(add(text(f"long {index}"), Role.USER if index % 2 == 0
                         else Role.ASSISTANT))
    second = [q, add(text("a2"), Role.ASSISTANT, q.id)]
    for index in range(SHORT):
        second.append(add(text(f"short {index}"), Role.USER if index % 2 == 0
                          else Role.ASSISTANT, second[-1].id))
    store.activate(first[-1].id)
    return chat, first, second


def shown(messages: MessageList) -> list[str]:
    """The ids of the messages mounted, in order."""
    return [view.message.id for view in messages.query(MessageView)]


async def settled_on(pilot: Pilot[Any], messages: MessageList, path: list[Message]) -> None:
    """Until the list holds `path` and its whole window is mounted (the first frame mounts
    only what fills the view; the rest of the window follows)."""
    ids = [m.id for m in path]
    window = min(len(path), PAGE)
    await wait_until(pilot, lambda: [m.id for m in messages.messages] == ids
                     and len(shown(messages)) >= window)


async def open_on_first_answer(pilot: Pilot[Any], messages: MessageList,
                               first: list[Message]) -> None:
    await wait_until(pilot, lambda: len(messages.messages) == len(first))
    await messages.reveal(first[1].id)
    messages.focus()
    await pilot.pause()
    assert messages.selected == 1


def assert_window_is_the_path(messages: MessageList, path: list[Message]) -> None:
    ids = shown(messages)
    lo = messages._lo
    assert ids == [m.id for m in path[lo:lo + len(ids)]]  # in order, nothing stale among them


async def test_a_switch_shows_the_other_path_below_the_branch_point(
        make_app: AppFactory, store: Store) -> None:
    chat, first, second = two_branches(store)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        messages = conversation(app).message_list
        await open_on_first_answer(pilot, messages, first)
        question_view = messages.query(MessageView)[0]
        await pilot.press("right")
        await settled_on(pilot, messages, second)
        assert_window_is_the_path(messages, second)
        assert messages.query(MessageView)[0] is question_view  # above it: not drawn again
        assert messages.selected == 1 and messages.selected_message() == second[1]
        assert messages.query(MessageView)[1].has_class("-selected")
        assert [m.id for m in store.get_messages(chat.id)] == [m.id for m in second]


async def test_the_new_paths_last_message_ends_the_list(make_app: AppFactory,
                                                        store: Store) -> None:
    chat, first, second = two_branches(store)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        messages = conversation(app).message_list
        await open_on_first_answer(pilot, messages, first)
        await pilot.press("right")
        await settled_on(pilot, messages, second)
        last = messages.query(MessageView)[-1]
        assert last.message == second[-1] and last.last
        await pilot.press("end")
        await wait_until(pilot, lambda: messages.scroll_y == messages.max_scroll_y
                         and last.region.bottom <= messages.region.bottom
                         and last.region.y >= messages.region.y)
        assert messages.selected_message() == second[-1]
        await pilot.press("home", "down", "left")  # back to the long branch: its end too
        await settled_on(pilot, messages, first)
        await pilot.press("end")
        await wait_until(pilot, lambda: shown(messages)[-1] == first[-1].id)
        assert_window_is_the_path(messages, first)


async def test_switching_again_and_again_shows_each_path(make_app: AppFactory,
                                                         store: Store) -> None:
    chat, first, second = two_branches(store)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        messages = conversation(app).message_list
        await open_on_first_answer(pilot, messages, first)
        for _ in range(3):
            for key, path, place in (("right", second, "‹ 2/2 ›"), ("left", first, "‹ 1/2 ›")):
                await pilot.press(key)
                await settled_on(pilot, messages, path)
                assert_window_is_the_path(messages, path)
                view = messages.query(MessageView)[1]
                assert view.has_class("-selected") and view.message == path[1]
                assert place in str(view.cached.lines[0].text)
        # Pressed at once, one after the other: each switch is shown in turn, the last stays.
        await pilot.press("right", "left", "right")
        await settled_on(pilot, messages, second)
        assert_window_is_the_path(messages, second)


async def test_a_message_sent_after_a_switch_continues_the_branch_shown(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chat, first, second = two_branches(store)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        messages = screen.message_list
        await open_on_first_answer(pilot, messages, first)
        await pilot.press("right")
        await settled_on(pilot, messages, second)
        await pilot.press("escape", *"next", "enter")
        await wait_idle(pilot)
        stored = store.get_messages(chat.id)
        assert [m.id for m in stored[:len(second)]] == [m.id for m in second]
        assert [m.content for m in stored[len(second):]] == ["next", "Hello! You said: next"]
        assert stored[len(second)].parent_id == second[-1].id
        assert [m.id for m in messages.messages] == [m.id for m in stored]
        assert shown(messages)[-2:] == [m.id for m in stored[-2:]]


async def test_the_new_branch_is_drawn_off_the_event_loop(
        make_app: AppFactory, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Drawing a message (Markdown, highlighted code) on the event loop holds up the frame and
    every key: the views below the branch point are drawn in a worker thread first."""
    chat, first, second = two_branches(store)
    drawn_on_loop: list[str] = []
    draw = message_view.render_message

    def recording(message: Message, **kwargs: Any) -> RenderableType:
        if threading.current_thread() is threading.main_thread():
            drawn_on_loop.append(message.id)
        return draw(message, **kwargs)

    monkeypatch.setattr(message_view, "render_message", recording)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        messages = conversation(app).message_list
        await open_on_first_answer(pilot, messages, first)
        await pilot.press("right")
        await settled_on(pilot, messages, second)
        await pilot.pause()
        assert set(drawn_on_loop) & {m.id for m in second[1:]} == set()


async def test_each_message_shown_has_its_own_look_after_a_switch(make_app: AppFactory,
                                                                 store: Store) -> None:
    """The views below the branch point show other messages now: a failed reply's red bar
    goes with it, and comes back with it."""
    chat, first, second = two_branches(store)
    failed = first[3]
    with store._write() as conn:
        conn.execute("UPDATE messages SET status = 'error', error = 'boom' WHERE id = ?",
                     (failed.id,))
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        messages = conversation(app).message_list

        def failed_shown() -> list[str]:
            return [view.message.id for view in messages.query(MessageView)
                    if view.has_class("-failed")]

        await open_on_first_answer(pilot, messages, first)
        assert failed_shown() == [failed.id]
        await pilot.press("right")
        await settled_on(pilot, messages, second)
        assert failed_shown() == []
        assert all(view.message.status is not MessageStatus.ERROR
                   for view in messages.query(MessageView))
        await pilot.press("left")
        await settled_on(pilot, messages, first)
        assert failed_shown() == [failed.id]
        assert "boom" in "".join(line.text for line in
                                 messages.query(MessageView)[3].cached.lines)


async def test_the_context_shown_is_the_branch_shown(make_app: AppFactory,
                                                     store: Store) -> None:
    """The status line's context counts the path now shown (it stayed the long branch's
    until the next message was sent)."""
    chat, first, second = two_branches(store)
    app = make_app(conversation=chat.id, model="bench/1")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        messages = screen.message_list
        await wait_until(pilot, lambda: screen.status.info.context != "")
        long_branch = screen.status.info.context
        await open_on_first_answer(pilot, messages, first)
        await pilot.press("right")
        await settled_on(pilot, messages, second)
        plan = screen.context_status.plan()
        assert plan is not None
        await wait_until(pilot, lambda: screen.status.info.context == context_text(plan.use))
        assert screen.status.info.context != long_branch
