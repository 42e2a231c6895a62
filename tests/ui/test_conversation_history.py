"""Pilot tests of saved conversations: resume, long histories, model switch, regenerate, edit."""

from __future__ import annotations

import pytest
from textual.color import Color

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, wait_idle, wait_until
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.ui.colour_roles import syntax_theme
from tui_chat.ui.screens.model_picker import ModelPickerScreen
from tui_chat.ui.widgets.message_list import PAGE, MessageList
from tui_chat.ui.widgets.message_view import MessageView


def saved_conversation(store: Store, count: int, model: str = "old/model") -> Conversation:
    chat = store.create_conversation(Conversation(title="Saved chat"))
    for index in range(count):
        role = Role.USER if index % 2 == 0 else Role.ASSISTANT
        store.add_message(Message(
            conversation_id=chat.id, role=role, content=f"message {index}",
            provider="chutes" if role is Role.ASSISTANT else None,
            model=model if role is Role.ASSISTANT else None))
    return chat


async def test_resume_shows_history_and_continues_it(make_app: AppFactory, store: Store,
                                                     chutes_server: FakeProvider) -> None:
    chat = saved_conversation(store, 4)
    app = make_app(conversation=chat.id[:8])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        texts = [v.message.content for v in screen.query(MessageView)]
        assert texts == ["message 0", "message 1", "message 2", "message 3"]
        assert screen.workspace.model == "old/model"  # the model last used in it
        assert "Saved chat" in str(screen.query_one("#title-bar").render())
        await pilot.press("u", "p", "enter")
        await wait_idle(pilot)
    sent = chutes_server.requests[-1].body
    assert [m["content"] for m in sent["messages"]] == [
        "message 0", "message 1", "message 2", "message 3", "up"]
    assert sent["model"] == "old/model"
    assert store.count_messages(chat.id) == 6


async def test_continue_opens_latest_and_up_recalls_its_prompts(
        make_app: AppFactory, store: Store) -> None:
    saved_conversation(store, 2)
    latest = saved_conversation(store, 4)
    app = make_app(continue_last=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        assert screen.workspace.session.conversation.id == latest.id
        await pilot.press("up")
        assert screen.prompt.text == "message 2"


async def test_long_history_mounts_one_page_then_pages_on_home_and_end(
        make_app: AppFactory, store: Store) -> None:
    chat = saved_conversation(store, 300)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        views = screen.query(MessageView)
        assert len(views) == PAGE and views[-1].message.content == "message 299"
        screen.message_list.focus()
        await pilot.press("home")
        await pilot.pause()
        assert screen.query(MessageView)[0].message.content == "message 0"
        assert screen.message_list.selected == 0
        await pilot.press("end")
        await pilot.pause()
        assert screen.query(MessageView)[-1].message.content == "message 299"


async def test_scrolling_to_the_top_mounts_older_messages(make_app: AppFactory,
                                                          store: Store) -> None:
    chat = saved_conversation(store, 100)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        messages = conversation(app).message_list
        first = messages.query(MessageView)[0]
        assert first.message.content == f"message {100 - PAGE}"
        messages.scroll_home(animate=False, immediate=True)
        # Wait for the state (the page mounted and the view moved back), not for a time.
        await wait_until(pilot, lambda: len(messages.query(MessageView)) == 2 * PAGE
                         and not messages.paging)
        # The message that was on top is still where the eye was, not thrown off screen.
        assert messages.scroll_y > 0
        assert abs(messages.scroll_y - first.virtual_region.y) <= 1
        assert messages.query(MessageView)[0].message.content == f"message {100 - 2 * PAGE}"


async def test_switching_model_mid_conversation_each_reply_remembers_its_model(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("a", "enter")
        await wait_idle(pilot)
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await pilot.press(*"Qwen3", "enter")
        await wait_until(pilot, lambda: app.screen is screen)
        assert screen.workspace.model == "Qwen/Qwen3-235B-A22B"
        assert "Qwen/Qwen3-235B-A22B" in screen.status.info.model
        await pilot.press("b", "enter")
        await wait_idle(pilot)
        replies = [v.message for v in screen.query(MessageView)
                   if v.message.role is Role.ASSISTANT]
        assert [r.model for r in replies] == ["deepseek-ai/DeepSeek-V3-0324",
                                              "Qwen/Qwen3-235B-A22B"]
        chat_id = screen.workspace.session.conversation.id
    posted = [r.body["model"] for r in chutes_server.requests if r.method == "POST"]
    assert posted == ["deepseek-ai/DeepSeek-V3-0324", "Qwen/Qwen3-235B-A22B"]
    assert [m.model for m in store.get_messages(chat_id) if m.role is Role.ASSISTANT] == [
        "deepseek-ai/DeepSeek-V3-0324", "Qwen/Qwen3-235B-A22B"]
    assert store.get_conversation(chat_id).model == "Qwen/Qwen3-235B-A22B"


async def test_regenerate_replaces_last_reply(make_app: AppFactory, store: Store,
                                              chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["first answer"])), Reply(stream_of(["second one"])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("q", "enter")
        await wait_idle(pilot)
        await pilot.press("ctrl+r")
        await wait_idle(pilot)
        texts = [v.message.content for v in screen.query(MessageView)]
        assert texts == ["q", "second one"]
        chat_id = screen.workspace.session.conversation.id
    assert [m.content for m in store.get_messages(chat_id)] == ["q", "second one"]
    assert chutes_server.requests[-1].body["messages"] == [{"role": "user", "content": "q"}]


async def test_regenerate_with_another_model_from_the_message_list(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("q", "enter")
        await wait_idle(pilot)
        await pilot.press("ctrl+o", "m")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await pilot.press(*"DeepSeek-R1", "enter")
        await wait_until(pilot, lambda: app.screen is screen)
        await wait_idle(pilot)
        replies = [v.message for v in screen.query(MessageView)]
        assert [m.role for m in replies] == [Role.USER, Role.ASSISTANT]
        assert replies[1].model == "deepseek-ai/DeepSeek-R1"


@pytest.mark.parametrize("key", ["r", "m"])
async def test_r_and_m_write_the_selected_reply_again_not_the_last(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider, key: str) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        for text in ("one", "two"):
            await pilot.press(*text, "enter")
            await wait_idle(pilot)
        first = screen.query(MessageView)[1].message
        await pilot.press("ctrl+o", "up", "up")  # from the last: the reply to "one"
        assert screen.message_list.selected_message() == first
        await pilot.press(key)
        if key == "m":
            await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
            await pilot.press(*"DeepSeek-R1", "enter")
            await wait_until(pilot, lambda: app.screen is screen)
        await wait_idle(pilot)
        views = [v.message for v in screen.query(MessageView)]
        assert [m.content for m in views][:1] == ["one"] and len(views) == 2
        assert views[1].id != first.id and views[1].parent_id == first.parent_id
    assert chutes_server.requests[-1].body["messages"] == [{"role": "user", "content": "one"}]
    assert store.siblings(views[1].id).count == 2  # the old reply and "two" below it stay


async def test_edit_user_message_and_resend_from_there(make_app: AppFactory, store: Store,
                                                       chutes_server: FakeProvider) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        for text in ("one", "two"):
            await pilot.press(*text, "enter")
            await wait_idle(pilot)
        assert isinstance(app.focused, type(screen.prompt))
        await pilot.press("ctrl+o")
        assert isinstance(app.focused, MessageList)
        await pilot.press("up", "up", "up", "e")  # from the last reply up to "one"
        assert screen.prompt.text == "one" and screen.editing is not None
        await pilot.press("backspace", "backspace", "backspace", *"uno", "enter")
        await wait_idle(pilot)
        texts = [v.message.content for v in screen.query(MessageView)]
        assert texts == ["uno", "Hello! You said: uno"]
        chat_id = screen.workspace.session.conversation.id
    saved = store.get_messages(chat_id)
    assert [m.content for m in saved] == ["uno", "Hello! You said: uno"]
    assert all(m.status is MessageStatus.COMPLETE for m in saved)


async def test_escape_cancels_an_edit(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("x", "enter")
        await wait_idle(pilot)
        await pilot.press("ctrl+o", "up", "e")
        assert screen.editing is not None and screen.prompt.text == "x"
        await pilot.press("escape")
        assert screen.editing is None and screen.prompt.text == ""


async def test_sidebar_opens_another_conversation_stopping_the_stream(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    older = saved_conversation(store, 2)
    chutes_server.script(Reply(stream_of(["partial ", "rest"]), stall_after=2, stall_seconds=600))
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("n", "e", "w", "enter")
        await wait_until(pilot, lambda: screen.message_list.reply is not None
                         and "partial" in screen.message_list.reply.content)
        current = screen.workspace.session.conversation.id
        await pilot.press("ctrl+b")
        sidebar = screen.sidebar
        assert sidebar is not None and sidebar.display
        await wait_until(pilot, lambda: sidebar.option_list.option_count == 2)
        assert sidebar.option_list.get_option_at_index(0).id == current  # newest first
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: screen.workspace.session.conversation.id == older.id)
        await wait_idle(pilot)
        assert [v.message.content for v in screen.query(MessageView)] == ["message 0",
                                                                          "message 1"]
    assert store.get_messages(current)[-1].status is MessageStatus.INTERRUPTED


async def test_command_line_provider_and_model_win_over_the_saved_ones(
        make_app: AppFactory, store: Store) -> None:
    chat = saved_conversation(store, 2)
    app = make_app(conversation=chat.id, provider="sutra")
    async with app.run_test(size=(100, 30)):
        workspace = conversation(app).workspace
        assert (workspace.provider_name, workspace.model) == ("sutra", "sutra-v2")
    app = make_app(continue_last=True, model="x/y")
    async with app.run_test(size=(100, 30)):
        workspace = conversation(app).workspace
        assert (workspace.provider_name, workspace.model) == ("chutes", "x/y")


async def test_a_page_shorter_than_the_view_is_topped_up_with_older_pages(
        make_app: AppFactory, store: Store) -> None:
    chat = saved_conversation(store, PAGE * 3)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 200)) as pilot:  # taller than one page of messages
        messages = conversation(app).message_list
        await wait_until(pilot, lambda: len(messages.query(MessageView)) > PAGE)
        assert messages.query(MessageView)[-1].message.content == f"message {PAGE * 3 - 1}"


async def test_opening_a_search_hit_reveals_the_matching_message(make_app: AppFactory,
                                                                 store: Store) -> None:
    from tui_chat.ui.widgets.conversation_list import ConversationList

    chat = saved_conversation(store, 100)
    target = store.get_messages(chat.id)[5]
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        screen.post_message(ConversationList.ConversationChosen(chat.id, target.id))
        await wait_until(pilot, lambda: screen.message_list.selected == 5)
        shown = [v.message.id for v in screen.query(MessageView)]
        assert target.id in shown
        assert screen.workspace.session.conversation.id == chat.id


async def test_code_blocks_follow_a_light_or_dark_theme(make_app: AppFactory,
                                                       store: Store) -> None:
    chat = saved_conversation(store, 2)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        views = conversation(app).query(MessageView)
        assert {v.code_theme for v in views} == {"tui-chat:tui-chat-dusk"}
        app.theme = "textual-light"
        await wait_until(pilot, lambda: {v.code_theme for v in views}
                         == {"tui-chat:textual-light"})
        syntax = syntax_theme("tui-chat:textual-light")
        assert not isinstance(syntax, str)
        background = syntax.get_background_style().bgcolor
        assert background is not None and background.triplet is not None
        assert Color(*background.triplet).brightness > 0.5  # drawn for a light background
