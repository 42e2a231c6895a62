"""Chutes' routing pools (`model="a,b,c"`, `:latency`, `:throughput`): the reply names the
model that answered, from the `x-chutes-chosen-model` header, else the chunks' `model`
(through the fake provider); the pool's `model` string (tui_chat.core.routing)."""

from __future__ import annotations

from pathlib import Path

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.models import Role
from tui_chat.core.session import ChatSession, ReplyFinished
from tui_chat.core.store import Store

POOL = "deepseek-ai/DeepSeek-V3-0324,Qwen/Qwen3-235B-A22B:latency"


async def ask(server: FakeProvider, store: Store, *replies: Reply) -> list[ReplyFinished]:
    server.script(*replies)
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": server.url})
    session = ChatSession.start(store)
    finished = []
    async with ProviderClient(provider, "cpk_test_key_0123456789abcdef") as client:
        for _ in replies:
            events = [e async for e in session.send("hi", client=client, model=POOL)]
            assert isinstance(events[-1], ReplyFinished)
            finished.append(events[-1])
    assert session.conversation.model == POOL  # the next request asks the pool again
    return finished


async def test_the_reply_names_the_model_the_pool_chose(chutes_server: FakeProvider,
                                                        tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.db") as store:
        chosen, unsaid, hostile = await ask(
            chutes_server, store,
            Reply(stream_of(["a"]), headers={"x-chutes-chosen-model": "Qwen/Qwen3-235B-A22B"}),
            Reply(stream_of(["b"], model=POOL)),
            Reply(stream_of(["c"]), headers={"x-chutes-chosen-model": "evil\x1b[2J model"}))
        saved = [m for m in store.get_messages(chosen.message.conversation_id)
                 if m.role == Role.ASSISTANT]
    assert chosen.message.model == "Qwen/Qwen3-235B-A22B"
    assert unsaid.message.model == POOL  # neither header nor chunk says: the name asked for
    assert "\x1b" not in (hostile.message.model or "")
    assert saved[0].model == "Qwen/Qwen3-235B-A22B"
    assert chutes_server.requests[-1].body["model"] == POOL


async def test_without_the_header_the_chunks_model_names_it(chutes_server: FakeProvider,
                                                            tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.db") as store:
        [chunked, hostile] = await ask(
            chutes_server, store, Reply(stream_of(["a"], model="Qwen/Qwen3-235B-A22B")),
            Reply(stream_of(["b"], model="evil\x1b]0;title\x07 model")))
    assert chunked.message.model == "Qwen/Qwen3-235B-A22B"
    assert chunked.message.content == "a"
    assert "\x1b" not in (hostile.message.model or "") and "\x07" not in hostile.message.model


def test_a_pool_is_sent_as_chutes_reads_it() -> None:
    from tui_chat.core.routing import is_pool, next_strategy, parse_pool, pool_model

    assert pool_model(["a/x", "b/y"]) == "a/x,b/y"
    assert pool_model(["a/x", "b/y", "c/z"], "latency") == "a/x,b/y,c/z:latency"
    assert parse_pool("a/x,b/y:throughput") == (["a/x", "b/y"], "throughput")
    assert parse_pool("a/x,b/y") == (["a/x", "b/y"], "failover")
    assert parse_pool("a/x:latency") is None and not is_pool("deepseek-ai/DeepSeek-V3")
    assert [next_strategy("failover"), next_strategy("throughput")] == ["latency", "failover"]
