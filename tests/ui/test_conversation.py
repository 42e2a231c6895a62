"""Pilot tests of sending, streaming, stopping and failing, against the loopback provider."""

from __future__ import annotations

import threading

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import (
    AppFactory,
    conversation,
    record_notifications,
    rendered_text,
    wait_idle,
    wait_until,
)
from tui_chat.core.models import MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.ui.widgets.message_view import MessageView
from tui_chat.ui.widgets.prompt_input import PromptInput
from tui_chat.ui.widgets.reply_view import ReplyView
from tui_chat.ui.widgets.status_bar import StatusBar

WORDS = [f"word{i} " for i in range(200)]


async def test_send_streams_reply_and_saves_it(make_app: AppFactory, store: Store,
                                               chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["Hello", " **there**", "\n\n```python\nx = 1\n```"])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"hi", "enter")
        await wait_idle(pilot)
        views = app.screen.query(MessageView)
        assert [v.message.role for v in views] == [Role.USER, Role.ASSISTANT]
        reply = views[1].message
        assert reply.content == "Hello **there**\n\n```python\nx = 1\n```"
        assert reply.model == "deepseek-ai/DeepSeek-V3-0324" and reply.provider == "chutes"
        assert not app.screen.query(ReplyView)  # the live view became one widget
        assert app.screen.query_one(PromptInput).text == ""
        info = app.screen.query_one(StatusBar).info
        assert info.state == "ready" and info.usage is not None
        assert info.usage.completion_tokens == 34 and info.time_to_first_token is not None
    assert chutes_server.requests[-1].body["messages"][-1] == {"role": "user", "content": "hi"}
    saved_conversation = store.latest_conversation()
    assert saved_conversation is not None and saved_conversation.title == "hi"
    saved = store.get_messages(saved_conversation.id)
    assert [m.status for m in saved] == [MessageStatus.COMPLETE, MessageStatus.COMPLETE]
    assert saved[1].content == reply.content


async def test_reasoning_streams_into_thinking_block_collapsed_when_answer_starts(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    pieces = ["<think>", "let me ", "think", "</think>", "\n\nThe answer", " is 4."]
    thought = threading.Event()  # the answer is held back until the thinking was seen
    answered = threading.Event()  # and its end until its start was seen in the live view
    chutes_server.script(Reply(stream_of(pieces), gate=thought, gate_after=5,
                               gates=[(6, answered)]))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("q", "enter")
        screen = conversation(app)
        await wait_until(pilot, lambda: bool(screen.query(ReplyView))
                         and "let me think" in rendered_text(screen.query_one(ReplyView)))
        live = screen.query_one(ReplyView)
        assert "▼ Thinking" in rendered_text(live)
        thought.set()
        await wait_until(pilot, lambda: "The answer" in rendered_text(live))
        shown = rendered_text(live)
        assert "▶ Thinking (3 words)" in shown and "let me think" not in shown
        answered.set()
        await wait_idle(pilot)
        reply = screen.query(MessageView)[-1].message
        assert reply.reasoning == "let me think" and reply.content == "The answer is 4."


async def test_escape_stops_stream_and_keeps_partial_reply_saved_as_interrupted(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    # Five frames (role + word0..word3), then the server holds the stream open.
    chutes_server.script(Reply(stream_of(WORDS), stall_after=5, stall_seconds=600))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("g", "o", "enter")
        screen = conversation(app)
        await wait_until(pilot, lambda: bool(screen.query(ReplyView))
                         and "word3" in screen.query_one(ReplyView).content)
        await pilot.press("escape")
        await wait_idle(pilot)
        reply = screen.query(MessageView)[-1].message
        assert reply.status is MessageStatus.INTERRUPTED
        assert reply.content == "word0 word1 word2 word3 "
        assert screen.prompt.text == ""  # text arrived: the prompt is not given back
        assert screen.status.info.state == "stopped"
    saved = store.get_messages(reply.conversation_id)
    assert saved[-1].status is MessageStatus.INTERRUPTED and saved[-1].content == reply.content


async def test_error_before_first_token_restores_prompt_and_says_it_inline(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply.error(401, {"detail": "Invalid token [bold]x[/]."}))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        notes = record_notifications(app)
        await pilot.press(*"my question", "enter")
        await wait_idle(pilot)
        screen = conversation(app)
        assert screen.prompt.text == "my question"
        # The failed reply says it, with the advice, on its own row; no toast repeats it.
        assert [text for severity, text in notes if severity == "error"] == []
        failed = screen.query(MessageView)[-1]
        error = failed.message.error or ""
        assert "rejected the API key" in error and "Settings (F3)" in error
        assert "[bold]x[/]" in error  # provider text shown literally
        assert "Check the key in Settings" in " ".join(rendered_text(failed).split())
        assert failed.message.status is MessageStatus.ERROR
        assert failed.has_class("-failed")


async def test_error_after_first_token_keeps_partial_reply(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(WORDS[:20]), drop_after=6))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        notes = record_notifications(app)
        await pilot.press(*"tell me", "enter")
        await wait_idle(pilot)
        screen = conversation(app)
        reply = screen.query(MessageView)[-1].message
        assert reply.status is MessageStatus.INTERRUPTED
        assert reply.content == "word0 word1 word2 word3 word4 "
        assert reply.error and "kept" in reply.error
        assert screen.prompt.text == ""
        assert [s for s, _ in notes].count("error") == 0  # said inline, not in a toast
    assert store.get_message(reply.id).content == reply.content


async def test_second_prompt_while_streaming_is_refused_not_lost(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(WORDS), stall_after=5, stall_seconds=600))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        notes = record_notifications(app)
        await pilot.press("a", "enter")
        screen = conversation(app)
        await wait_until(pilot, lambda: bool(screen.query(ReplyView))
                         and "word1" in screen.query_one(ReplyView).content)
        await pilot.press("b", "enter")
        assert screen.prompt.text == "b"
        assert any("still streaming" in text for _, text in notes)
        await pilot.press("escape")
        await wait_idle(pilot)
        assert len(chutes_server.requests) == 1


async def test_prompt_keys_newline_and_recall(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("a", "ctrl+j", "b")
        assert screen.prompt.text == "a\nb"
        await pilot.press("enter")
        await wait_idle(pilot)
        assert screen.prompt.text == ""
        await pilot.press("up")
        assert screen.prompt.text == "a\nb"
        await pilot.press("down")
        assert screen.prompt.text == ""


async def test_alt_enter_inserts_a_new_line_as_in_other_chat_clients(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("a", "alt+enter", "b", "shift+enter", "c")
        assert screen.prompt.text == "a\nb\nc"
        await wait_idle(pilot)
        assert screen.prompt.text == "a\nb\nc" and chutes_server.requests == []


async def test_escape_before_the_first_token_gives_the_prompt_back(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["late"]), gate=threading.Event()))  # held
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press(*"are you there", "enter")
        await wait_until(pilot, lambda: screen.status.info.state.startswith("waiting"))
        await pilot.press("escape")
        await wait_idle(pilot)
        assert screen.prompt.text == "are you there"
        assert screen.status.info.state == "stopped"
        assert screen.query(MessageView)[-1].message.status is MessageStatus.INTERRUPTED
