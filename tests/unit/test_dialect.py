"""Provider dialects: the keys the fast path checks are the keys the full reading uses, and a
dialect's quirks change what the client reads, through a real stream from the fake server."""

from __future__ import annotations

import typing

import msgspec
import pytest

from tests.fakeprovider import DONE, FakeProvider, Reply, chunk, sse
from tui_chat.core import dialect
from tui_chat.core.chunks import ChunkDelta
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.events import ContentDelta, ReasoningDelta, StreamEvent
from tui_chat.core.models import ChatMessage, Role
from tui_chat.core.providers import BUILTIN_PROVIDERS, Provider

DIALECTS = [dialect.OPENAI_COMPATIBLE, dialect.CHUTES, dialect.SUTRA,
            *(spec.dialect for spec in BUILTIN_PROVIDERS.values())]


@pytest.mark.parametrize("spoken", DIALECTS)
def test_every_key_a_dialect_reads_is_one_the_decoder_keeps(spoken: dialect.Dialect) -> None:
    fields = typing.get_type_hints(ChunkDelta)
    assert set(spoken.slow_keys) <= set(fields)


@pytest.mark.parametrize("spoken", DIALECTS)
def test_a_delta_with_any_slow_key_leaves_the_fast_path(spoken: dialect.Dialect) -> None:
    assert spoken.plain({"content": "x"})
    for key in spoken.slow_keys:
        value: object = [{"index": 0}] if key == "tool_calls" else "r"
        assert not spoken.plain(typing.cast(ChunkDelta, {"content": "x", key: value})), key


def client_with(server: FakeProvider, spoken: dialect.Dialect) -> ProviderClient:
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": server.url})
    spec = msgspec.structs.replace(provider.spec, dialect=spoken)
    return ProviderClient(msgspec.structs.replace(provider, spec=spec), "cpk_dialect-0001")


async def read(client: ProviderClient) -> list[StreamEvent]:
    async with client:
        return [e async for e in client.stream_chat("m", [ChatMessage(role=Role.USER,
                                                                      content="hi")])]


async def test_reasoning_comes_from_the_dialects_keys(chutes_server: FakeProvider) -> None:
    frames = [sse(chunk(reasoning="thought ")), sse(chunk("answer")),
              sse(chunk(finish_reason="stop")), DONE]
    chutes_server.script(Reply(frames), Reply(frames))
    both = await read(client_with(chutes_server, dialect.Dialect()))
    only_other = await read(client_with(chutes_server, dialect.Dialect(
        reasoning_keys=("reasoning_content",))))
    assert [e.text for e in both if isinstance(e, ReasoningDelta)] == ["thought "]
    assert not any(isinstance(e, ReasoningDelta) for e in only_other)
    assert [e.text for e in only_other if isinstance(e, ContentDelta)] == ["answer"]


async def test_a_bare_json_line_is_an_error_only_in_a_dialect_that_says_so(
        chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply([sse(chunk("so far ")), b'{"detail": "instance died"}\n',
                                sse(chunk("and more")), sse(chunk(finish_reason="stop")),
                                DONE]))
    events = await read(client_with(chutes_server, dialect.Dialect(bare_json_errors=False)))
    assert "".join(e.text for e in events if isinstance(e, ContentDelta)) == "so far and more"


def test_chutes_speaks_its_own_dialect() -> None:
    assert BUILTIN_PROVIDERS["chutes"].dialect is dialect.CHUTES
    assert isinstance(Settings().resolve_provider("chutes", env={}), Provider)
    assert Settings().resolve_provider("chutes", env={}).spec.dialect is dialect.CHUTES


async def test_a_refusal_of_stream_options_is_remembered_by_the_clients_sharing_it(
        chutes_server: FakeProvider) -> None:
    """Two clients sharing a memory (a workspace's) ask once; a client with its own memory is
    not told (no process-wide state: a test, or another workspace, starts afresh)."""
    chutes_server.reject_stream_options = True
    provider = Settings.model_validate({"providers": {"chutes": {
        "supports_stream_options": True}}}).resolve_provider(
            "chutes", env={"CHUTES_BASE_URL": chutes_server.url})
    shared = dialect.UsageRefusals()
    for refusals in (shared, shared, None):
        chutes_server.script(Reply([sse(chunk("ok")), sse(chunk(finish_reason="stop")), DONE]))
        async with ProviderClient(provider, "cpk_dialect-0002", refusals=refusals) as client:
            [e async for e in client.stream_chat("m", [ChatMessage(role=Role.USER,
                                                                   content="hi")])]
    asked = [("stream_options" in r.body) for r in chutes_server.requests
             if r.path.endswith("/chat/completions")]
    assert asked == [True, False, False, True, False]
