"""A reply stopped (Esc) before its first token: one row that says so, not "interrupted"
over an empty body; never context; Enter (the prompt is given back) and Ctrl+R retry on the
same message of yours, the stopped reply giving its place (no duplicate, no branch). Once
other messages follow it, its row names the key that retries it there (Ctrl+R writes the
last reply again): `r` on it in the message list."""

from __future__ import annotations

import threading
from typing import Any

from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, rendered_text, wait_idle, wait_until
from tui_chat.core.models import MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.ui.app import TuiChatApp
from tui_chat.ui.widgets.message_view import (
    STOPPED_BEFORE_START,
    STOPPED_BEFORE_START_EARLIER,
    MessageView,
)


async def _stop_before_the_first_token(pilot: Pilot[Any], app: TuiChatApp) -> None:
    screen = conversation(app)
    await pilot.press(*"hi", "enter")
    await wait_until(pilot, lambda: screen.presenter.wait.running)
    await pilot.press("escape")
    await wait_idle(pilot)


async def test_a_reply_stopped_before_it_began_is_one_row_and_enter_retries_it(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["never"]), gate=gate, gate_after=0),
                         Reply(stream_of(["Hello ", "again"])))
    app = make_app()
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await _stop_before_the_first_token(pilot, app)
            screen = conversation(app)
            view = screen.query(MessageView)[-1]
            assert view.message.stopped_before_start
            shown = [row.rstrip() for row in rendered_text(view).splitlines() if row.strip()]
            assert len(shown) == 1 and STOPPED_BEFORE_START in shown[0], shown
            assert "interrupted" not in shown[0] and "received so far" not in shown[0]
            context = screen.workspace.session.history()
            assert [(m.role, m.content) for m in context] == [(Role.USER, "hi")]  # no reply
            assert "nothing arrived" in screen.status.info.note
            assert screen.prompt.text == "hi"
            await pilot.press("enter")  # the prompt given back, sent again
            await wait_idle(pilot)
            views = screen.query(MessageView)
            assert [(v.message.role, v.message.content) for v in views] == [
                (Role.USER, "hi"), (Role.ASSISTANT, "Hello again")]
            assert "‹" not in rendered_text(views[-1])  # no alternative left behind
    finally:
        gate.set()
    conversation_id = views[-1].message.conversation_id
    saved = store.get_messages(conversation_id)
    assert [(m.role, m.status) for m in saved] == [(Role.USER, MessageStatus.COMPLETE),
                                                  (Role.ASSISTANT, MessageStatus.COMPLETE)]
    assert store.siblings(saved[-1].id).count == 1


async def test_ctrl_r_after_a_stop_before_the_first_token_replaces_it(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["never"]), gate=gate, gate_after=0),
                         Reply(stream_of(["Fresh"])))
    app = make_app()
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await _stop_before_the_first_token(pilot, app)
            screen = conversation(app)
            await pilot.press("ctrl+r")
            await wait_idle(pilot)
            views = screen.query(MessageView)
            assert [(v.message.role, v.message.content) for v in views] == [
                (Role.USER, "hi"), (Role.ASSISTANT, "Fresh")]
    finally:
        gate.set()
    saved = store.get_messages(views[-1].message.conversation_id)
    assert [m.role for m in saved] == [Role.USER, Role.ASSISTANT]
    assert store.siblings(saved[-1].id).count == 1
    assert chutes_server.requests[-1].body["messages"][-1]["content"] == "hi"  # type: ignore[index]


async def test_a_stopped_reply_followed_by_other_messages_names_r_and_r_retries_it(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["never"]), gate=gate, gate_after=0),
                         Reply(stream_of(["Answer"])), Reply(stream_of(["Fresh"])))
    app = make_app()
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await _stop_before_the_first_token(pilot, app)
            screen = conversation(app)
            screen.prompt.clear()
            await pilot.press(*"other", "enter")  # not a retry: something else, after it
            await wait_idle(pilot)
            views = screen.query(MessageView)
            assert [v.message.content for v in views] == ["hi", "", "other", "Answer"]
            shown = [row.rstrip() for row in rendered_text(views[1]).splitlines() if row.strip()]
            assert len(shown) == 1 and STOPPED_BEFORE_START_EARLIER in shown[0], shown
            assert "Ctrl+R" not in shown[0]
            await pilot.press("ctrl+o", "up", "up")  # from the last: the stopped reply
            assert screen.message_list.selected_message() == views[1].message
            await pilot.press("r")
            await wait_idle(pilot)
            path = [(v.message.role, v.message.content) for v in screen.query(MessageView)]
            assert path == [(Role.USER, "hi"), (Role.ASSISTANT, "Fresh")], path
    finally:
        gate.set()
    assert chutes_server.requests[-1].body["messages"][-1]["content"] == "hi"  # type: ignore[index]
    fresh = store.get_messages(screen.workspace.session.conversation.id)[-1]
    assert store.siblings(fresh.id).count == 2  # the stopped reply and what followed it stay

