"""ChatSession on conversation trees: failed sends and their retry, what is context, branches
made by regenerate and edit, switching, forks, per-conversation settings and personas."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.client import ProviderClient
from tui_chat.core.errors import UsageError
from tui_chat.core.events import ContentDelta
from tui_chat.core.models import ActivePathChanged, MessageStatus, Parameters, Role
from tui_chat.core.personas import Persona
from tui_chat.core.session import (
    ChatSession,
    ReplyFailed,
    ReplyFinished,
    SessionEvent,
    UserMessageSaved,
)
from tui_chat.core.store import Store

FIXTURE = Path(__file__).parent.parent / "fixtures" / "store-v2.sqlite3"
QUOTA = Reply.error(402, {"detail": {"message": "Quota exceeded."}})


async def drain(events: AsyncIterator[SessionEvent]) -> list[SessionEvent]:
    return [event async for event in events]


def sent(server: FakeProvider) -> list[tuple[str, str]]:
    body = server.requests[-1].body
    assert isinstance(body, dict)
    return [(m["role"], m["content"]) for m in body["messages"]]


def shown(session: ChatSession) -> list[str]:
    return [m.content or f"<{m.status.value}>" for m in session.messages()]


# -- failed sends ---------------------------------------------------------------------------

async def test_retrying_a_failed_send_reuses_the_prompt(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(QUOTA, Reply(stream_of(["answer"])))
    session = ChatSession.start(store, system_prompt="sys")
    failed = await drain(session.send("q", client=client, model="m"))
    assert isinstance(failed[-1], ReplyFailed)
    prompt = failed[0]
    assert isinstance(prompt, UserMessageSaved)
    events = await drain(session.send("q", client=client, model="m"))
    assert events[0] == ActivePathChanged(session.conversation.id, prompt.message.id)
    assert not any(isinstance(e, UserMessageSaved) for e in events)
    assert sent(chutes_server) == [("system", "sys"), ("user", "q")]  # not [.., q, q]
    assert shown(session) == ["q", "answer"]
    # The reply that failed before any token is not a branch: the retry took its place.
    assert store.count_messages(session.conversation.id) == 2


async def test_regenerate_after_a_failure_before_any_token_replaces_it(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(QUOTA, Reply(stream_of(["answer"])))
    session = ChatSession.start(store)
    await drain(session.send("q", client=client, model="m"))
    await drain(session.regenerate(client=client, model="m"))
    assert sent(chutes_server) == [("user", "q")]
    assert shown(session) == ["q", "answer"]
    assert store.count_messages(session.conversation.id) == 2


async def test_a_new_prompt_after_a_failure_follows_it_and_the_failed_turn_is_not_sent(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(QUOTA, Reply(stream_of(["answer"])))
    session = ChatSession.start(store)
    await drain(session.send("q", client=client, model="m"))
    await drain(session.send("another question", client=client, model="m"))
    # The failed turn is left out whole: two user turns in a row are refused by strict models.
    assert sent(chutes_server) == [("user", "another question")]
    assert shown(session) == ["q", "<error>", "another question", "answer"]


async def test_a_reply_cut_off_mid_way_is_kept_but_not_context(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["half ", "of it", "x"]), drop_after=3),
                         Reply(stream_of(["next"])))
    session = ChatSession.start(store)
    await drain(session.send("q", client=client, model="m"))
    await drain(session.send("q2", client=client, model="m"))
    assert sent(chutes_server) == [("user", "q2")]  # q's turn is left out whole
    partial = session.messages()[1]
    assert (partial.content, partial.status) == ("half of it", MessageStatus.INTERRUPTED)
    assert not partial.partial_in_context


async def test_continuing_from_a_cut_off_reply_on_purpose_makes_it_context(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["half ", "of it", "x"]), drop_after=3),
                         Reply(stream_of(["rest"])), Reply(stream_of(["more"])))
    session = ChatSession.start(store)
    await drain(session.send("q", client=client, model="m"))
    await drain(session.send("go on", client=client, model="m", continue_partial=True))
    assert sent(chutes_server) == [("user", "q"), ("assistant", "half of it"),
                                   ("user", "go on")]
    await drain(session.send("and then?", client=client, model="m"))
    assert ("assistant", "half of it") in sent(chutes_server)  # it stays context


async def test_retrying_after_a_cut_off_reply_keeps_it_as_a_branch(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["half ", "of it", "x"]), drop_after=3),
                         Reply(stream_of(["whole"])))
    session = ChatSession.start(store)
    await drain(session.send("q", client=client, model="m"))
    cut = session.messages()[1]
    await drain(session.send("q", client=client, model="m"))
    assert sent(chutes_server) == [("user", "q")]
    assert shown(session) == ["q", "whole"]
    assert session.siblings(cut.id).count == 2  # it had text: it stays, as a branch


async def test_a_reply_the_user_stopped_stays_context(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of([f"t{i} " for i in range(200)]), stall_after=10),
                         Reply(stream_of(["ok"])))
    session = ChatSession.start(store)
    events = session.send("long one", client=client, model="m")
    async for event in events:
        if isinstance(event, ContentDelta) and "t2" in event.text:
            break
    await events.aclose()
    stopped = session.messages()[-1]
    assert stopped.status is MessageStatus.INTERRUPTED and stopped.partial_in_context
    assert chutes_server.wait_for_idle()
    await drain(session.send("shorter please", client=client, model="m"))
    assert sent(chutes_server) == [("user", "long one"), ("assistant", "t0 t1 t2 "),
                                   ("user", "shorter please")]


async def test_cancelling_mid_reply_is_a_stop_by_the_user(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of([f"t{i} " for i in range(200)]), stall_after=10))
    session = ChatSession.start(store)
    got_text = asyncio.Event()

    async def consume() -> None:
        async for event in session.send("q", client=client, model="m"):
            if isinstance(event, ContentDelta):
                got_text.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_text.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert session.messages()[-1].partial_in_context


async def test_a_store_from_before_trees_sends_no_duplicate_or_failed_context(
        tmp_path: Path, client: ProviderClient, chutes_server: FakeProvider) -> None:
    path = tmp_path / "old.sqlite3"
    shutil.copy(FIXTURE, path)
    with Store.open(path) as old:
        session = ChatSession.resume(old, "c2" + "0" * 30)
        assert [(m.role.value, m.content) for m in session.history()] == [
            ("user", "q"), ("assistant", "answer"), ("user", "longer"),
            ("assistant", "stopped text"), ("user", "last")]


# -- branches -------------------------------------------------------------------------------

async def test_each_regenerate_adds_one_more_sibling(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(*(Reply(stream_of([f"A{i}"])) for i in range(3)))
    session = ChatSession.start(store)
    await drain(session.send("Q", client=client, model="m"))
    await drain(session.regenerate(client=client, model="m"))
    await drain(session.regenerate(client=client, model="m"))
    last = session.messages()[-1]
    siblings = session.siblings(last.id)
    assert (siblings.position, siblings.count, last.content) == (3, 3, "A2")
    session.switch_sibling(last.id, -2)
    assert shown(session) == ["Q", "A0"]


async def test_regenerating_an_earlier_reply_branches_there(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(*(Reply(stream_of([f"A{i}"])) for i in range(3)))
    session = ChatSession.start(store)
    await drain(session.send("Q0", client=client, model="m"))
    await drain(session.send("Q1", client=client, model="m"))
    first_reply = session.messages()[1]
    events = await drain(session.regenerate(client=client, model="m2",
                                            reply_id=first_reply.id))
    assert events[0] == ActivePathChanged(session.conversation.id, first_reply.parent_id)
    assert sent(chutes_server) == [("user", "Q0")]
    assert shown(session) == ["Q0", "A2"]
    session.activate(first_reply.id)
    assert shown(session) == ["Q0", "A0", "Q1", "A1"]  # the later exchange is still there


async def test_editing_the_first_message_adds_a_second_root(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["A0"])), Reply(stream_of(["B0"])))
    session = ChatSession.start(store)
    await drain(session.send("Q0", client=client, model="m"))
    root = session.messages()[0]
    events = await drain(session.edit_and_resend(root.id, "Q0 better", client=client,
                                                 model="m"))
    assert events[0] == ActivePathChanged(session.conversation.id, None)
    assert shown(session) == ["Q0 better", "B0"]
    assert sent(chutes_server) == [("user", "Q0 better")]
    assert session.siblings(root.id).count == 2


async def test_sending_after_a_switch_continues_the_branch_shown(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(*(Reply(stream_of([f"A{i}"])) for i in range(3)))
    session = ChatSession.start(store)
    await drain(session.send("Q", client=client, model="m"))
    await drain(session.regenerate(client=client, model="m"))
    session.switch_sibling(session.messages()[-1].id, -1)
    await drain(session.send("follow-up", client=client, model="m"))
    assert sent(chutes_server) == [("user", "Q"), ("assistant", "A0"), ("user", "follow-up")]


async def test_deleting_a_branch_shows_the_one_before(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(*(Reply(stream_of([f"A{i}"])) for i in range(2)))
    session = ChatSession.start(store)
    await drain(session.send("Q", client=client, model="m"))
    await drain(session.regenerate(client=client, model="m"))
    newest = session.messages()[-1]
    change = session.delete(newest.id)
    assert change == ActivePathChanged(session.conversation.id, newest.parent_id)
    assert shown(session) == ["Q", "A0"]


async def test_a_fork_continues_on_its_own(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(*(Reply(stream_of([f"A{i}"])) for i in range(3)))
    session = ChatSession.start(store, system_prompt="sys")
    await drain(session.send("Q0", client=client, model="m"))
    await drain(session.send("Q1", client=client, model="m"))
    fork = session.fork(session.messages()[1].id)
    assert fork.conversation.forked_from == session.conversation.id
    await drain(fork.send("elsewhere", client=client, model="m"))
    assert sent(chutes_server) == [("system", "sys"), ("user", "Q0"), ("assistant", "A0"),
                                   ("user", "elsewhere")]
    assert shown(session) == ["Q0", "A0", "Q1", "A1"]


async def test_only_messages_of_this_conversation_are_regenerated(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["A"])), Reply(stream_of(["B"])))
    one, other = ChatSession.start(store), ChatSession.start(store)
    await drain(one.send("Q", client=client, model="m"))
    await drain(other.send("R", client=client, model="m"))
    with pytest.raises(UsageError, match="not part of this conversation"):
        await drain(one.regenerate(client=client, model="m",
                                   reply_id=other.messages()[-1].id))


# -- settings and personas -------------------------------------------------------------

async def test_the_conversations_own_settings_apply_to_its_next_request(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["A"])), Reply(stream_of(["B"])))
    session = ChatSession.start(store)
    await drain(session.send("Q", client=client, model="m"))
    session.set_system_prompt("Answer in Hindi")
    session.set_parameters(Parameters(temperature=0.1, max_tokens=50))
    again = ChatSession.resume(store, session.conversation.id)
    await drain(again.send("Q2", client=client, model="m"))
    body: Any = chutes_server.requests[-1].body
    assert body["messages"][0] == {"role": "system", "content": "Answer in Hindi"}
    assert (body["temperature"], body["max_tokens"]) == (0.1, 50)


def test_a_persona_sets_the_prompt_and_its_parameters_over_the_conversations(
        store: Store) -> None:
    session = ChatSession.start(store, parameters=Parameters(temperature=0.9, max_tokens=99))
    session.apply_persona(Persona(name="t", system_prompt="You translate.",
                                  parameters=Parameters(temperature=0.2)))
    assert session.conversation.system_prompt == "You translate."
    assert session.conversation.parameters == Parameters(temperature=0.2, max_tokens=99)


async def test_history_until_a_prompt_is_its_own_path(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    chutes_server.script(*(Reply(stream_of([f"A{i}"])) for i in range(2)))
    session = ChatSession.start(store)
    await drain(session.send("Q0", client=client, model="m"))
    await drain(session.send("Q1", client=client, model="m"))
    first = session.messages()[0]
    assert [(m.role, m.content) for m in session.history(first.id)] == [(Role.USER, "Q0")]


async def test_another_writer_between_prompt_and_reply_makes_no_branch(
        store: Store, client: ProviderClient, chutes_server: FakeProvider) -> None:
    """Two tui-chat processes on one conversation: a prompt appended by the other while ours is
    saved comes after our reply, not between our prompt and it."""
    chutes_server.script(Reply(stream_of(["mine"])), Reply(stream_of(["theirs"])))
    ours = ChatSession.start(store)
    await drain(ours.send("first", client=client, model="m"))
    chutes_server.script(Reply(stream_of(["ours again"])))
    with Store.open(store.path) as elsewhere:
        theirs = ChatSession.resume(elsewhere, ours.conversation.id)
        events = ours.send("ours", client=client, model="m")
        async for event in events:
            if isinstance(event, UserMessageSaved):
                await drain(theirs.send("theirs", client=client, model="m"))
                break
        rest = [event async for event in events]
    assert isinstance(rest[-1], ReplyFinished)
    assert [(m.role.value, m.parent_id is not None) for m in ours.messages()] == [
        ("user", False), ("assistant", True), ("user", True), ("assistant", True),
        ("user", True), ("assistant", True)]
    assert [m.content for m in ours.messages()][2:4] == ["ours", "ours again"]
    assert store.count_messages(ours.conversation.id) == 6
