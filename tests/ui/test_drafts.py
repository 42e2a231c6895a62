"""The prompt is never lost (issue 25): an unsent draft follows its conversation across
switches and quits (drafts.json beside the store, 0600); Ctrl+Q while a reply streams asks
first; Ctrl+L clears the prompt (Ctrl+Z brings it back); a message given back after it was
not sent is selected, so typing replaces it."""

from __future__ import annotations

import json
import stat

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, wait_idle, wait_until
from tui_chat.core.drafts import FILE_NAME, Drafts
from tui_chat.core.models import MessageStatus
from tui_chat.core.store import Store
from tui_chat.ui.screens.confirm import ConfirmScreen
from tui_chat.ui.widgets.reply_view import ReplyView


async def test_an_unsent_draft_survives_quit(make_app: AppFactory, store: Store) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"half a thought")
        await pilot.press("ctrl+q")
    path = store.path.parent / FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = make_app()
    async with again.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: conversation(again).prompt.text == "half a thought")


async def test_a_draft_follows_its_conversation_across_switches(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["Hello"])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press(*"first", "enter")
        await wait_idle(pilot)
        first = screen.workspace.session.conversation.id
        await pilot.press(*"for the first")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: screen.prompt.text == "")
        await pilot.press(*"for a new one")
        await screen.sidebar_actions.open(first, None)
        await wait_until(pilot, lambda: screen.prompt.text == "for the first")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: screen.prompt.text == "for a new one")
        await pilot.press("ctrl+q")
    kept = json.loads((store.path.parent / FILE_NAME).read_text())
    assert kept == {first: "for the first", "": "for a new one"}


async def test_a_draft_sent_in_a_new_conversation_is_not_given_back(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["Hello"])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press(*"sent soon")
        await pilot.press("ctrl+n")  # the new conversation's draft stays with the new one
        await wait_until(pilot, lambda: screen.prompt.text == "sent soon")
        await pilot.press("enter")
        await wait_idle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: screen.prompt.text == "")
        await pilot.press("ctrl+q")
    assert Drafts.beside(store.path).get("") == ""


async def test_ctrl_q_while_a_reply_streams_asks_first(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["partial ", "more"]), stall_after=2,
                               stall_seconds=600))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("q", "enter")
        await wait_until(pilot, lambda: bool(screen.query(ReplyView))
                         and "partial" in screen.query_one(ReplyView).content)
        chat_id = screen.workspace.session.conversation.id
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")  # keep it streaming
        await wait_until(pilot, lambda: app.screen is screen)
        assert screen.streaming and app.is_running
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
    saved = store.get_messages(chat_id)
    assert saved[-1].status is MessageStatus.INTERRUPTED and saved[-1].content == "partial "


async def test_ctrl_l_clears_the_prompt_and_ctrl_z_brings_it_back(make_app: AppFactory
                                                                   ) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = conversation(app).prompt
        await pilot.press(*"line one", "ctrl+j", *"line two")
        await pilot.press("ctrl+l")
        assert prompt.text == ""
        await pilot.press("ctrl+z")
        assert prompt.text == "line one\nline two"


async def test_a_message_not_sent_comes_back_selected(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply.error(401, {"detail": "Invalid token."}))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = conversation(app).prompt
        await pilot.press(*"try this", "enter")
        await wait_until(pilot, lambda: prompt.text == "try this")
        await wait_idle(pilot)
        assert prompt.selected_text == "try this"
        await pilot.press(*"other")
        assert prompt.text == "other"
