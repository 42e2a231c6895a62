"""Hostile and broken streams: the client never crashes and never loses text it already had."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.fakeprovider import FakeProvider, Reply, chunk, sse, stream_of
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.errors import ProtocolError, TuiChatError
from tui_chat.core.events import ContentDelta, StreamDone, StreamEvent
from tui_chat.core.models import ChatMessage, Role

HELLO = [ChatMessage(role=Role.USER, content="hi")]


async def run_parser(pieces: list[bytes]) -> tuple[str, BaseException | None, list[StreamEvent]]:
    async def body() -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece

    provider = Settings().resolve_provider("chutes", env={})
    events: list[StreamEvent] = []
    failure: BaseException | None = None
    async with ProviderClient(provider, None) as client:
        try:
            async for event in client.parse_stream(body()):
                events.append(event)
        except Exception as error:  # the assertion below says which kinds are allowed
            failure = error
    return "".join(e.text for e in events if isinstance(e, ContentDelta)), failure, events


def split_at(raw: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(raw) + 1) for c in cuts})
    return [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=True)]


words = st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=15)
garbage = st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)),
                  max_size=40)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(pieces=words, cuts=st.lists(st.integers(0, 100_000), max_size=25),
       junk=st.lists(st.tuples(st.integers(0, 100), garbage), max_size=4))
@pytest.mark.slow
def test_garbage_and_random_splits_never_crash_or_lose_text(
    pieces: list[str], cuts: list[int], junk: list[tuple[int, str]]
) -> None:
    # A reply that opens with a reasoning tag is reasoning, not answer text: the reasoning
    # splitter's own tests cover it (hypothesis once found `<think>` here).
    assume(not "".join(pieces).lstrip().startswith("<think"))
    frames = stream_of(pieces)
    first_junk = len(frames)
    for position, line in sorted(junk, reverse=True):
        index = 1 + position % len(frames)  # after the opening chunk
        frames.insert(index, line.encode() + b"\n")
        first_junk = min(first_junk, index)
    text, failure, _ = asyncio.run(run_parser(split_at(b"".join(frames), cuts)))
    full = "".join(pieces)
    before_junk = "".join(pieces[: max(0, first_junk - 1)])
    assert failure is None or isinstance(failure, TuiChatError), repr(failure)
    assert full.startswith(text) and text.startswith(before_junk)
    if failure is None:
        assert text == full


async def test_bytes_that_are_not_utf8_do_not_break_the_stream() -> None:
    frames = [sse(chunk("ok ")), b'data: {"choices":[{"delta":{"content":"bad \xff\xfe"}}]}\n\n',
              sse(chunk(finish_reason="stop")), b"data: [DONE]\n\n"]
    text, failure, _ = await run_parser(frames)
    assert failure is None and text == "ok bad \ufffd\ufffd"


async def test_one_event_of_a_megabyte(chutes_server: FakeProvider) -> None:
    big = "x" * 1_000_000
    chutes_server.script(Reply(stream_of([big, "!"])))
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": chutes_server.url})
    async with ProviderClient(provider, "k") as client:
        text = "".join([e.text async for e in client.stream_chat("m", HELLO)
                        if isinstance(e, ContentDelta)])
    assert text == big + "!"


@pytest.mark.slow
async def test_a_hundred_thousand_chunk_reply() -> None:
    frames = stream_of(["ab"] * 100_000)
    raw = b"".join(frames)
    text, failure, events = await run_parser(split_at(raw, list(range(0, len(raw), 8192))))
    assert failure is None and len(text) == 200_000 and isinstance(events[-1], StreamDone)


async def test_garbage_data_line_is_one_protocol_error() -> None:
    text, failure, _ = await run_parser([sse(chunk("kept")), b"data: <html>oops</html>\n\n"])
    assert text == "kept" and isinstance(failure, ProtocolError)
    assert "kept" in failure.message and "\n" not in failure.message


async def test_unknown_fields_and_comments_are_ignored() -> None:
    frames = [b": ping\n", b"foo: bar\n", b"event: message\n", sse(chunk("fine")),
              b"retry: 10\n\n", sse(chunk(finish_reason="stop")), b"data: [DONE]\n\n"]
    text, failure, _ = await run_parser(frames)
    assert failure is None and text == "fine"


@pytest.mark.parametrize("line", [
    json.dumps({"detail": "Chute failed mid-stream"}),
    json.dumps({"error": {"message": "Chute failed mid-stream"}}),
])
async def test_bare_json_error_lines(line: str) -> None:
    text, failure, _ = await run_parser([sse(chunk("partial")), line.encode() + b"\n"])
    assert text == "partial"
    assert isinstance(failure, TuiChatError) and "mid-stream" in failure.message
