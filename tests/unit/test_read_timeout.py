"""Issue 12, Network: the read timeout bounds the gap between events, not bytes. A server that
drips bytes (or keep-alive comments) hits it; a long event that arrives steadily does not.
The rule is in tui_chat/core/watchdog.py.

A stream that must time out is held before its end (the fake provider's gate, never opened):
it cannot finish first however slow the machine. The one that must not time out
(`a_long_event_that_arrives_steadily`) depends on the server thread writing 8 KiB every
10 ms within the 0.25 s read timeout: 25 times the margin, and the one timing left here,
because the watchdog measures the event loop's own clock (see the note in the test)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from tests.fakeprovider import FakeProvider, Reply, chunk, sse, stream_of
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings, Timeouts
from tui_chat.core.errors import StreamTimeoutError
from tui_chat.core.events import ContentDelta, StreamDone, StreamEvent
from tui_chat.core.models import ChatMessage, Role
from tui_chat.core.watchdog import PROGRESS_BYTES

HELLO = [ChatMessage(role=Role.USER, content="hello")]
SAFETY = 60.0  # seconds: only so that the old behaviour (held forever) fails, not hangs
NEVER = threading.Event()  # a gate never opened: the stream is held there until the end


def held_at_end(frames: list[bytes], **options: Any) -> Reply:
    """`frames` sent as `options` say, but the last one held back for good."""
    return Reply(frames, gate=NEVER, gate_after=len(frames) - 1, **options)


def client_for(server: FakeProvider, read: float) -> ProviderClient:
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": server.url})
    return ProviderClient(provider, "test-key-read-timeout", timeouts=Timeouts(read=read),
                          max_retries=0)


async def stream(server: FakeProvider, read: float
                 ) -> tuple[list[StreamEvent], BaseException | None]:
    events: list[StreamEvent] = []
    async with client_for(server, read) as client:
        try:
            async with asyncio.timeout(SAFETY):
                async for event in client.stream_chat("m", HELLO):
                    events.append(event)
        except StreamTimeoutError as error:
            return events, error
    return events, None


def text_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ContentDelta))


async def test_a_server_dripping_bytes_hits_the_timeout(chutes_server: FakeProvider) -> None:
    chutes_server.script(held_at_end(stream_of(["one ", "two ", "three"]), pieces_after=2,
                                     piece_size=1, piece_delay=0.02))
    events, error = await stream(chutes_server, read=0.3)
    assert error is not None, "the drip held the stream"
    assert "trickle" in error.message and "0.3 seconds" in error.message
    assert text_of(events) == "one "  # what arrived whole is kept
    assert chutes_server.wait_for_idle()  # and the connection was closed


async def test_keep_alive_comments_are_not_events(chutes_server: FakeProvider) -> None:
    pings = [b": keep-alive\n\n"] * 200
    frames = stream_of(["a"], done=False, finish_reason=None, usage=False)
    chutes_server.script(held_at_end([*frames, *pings, sse(chunk(finish_reason="stop"))],
                                     delay=0.03))
    events, error = await stream(chutes_server, read=0.3)
    assert error is not None and text_of(events) == "a"


async def test_a_long_event_that_arrives_steadily_is_fine(chutes_server: FakeProvider) -> None:
    """One 600 KiB event in 8 KiB writes 10 ms apart: it takes several read timeouts to
    arrive, but each timeout's worth of waiting brings far more than PROGRESS_BYTES."""
    big = "y" * (600 * 1024)
    chutes_server.script(Reply(stream_of([big, "!"]), pieces_after=1, piece_size=8192,
                               piece_delay=0.01))
    events, error = await stream(chutes_server, read=0.25)
    assert error is None
    assert text_of(events) == big + "!" and isinstance(events[-1], StreamDone)


async def test_a_long_event_that_crawls_hits_the_timeout(chutes_server: FakeProvider) -> None:
    """The same event at 1 KiB every 50 ms: under PROGRESS_BYTES per 0.25 s of waiting."""
    assert PROGRESS_BYTES > 1024 * 0.25 / 0.05
    big = "z" * (100 * 1024)
    chutes_server.script(held_at_end(stream_of(["start ", big]), pieces_after=2,
                                     piece_size=1024, piece_delay=0.05))
    events, error = await stream(chutes_server, read=0.25)
    assert error is not None and "trickle" in error.message
    assert text_of(events) == "start "


async def test_silence_still_says_the_provider_stopped(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["one ", "two"]), stall_after=2))
    events, error = await stream(chutes_server, read=0.2)
    assert error is not None and "stopped sending for 0.2 seconds" in error.message
    assert text_of(events) == "one "
