"""Compare: one prompt to a Chutes and a SUTRA model at once, over two loopback providers."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.client import ProviderClient
from tui_chat.core.compare import CompareEvent, CompareTarget, TargetEvent, choose, compare
from tui_chat.core.config import Settings
from tui_chat.core.errors import UsageError
from tui_chat.core.events import ContentDelta
from tui_chat.core.models import ActivePathChanged, MessageStatus, Role
from tui_chat.core.session import (
    ChatSession,
    ReplyFailed,
    ReplyFinished,
    ReplyStarted,
    UserMessageSaved,
)
from tui_chat.core.store import Store

CHUTES_WORDS = [f"c{i} " for i in range(40)]
SUTRA_WORDS = ["नमस्ते ", "दुनिया ", "फिर ", "से ", "x"]


@pytest.fixture
async def targets(chutes_server: FakeProvider, sutra_server: FakeProvider
                  ) -> AsyncIterator[list[CompareTarget]]:
    env = {"CHUTES_BASE_URL": chutes_server.url, "SUTRA_BASE_URL": sutra_server.url}
    settings = Settings()
    async with (ProviderClient(settings.resolve_provider("chutes", env), "cpk_test",
                               max_retries=0) as chutes,
                ProviderClient(settings.resolve_provider("sutra", env), "sutra_test",
                               max_retries=0) as sutra):
        yield [CompareTarget(chutes, "deepseek-ai/DeepSeek-V3-0324"),
               CompareTarget(sutra, "sutra-v2")]


def tagged(events: list[CompareEvent], target: int) -> list[object]:
    return [e.event for e in events if isinstance(e, TargetEvent) and e.target == target]


async def test_one_failing_mid_stream_does_not_stop_the_other(
        store: Store, targets: list[CompareTarget], chutes_server: FakeProvider,
        sutra_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(CHUTES_WORDS), delay=0.01))
    sutra_server.script(Reply(stream_of(SUTRA_WORDS, flavour="sutra"), drop_after=4))
    session = ChatSession.start(store, system_prompt="sys")
    events = [event async for event in compare(session, "q", targets)]
    assert isinstance(events[0], UserMessageSaved)
    prompt = events[0].message
    chutes_end, sutra_end = tagged(events, 0)[-1], tagged(events, 1)[-1]
    assert isinstance(chutes_end, ReplyFinished) and isinstance(sutra_end, ReplyFailed)
    assert chutes_end.message.content == "".join(CHUTES_WORDS)
    assert chutes_end.message.status is MessageStatus.COMPLETE
    assert sutra_end.message.content == "नमस्ते दुनिया फिर "
    assert sutra_end.message.status is MessageStatus.INTERRUPTED
    assert (chutes_end.message.provider, sutra_end.message.provider) == ("chutes", "sutra")
    # Both are replies to the one prompt, saved; each provider was sent the same context.
    siblings = store.siblings(chutes_end.message.id)
    assert set(siblings.ids) == {chutes_end.message.id, sutra_end.message.id}
    assert store.get_message(sutra_end.message.id) == sutra_end.message
    assert {m.parent_id for m in (chutes_end.message, sutra_end.message)} == {prompt.id}
    for server in (chutes_server, sutra_server):
        body = server.requests[-1].body
        assert isinstance(body, dict)
        assert [m["content"] for m in body["messages"]] == ["sys", "q"]
    # The first target is active until another is chosen.
    assert session.messages()[-1].id == chutes_end.message.id
    assert choose(session, sutra_end.message.id) == ActivePathChanged(session.conversation.id,
                                                                      prompt.id)
    assert session.messages()[-1].id == sutra_end.message.id


async def test_cancelling_stops_every_target_and_keeps_their_text(
        store: Store, targets: list[CompareTarget], chutes_server: FakeProvider,
        sutra_server: FakeProvider) -> None:
    # Mid-reply is a state: nine tokens each, then both servers hold their streams open.
    chutes_server.script(Reply(stream_of([f"c{i} " for i in range(300)]), stall_after=10))
    sutra_server.script(Reply(stream_of([f"s{i} " for i in range(300)], flavour="sutra"),
                              stall_after=10))
    session = ChatSession.start(store)
    both_streaming = asyncio.Event()
    started: dict[int, str] = {}

    async def consume() -> None:
        texted: set[int] = set()
        async for event in compare(session, "long", targets):
            if isinstance(event, TargetEvent):
                if isinstance(event.event, ReplyStarted):
                    started[event.target] = event.event.message.id
                if isinstance(event.event, ContentDelta) and "8 " in event.event.text:
                    texted.add(event.target)
                    if texted == {0, 1}:
                        both_streaming.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(both_streaming.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for index, prefix in ((0, "c"), (1, "s")):
        reply = store.get_message(started[index])
        assert reply.status is MessageStatus.INTERRUPTED and reply.partial_in_context
        assert reply.content == "".join(f"{prefix}{i} " for i in range(9))
    assert chutes_server.wait_for_idle() and sutra_server.wait_for_idle()


async def test_every_reply_is_on_disk_while_it_streams(
        store: Store, targets: list[CompareTarget], chutes_server: FakeProvider,
        sutra_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(CHUTES_WORDS)))
    sutra_server.script(Reply(stream_of(SUTRA_WORDS, flavour="sutra")))
    session = ChatSession.start(store, flush_interval=0.0)
    received: dict[int, str] = {0: "", 1: ""}
    replies: dict[int, str] = {}
    async for event in compare(session, "q", targets):
        if isinstance(event, TargetEvent):
            inner = event.event
            if isinstance(inner, ReplyStarted):
                replies[event.target] = inner.message.id
            elif isinstance(inner, ContentDelta):
                received[event.target] += inner.text
                saved = store.get_message(replies[event.target])
                assert saved.status is MessageStatus.STREAMING
                # Saved before it is handed on (the store may be further on: the other
                # target's events were handed on in between).
                assert saved.content.startswith(received[event.target])
    assert [m.role for m in session.messages()] == [Role.USER, Role.ASSISTANT]
    assert store.count_messages(session.conversation.id) == 3


async def test_compare_takes_two_to_four_targets(store: Store,
                                                 targets: list[CompareTarget]) -> None:
    session = ChatSession.start(store)
    with pytest.raises(UsageError, match="2 to 4 models, not 1"):
        [event async for event in compare(session, "q", targets[:1])]
    with pytest.raises(UsageError, match="not 5"):
        [event async for event in compare(session, "q", (targets * 3)[:5])]
    assert store.count_conversations() == 0


async def test_text_waiting_in_the_merge_is_handed_on_joined(
        store: Store, targets: list[CompareTarget], chutes_server: FakeProvider,
        sutra_server: FakeProvider) -> None:
    """Issue 24: whoever reads the merged events pays per event; the deltas of a target that
    wait one after the other are one delta, with the same text."""
    chutes_server.script(Reply(stream_of(CHUTES_WORDS)))
    sutra_server.script(Reply(stream_of(SUTRA_WORDS, flavour="sutra")))
    session = ChatSession.start(store)
    events = aiter(compare(session, "q", targets))
    started: dict[int, str] = {}
    while len(started) < 2:
        event = await anext(events)
        if isinstance(event, TargetEvent) and isinstance(event.event, ReplyStarted):
            started[event.target] = event.event.message.id

    def ended() -> bool:
        return all(store.get_message(m).status is MessageStatus.COMPLETE
                   for m in started.values())

    # Both replies arrive whole and wait in the merge, none read (a state in the store: no
    # event to wait on).
    while not ended():  # noqa: ASYNC110
        await asyncio.sleep(0.01)
    rest = [event async for event in events]
    tagged_rest = [(e.target, type(e.event)) for e in rest if isinstance(e, TargetEvent)]
    assert all(a != b or b[1] is not ContentDelta
               for a, b in itertools.pairwise(tagged_rest))
    for target, words in ((0, CHUTES_WORDS), (1, SUTRA_WORDS)):
        texts = [e.text for e in tagged(rest, target) if isinstance(e, ContentDelta)]
        assert "".join(texts) == "".join(words)
        assert len(texts) < len(words)
