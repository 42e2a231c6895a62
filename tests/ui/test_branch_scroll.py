"""In message mode, Down keeps the message chosen on screen, as Up does (issue 25: Down
scrolled the view about 20 messages too far, seen onto a message with alternatives). The
cause: Down onto the last message of the mounted window scrolls to its bottom, which Textual
takes as a return to following the end (anchor), and the next page mounted below was then
followed: 20 messages (a PAGE) on."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from tests.ui.conftest import AppFactory, conversation, wait_until
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.ui.widgets.message_list import MessageList
from tui_chat.ui.widgets.message_view import MessageView

COUNT = 120
BRANCHED = 50


def branched_chat(store: Store) -> tuple[Conversation, list[Message]]:
    """COUNT messages; the one at BRANCHED has an alternative (not shown)."""
    chat = store.create_conversation(Conversation(title="Branched"))
    path: list[Message] = []
    for index in range(COUNT):
        role = Role.USER if index % 2 == 0 else Role.ASSISTANT
        parent = path[-1].id if path else None
        path.append(store.add_message(Message(
            conversation_id=chat.id, role=role, parent_id=parent,
            content=f"message {index}\n\nits second paragraph"), activate=parent is None))
        if index == BRANCHED:
            store.add_message(Message(conversation_id=chat.id, role=role, parent_id=parent,
                                      content="the other one"), activate=False)
    store.activate(path[-1].id)
    return chat, path


def on_screen(messages: MessageList, index: int) -> bool:
    view = messages.query(MessageView)[index - messages._lo]
    region, shown = view.region, messages.region
    return region.height > 0 and region.y >= shown.y and region.bottom <= shown.bottom


async def select(pilot: Pilot[Any], messages: MessageList, index: int, key: str) -> None:
    while messages.selected != index:
        await pilot.press(key)
    await pilot.pause()


async def test_down_onto_a_branched_message_keeps_it_on_screen(
        make_app: AppFactory, store: Store) -> None:
    chat, _path = branched_chat(store)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 40)) as pilot:
        messages = conversation(app).message_list
        await wait_until(pilot, lambda: len(messages.messages) == COUNT)
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: messages.selected is not None)
        await select(pilot, messages, BRANCHED - 4, "up")
        assert on_screen(messages, BRANCHED - 4)
        for index in range(BRANCHED - 3, BRANCHED + 3):
            await pilot.press("down")
            await wait_until(pilot, lambda index=index: messages.selected == index)
            await pilot.pause()
            assert on_screen(messages, index), (index, messages.scroll_y)
        for index in range(BRANCHED + 1, BRANCHED - 3, -1):
            await pilot.press("up")
            await wait_until(pilot, lambda index=index: messages.selected == index)
            await pilot.pause()
            assert on_screen(messages, index), (index, messages.scroll_y)


async def test_down_past_the_mounted_window_keeps_the_selection_on_screen(
        make_app: AppFactory, store: Store) -> None:
    """Down onto a message below the mounted window (after Home mounted the first page, or Up
    mounted an older one) mounts the next and shows the message chosen."""
    chat, _path = branched_chat(store)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 40)) as pilot:
        messages = conversation(app).message_list
        await wait_until(pilot, lambda: len(messages.messages) == COUNT)
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: messages.selected is not None)
        await pilot.press("home")
        await wait_until(pilot, lambda: messages.selected == 0)
        while messages.selected is not None and messages.selected < BRANCHED + 3:
            index = messages.selected + 1
            await pilot.press("down")
            await wait_until(pilot, lambda index=index: messages.selected == index)
            await pilot.pause()
            assert on_screen(messages, index), (index, messages._lo, messages._hi)
