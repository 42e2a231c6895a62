"""ChatSession against the loopback provider: saving while streaming, failures, cancellation,
history, regenerate and edit-and-resend (branches: see test_session_tree.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.client import ProviderClient
from tui_chat.core.errors import UsageError
from tui_chat.core.events import ContentDelta, ReasoningDelta
from tui_chat.core.models import MessageStatus, Parameters, Role
from tui_chat.core.session import (
    CANCELLED_NOTE,
    NOT_STARTED_NOTE,
    ActivePathChanged,
    ChatSession,
    ReplyFailed,
    ReplyFinished,
    ReplyStarted,
    SessionEvent,
    UserMessageSaved,
    make_title,
)
from tui_chat.core.store import Store


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def drain(events: AsyncIterator[SessionEvent]) -> list[SessionEvent]:
    return [event async for event in events]


def sent_messages(server: FakeProvider) -> list[dict[str, Any]]:
    body = server.requests[-1].body
    assert isinstance(body, dict)
    return list(body["messages"])


async def test_send_saves_prompt_and_reply(store: Store, client: ProviderClient,
                                           chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["Hel", "lo ", "नमस्ते"])))
    session = ChatSession.start(store, system_prompt="Be brief")
    assert not session.is_saved and store.count_conversations() == 0
    events = await drain(session.send("  First line \x1b[2J\nsecond", client=client, model="m1"))
    kinds = [type(e).__name__ for e in events]
    assert kinds[:2] == ["UserMessageSaved", "ReplyStarted"]
    assert kinds[-1] == "ReplyFinished"
    assert [e.text for e in events if isinstance(e, ContentDelta)] == ["Hel", "lo ", "नमस्ते"]
    finished = events[-1]
    assert isinstance(finished, ReplyFinished)
    reply = finished.message
    assert (reply.content, reply.status, reply.finish_reason) == ("Hello नमस्ते",
                                                                 MessageStatus.COMPLETE, "stop")
    assert (reply.provider, reply.model) == ("chutes", "m1")
    assert reply.usage is not None and reply.usage.completion_tokens == 34
    assert reply.time_to_first_token is not None and reply.time_to_first_token >= 0
    assert reply.tokens_per_second is not None and reply.tokens_per_second > 0
    stored = store.get_messages(session.conversation.id)
    assert [m.role for m in stored] == [Role.USER, Role.ASSISTANT]
    assert stored[0].content == "  First line \x1b[2J\nsecond"
    assert stored[1] == reply
    conversation = store.get_conversation(session.conversation.id)
    assert conversation.title == "First line [2J"
    assert (conversation.provider, conversation.model) == ("chutes", "m1")
    assert conversation.system_prompt == "Be brief"
    assert sent_messages(chutes_server)[0] == {"role": "system", "content": "Be brief"}


async def test_reasoning_is_saved_apart(store: Store, client: ProviderClient,
                                        chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["<think>weigh it</think>", "Answer"])))
    events = await drain(ChatSession.start(store).send("q", client=client, model="m"))
    assert any(isinstance(e, ReasoningDelta) for e in events)
    finished = events[-1]
    assert isinstance(finished, ReplyFinished)
    assert (finished.message.reasoning, finished.message.content) == ("weigh it", "Answer")


async def test_partial_reply_is_flushed_once_a_second(store: Store, client: ProviderClient,
                                                      chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of([f"w{i} " for i in range(8)])))
    clock = Clock()
    session = ChatSession.start(store, clock=clock)
    reply_id, received, flushed_after = "", "", []
    async for event in session.send("go", client=client, model="m"):
        if isinstance(event, ReplyStarted):
            reply_id = event.message.id
        if isinstance(event, ContentDelta):
            received += event.text
            # The flush happens before the event is handed on: the store already has it.
            flushed_after.append(store.get_message(reply_id).content == received)
            assert store.get_message(reply_id).status == MessageStatus.STREAMING
        clock.now += 1.0  # a second passes between two events
    assert flushed_after and all(flushed_after)


async def test_no_flush_before_a_second_has_passed(store: Store, client: ProviderClient,
                                                   chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of([f"w{i} " for i in range(8)])))
    clock = Clock()
    session = ChatSession.start(store, clock=clock)
    reply_id, seen, received = "", [], []
    async for event in session.send("go", client=client, model="m"):
        if isinstance(event, ReplyStarted):
            reply_id = event.message.id
        if isinstance(event, ContentDelta):
            received.append(("".join(received[-1:]) if received else "") + event.text)
            seen.append(store.get_message(reply_id).content)
        clock.now += 0.3
    # 0.3 s per event: a flush every fourth event or so. The store lags behind what arrived,
    # never runs ahead of it, and is written several times during the reply.
    assert all(text.startswith(stored) for text, stored in zip(received, seen, strict=True))
    assert seen[0] == "" and seen.count("") >= 2
    assert 2 <= len(set(seen) - {""}) < len(seen) - 2
    assert store.get_message(reply_id).content == received[-1]


async def test_cancelling_saves_the_partial_reply_as_interrupted(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    # Mid-reply is a state, not a time: nine tokens, then the server holds the stream open.
    chutes_server.script(Reply(stream_of([f"t{i} " for i in range(200)]), stall_after=10))
    session = ChatSession.start(store)
    got_all_sent = asyncio.Event()

    async def consume() -> None:
        async for event in session.send("long one", client=client, model="m"):
            if isinstance(event, ContentDelta) and "t8" in event.text:
                got_all_sent.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_all_sent.wait(), 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    reply = store.get_messages(session.conversation.id)[-1]
    assert reply.status == MessageStatus.INTERRUPTED
    assert reply.content == "".join(f"t{i} " for i in range(9))
    assert reply.error == CANCELLED_NOTE
    assert chutes_server.wait_for_idle()


async def test_closing_the_iterator_saves_the_partial_reply(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of([f"t{i} " for i in range(100)]), delay=0.01))
    session = ChatSession.start(store)
    events = session.send("q", client=client, model="m")
    async for event in events:
        if isinstance(event, ContentDelta) and "t2" in event.text:
            break
    await events.aclose()
    reply = store.get_messages(session.conversation.id)[-1]
    assert reply.status == MessageStatus.INTERRUPTED
    assert reply.content == "t0 t1 t2 "
    assert chutes_server.wait_for_idle()


async def test_failure_before_any_text_is_saved_as_error(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply.error(402, {"detail": {"message": "Quota exceeded."}}))
    session = ChatSession.start(store)
    events = await drain(session.send("q", client=client, model="m"))
    failed = events[-1]
    assert isinstance(failed, ReplyFailed)
    assert failed.message.status == MessageStatus.ERROR
    assert failed.message.error == failed.error.message and "402" in failed.error.message
    assert store.get_messages(session.conversation.id)[-1] == failed.message


async def test_failure_mid_stream_keeps_the_text_as_interrupted(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of([f"w{i} " for i in range(20)]), drop_after=6))
    session = ChatSession.start(store)
    events = await drain(session.send("q", client=client, model="m"))
    failed = events[-1]
    assert isinstance(failed, ReplyFailed)
    assert failed.message.status == MessageStatus.INTERRUPTED
    assert failed.message.content == "w0 w1 w2 w3 w4 "
    assert store.get_messages(session.conversation.id)[-1].content == "w0 w1 w2 w3 w4 "


async def test_history_leaves_out_failed_and_cut_off_replies(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["one"])),
                         Reply.error(500, {"error": {"message": "boom"}}),
                         Reply(stream_of(["par", "tial", "x"]), drop_after=3),
                         Reply(stream_of(["four"])))
    session = ChatSession.start(store, system_prompt="sys")
    for prompt in ("p1", "p2", "p3", "p4"):
        await drain(session.send(prompt, client=client, model="m"))
    assert sent_messages(chutes_server) == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "p1"}, {"role": "assistant", "content": "one"},
        # p2 failed and p3 was cut off: each turn is left out whole, so the roles alternate.
        {"role": "user", "content": "p4"},
    ]
    shown = [(m.content, m.status) for m in session.messages()]
    assert ("partial", MessageStatus.INTERRUPTED) in shown  # kept and shown, not sent
    assert len(shown) == 8


async def test_resume_continues_with_the_saved_history(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["A1"])), Reply(stream_of(["A2"])))
    first = ChatSession.start(store)
    await drain(first.send("Q1", client=client, model="m"))
    again = ChatSession.resume(store, first.conversation.id)
    await drain(again.send("Q2", client=client, model="m",
                           parameters=Parameters(temperature=0.1)))
    assert [m["content"] for m in sent_messages(chutes_server)] == ["Q1", "A1", "Q2"]
    body = chutes_server.requests[-1].body
    assert isinstance(body, dict) and body["temperature"] == 0.1
    assert store.get_conversation(first.conversation.id).parameters.temperature == 0.1
    assert store.count_messages(first.conversation.id) == 4


async def test_regenerate_adds_a_sibling_reply_from_another_model(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["first answer"])), Reply(stream_of(["second"])))
    session = ChatSession.start(store)
    events = await drain(session.send("Q", client=client, model="m1"))
    old_reply = events[-1]
    assert isinstance(old_reply, ReplyFinished)
    prompt_id = old_reply.message.parent_id
    events = await drain(session.regenerate(client=client, model="m2"))
    assert events[0] == ActivePathChanged(session.conversation.id, prompt_id)
    assert not any(isinstance(e, UserMessageSaved) for e in events)
    stored = store.get_messages(session.conversation.id)
    assert [(m.role, m.content, m.model) for m in stored] == [
        (Role.USER, "Q", None), (Role.ASSISTANT, "second", "m2")]
    assert [m["content"] for m in sent_messages(chutes_server)] == ["Q"]
    assert store.get_conversation(session.conversation.id).model == "m2"
    siblings = session.siblings(stored[1].id)
    assert (siblings.ids, siblings.position) == ((old_reply.message.id, stored[1].id), 2)
    assert store.get_message(old_reply.message.id).content == "first answer"


async def test_regenerate_needs_a_prompt(store: Store, client: ProviderClient) -> None:
    with pytest.raises(UsageError, match="nothing to regenerate"):
        await drain(ChatSession.start(store).regenerate(client=client, model="m"))


async def test_edit_and_resend_keeps_the_old_branch(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(*(Reply(stream_of([f"A{i}"])) for i in range(3)))
    session = ChatSession.start(store)
    await drain(session.send("Q0", client=client, model="m"))
    await drain(session.send("Q1", client=client, model="m"))
    before = store.get_messages(session.conversation.id)
    to_edit = before[2]
    events = await drain(session.edit_and_resend(to_edit.id, "Q1 edited", client=client,
                                                 model="m"))
    assert events[0] == ActivePathChanged(session.conversation.id, before[1].id)
    assert isinstance(events[1], UserMessageSaved) and events[1].message.content == "Q1 edited"
    assert [m.content for m in store.get_messages(session.conversation.id)] == [
        "Q0", "A0", "Q1 edited", "A2"]
    assert [m["content"] for m in sent_messages(chutes_server)] == ["Q0", "A0", "Q1 edited"]
    assert store.count_messages(session.conversation.id) == 6  # nothing was deleted
    back = session.switch_sibling(events[1].message.id, -1)
    assert back == ActivePathChanged(session.conversation.id, before[1].id)
    assert store.get_messages(session.conversation.id) == before


async def test_only_own_messages_can_be_edited(store: Store, client: ProviderClient,
                                               chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["A"])))
    session = ChatSession.start(store)
    events = await drain(session.send("Q", client=client, model="m"))
    reply = events[-1]
    assert isinstance(reply, ReplyFinished)
    with pytest.raises(UsageError, match="Only your own messages"):
        await drain(session.edit_and_resend(reply.message.id, "x", client=client, model="m"))
    assert store.count_messages(session.conversation.id) == 2


async def test_an_empty_prompt_saves_nothing(store: Store, client: ProviderClient) -> None:
    with pytest.raises(UsageError, match="empty"):
        await drain(ChatSession.start(store).send(" \n ", client=client, model="m"))
    assert store.count_conversations() == 0


@pytest.mark.parametrize(("prompt", "title"), [
    ("Hello there", "Hello there"),
    ("\n\n   \n  Second line wins  \nthird", "Second line wins"),
    ("tab\tand  spaces", "tab and spaces"),
    ("\x1b]0;evil\x07 bell", "]0;evil bell"),
    ("x" * 200, "x" * 79 + "…"),
    ("   ", "New conversation"),
])
def test_title_from_first_prompt(prompt: str, title: str) -> None:
    assert make_title(prompt) == title


async def test_stopping_right_after_the_reply_started_saves_it_interrupted(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    session = ChatSession.start(store)
    events = session.send("q", client=client, model="m")
    async for event in events:
        if isinstance(event, ReplyStarted):
            break
    await events.aclose()
    reply = store.get_messages(session.conversation.id)[-1]
    assert reply.role == Role.ASSISTANT and reply.status == MessageStatus.INTERRUPTED
    assert chutes_server.requests == []  # nothing was sent


async def test_a_reply_stopped_before_its_first_token_says_so_and_the_retry_replaces_it(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["again"])))
    session = ChatSession.start(store)
    events = session.send("q", client=client, model="m")
    async for event in events:
        if isinstance(event, ReplyStarted):
            break
    await events.aclose()
    stopped = store.get_messages(session.conversation.id)[-1]
    assert stopped.stopped_before_start and stopped.error == NOT_STARTED_NOTE
    assert [m.role for m in session.history()] == [Role.USER]  # never context
    await drain(session.send("q", client=client, model="m"))
    saved = store.get_messages(session.conversation.id)
    assert [(m.role, m.content) for m in saved] == [(Role.USER, "q"), (Role.ASSISTANT, "again")]
    assert store.siblings(saved[-1].id).count == 1  # it gave its place; not a branch
    assert [m["content"] for m in sent_messages(chutes_server)] == ["q"]


async def test_text_received_before_the_stream_goes_quiet_is_saved_meanwhile(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    """The partial reply is saved while deltas arrive, and also when they stop coming: a
    stream that goes quiet (a stalled provider) must not leave what arrived unsaved until
    its end, or a hard kill meanwhile (SIGKILL, power) loses it."""
    quiet = threading.Event()  # five words, then nothing until the test is done
    chutes_server.script(Reply(stream_of([f"t{i} " for i in range(10)]), gate=quiet,
                               gate_after=6))
    session = ChatSession.start(store, flush_interval=0.05)
    events = session.send("q", client=client, model="m")
    try:
        async for event in events:
            if isinstance(event, ContentDelta) and event.text == "t4 ":
                break
        reply = store.get_messages(session.conversation.id)[-1]

        async def saved() -> None:
            while store.get_message(reply.id).content != "t0 t1 t2 t3 t4 ":  # noqa: ASYNC110
                await asyncio.sleep(0.01)

        async with asyncio.timeout(30):  # a bound for a broken build: it sizes nothing
            await saved()  # with no delta arriving after the last one
        assert store.get_message(reply.id).status is MessageStatus.STREAMING
    finally:
        quiet.set()
        await events.aclose()
