"""A mouse drag selects the words under it, inside a message and across messages (finished
or streaming), drawn in the selection colour; Ctrl+C and `c` copy exactly the selection."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, live_reply, wait_until
from tests.ui.test_conversation_history import saved_conversation
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.ui.widgets.message_view import MessageView

GUTTER = 2  # a message's left border and padding, in cells
ANSWER = "first line\n\nsecond line here, नमस्ते दुनिया"


def seed(store: Store) -> str:
    chat = store.create_conversation(Conversation(title="Selecting"))
    store.add_message(Message(conversation_id=chat.id, role=Role.USER,
                              content="alpha beta gamma"))
    store.add_message(Message(conversation_id=chat.id, role=Role.ASSISTANT, provider="chutes",
                              model="m1", content=ANSWER))
    return chat.id


async def drag(pilot: Pilot[Any], start_widget: Widget, start: tuple[int, int],
               end_widget: Widget, end: tuple[int, int]) -> None:
    """Press at `start` in one widget, move to `end` in another (or the same), release."""
    await pilot.pause()  # laid out where the pointer will be: no layout in the queue
    await pilot.mouse_down(start_widget, offset=(GUTTER + start[0], start[1]))
    await pilot.hover(end_widget, offset=(GUTTER + end[0], end[1]))
    await pilot.mouse_up(end_widget, offset=(GUTTER + end[0], end[1]))
    await pilot.pause()


async def test_a_drag_inside_a_message_selects_those_words_and_copies_them(
        make_app: AppFactory, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(conversation=seed(store))
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=(80, 30)) as pilot:
        screen = conversation(app)
        answer = screen.query(MessageView)[1]  # rows: author, "first line", blank, "second…"
        await drag(pilot, answer, (6, 1), answer, (10, 3))
        assert app.screen.get_selected_text() == "line\n\nsecond line"
        row = list(answer.render_lines(Region(0, 0, *answer.size))[3])
        # "second line" is drawn on the selection's colour, its letters in their own colour.
        selected = next(seg.style for seg in row if "second" in seg.text)
        after = next(seg.style for seg in row if "here" in seg.text)
        assert selected and after and selected.bgcolor != after.bgcolor
        assert selected.color == after.color != selected.bgcolor
        await pilot.press("ctrl+c")
        await pilot.press("c")  # the copy key of message mode: the selection too
    assert copied == ["line\n\nsecond line", "line\n\nsecond line"]


async def test_a_drag_across_messages_and_over_devanagari(make_app: AppFactory,
                                                          store: Store) -> None:
    app = make_app(conversation=seed(store))
    async with app.run_test(size=(80, 30)) as pilot:
        user, answer = conversation(app).query(MessageView)
        await drag(pilot, user, (6, 1), answer, (4, 1))
        assert app.screen.get_selected_text() == "beta gamma\nm1  Chutes\nfirs"
        await drag(pilot, answer, (12, 3), answer, (60, 3))  # past the end of the line
        assert app.screen.get_selected_text() == "here, नमस्ते दुनिया"


async def test_a_drag_in_the_reply_streaming_in(make_app: AppFactory,
                                                chutes_server: FakeProvider) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["streamed words arrive", "\n\nmore"]), gate=gate,
                               gate_after=2))
    app = make_app()
    try:
        async with app.run_test(size=(80, 30)) as pilot:
            screen = conversation(app)
            await pilot.press(*"go", "enter")
            live = await live_reply(pilot, screen, lambda text: "arrive" in text)
            await drag(pilot, live, (9, 1), live, (13, 1))
            assert app.screen.get_selected_text() == "words"
    finally:
        gate.set()


async def test_a_drag_in_a_conversation_scrolled_up_stays_where_it_began(
        make_app: AppFactory, store: Store) -> None:
    chat = saved_conversation(store, 20)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(80, 30)) as pilot:
        messages = conversation(app).message_list
        await pilot.press("ctrl+home")  # from the prompt: the start of the conversation
        await wait_until(pilot, lambda: messages.scroll_y == 0 and not messages.paging
                         and messages.query(MessageView)[0].message.content == "message 0")
        assert messages.max_scroll_y > 0
        first, second = messages.query(MessageView)[:2]
        # The press focuses the conversation (message mode): that must not scroll it away
        # from under the pointer, as selecting the last message did.
        await drag(pilot, first, (8, 1), second, (7, 1))
        assert messages.has_focus and messages.scroll_y == 0
        assert app.screen.get_selected_text() == "0\nold/model  Chutes\nmessage"
        # The message selected for the keys is one in view (the last there).
        assert messages.selected is not None
        chosen = messages.query(MessageView)[messages.selected]
        assert chosen.region.overlaps(messages.region)
        assert not messages.query(MessageView)[messages.selected + 1].region.overlaps(
            messages.region)


async def test_choosing_a_message_with_the_keys_lets_go_of_the_mouse_selection(
        make_app: AppFactory, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(conversation=seed(store))
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=(80, 30)) as pilot:
        messages = conversation(app).message_list
        answer = messages.query(MessageView)[1]
        await drag(pilot, answer, (6, 1), answer, (10, 3))
        assert app.screen.get_selected_text() == "line\n\nsecond line"
        await pilot.press("up")  # the keys choose the question: `c` copies it, not the words
        await wait_until(pilot, lambda: messages.selected == 0)
        assert app.screen.get_selected_text() is None
        await pilot.press("c")
    assert copied == ["alpha beta gamma"]


async def test_views_placing_characters_when_asked_keep_their_widgets_default_css(
        make_app: AppFactory) -> None:
    """MessageView's rows are placed for the mouse by a mixin (selectable.PlacesWhenAsked):
    Static's `height: auto` still applies, so in a vertical container (a comparison's
    column) a message is as tall as its text, not one row."""
    from textual.containers import Vertical

    message = Message(conversation_id="c", role=Role.ASSISTANT,
                      content="one\n\ntwo\n\nthree", provider="chutes", model="m")
    app = make_app()
    async with app.run_test(size=(60, 30)) as pilot:
        view = MessageView(message)
        await conversation(app).mount(Vertical(view))
        await wait_until(pilot, lambda: view.size.height > 0 and bool(view.cached.lines))
        await pilot.pause()
        assert view.size.height == len(view.cached.lines) >= 5
