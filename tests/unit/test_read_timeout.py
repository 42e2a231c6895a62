"""Issue 12, Network: the read timeout bounds the gap between events, not bytes. A server that
drips bytes (or keep-alive comments) hits it; a long event that arrives steadily does not; nor
do the consumer's own time and the client's coalescing pauses. The rule is in
tui_chat/core/watchdog.py.

Issue 26: nothing here depends on how fast the machine is. The stream is a `WireOnAClock`: a
network and the time on it, both the test's own, given to the client as its watchdog clock
(and pacing clock), so every wait on the wire, every pause and every timer happens at a time
the test chose, and a timeout is asserted to the second. The one test over the loopback
server (`test_silence_over_the_network_says_the_provider_stopped`) runs on the event loop's
own clock: its stream is held for good, so it must time out whatever the machine's speed."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass

from tests.fakeprovider import FakeProvider, Reply, chunk, sse, stream_of
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings, Timeouts
from tui_chat.core.errors import StreamTimeoutError
from tui_chat.core.events import ContentDelta, StreamDone, StreamEvent
from tui_chat.core.models import ChatMessage, Role
from tui_chat.core.watchdog import PROGRESS_BYTES

GAP = 4.0  # seconds of the test's clock: the read timeout (whole and half seconds are exact)
HELLO = [ChatMessage(role=Role.USER, content="hello")]
SAFETY = 60.0  # real seconds: only so that a broken build fails instead of hanging
NEVER = threading.Event()  # a gate never opened: the stream is held there until the end


@dataclass
class _Timer:
    callback: Callable[[], object]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


class WireOnAClock:
    """A network and its time, both owned by the test (as test_client's TrickleOnAClock).

    `arrivals`: (second, bytes), in order. A read takes whatever has arrived by now, all
    together (as one read of a socket does); with nothing there it waits on the wire: time
    moves on to the next arrival, running each timer that falls due meanwhile at its own
    time, as an event loop would (a timer due at an arrival's very second runs first).
    `held`: after the last arrival the connection stays open and silent for good; time then
    moves from timer to timer, and past `horizon` seconds the test fails (a watchdog that
    never fires) instead of hanging. The client's pauses (`sleep`: the wire is its pacing
    clock too) and the consumer's work (`spend`) move time as well."""

    def __init__(self, arrivals: Iterable[tuple[float, bytes]], *, held: bool = False,
                 horizon: float = 100 * GAP) -> None:
        self.arrivals = deque(arrivals)
        self.held = held
        self.horizon = horizon
        self.now = 0.0
        self.pauses: list[float] = []  # the client's coalescing pauses, in seconds
        self._timers: list[tuple[float, int, _Timer]] = []
        self._armed = itertools.count()

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback: Callable[[], object], /) -> _Timer:
        timer = _Timer(callback)
        heapq.heappush(self._timers, (when, next(self._armed), timer))
        return timer

    async def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        await self.spend(seconds)

    async def spend(self, seconds: float) -> None:
        until = self.now + seconds
        while True:
            self._move_to(until)
            await asyncio.sleep(0)  # a cancellation by a timer lands here, as at any await
            if self.now >= until:
                return

    async def body(self) -> AsyncIterator[bytes]:
        while True:
            taken = []
            while self.arrivals and self.arrivals[0][0] <= self.now:
                taken.append(self.arrivals.popleft()[1])
            if taken:
                yield b"".join(taken)
                continue
            if self.arrivals:
                self._move_to(self.arrivals[0][0])
            elif self.held:
                due = [at for at, _, timer in self._timers if not timer.cancelled]
                assert due and min(due) <= self.horizon, (
                    f"held {self.horizon:g} s and nothing timed out")
                self._move_to(min(due))
            else:
                return
            await asyncio.sleep(0)  # waiting on the wire: a cancellation lands in the read

    def _move_to(self, when: float) -> None:
        """Move time on to `when`, or only to the first timer due by then, which runs: the
        caller then yields to the loop, as a task woken by it would run at its time."""
        while self._timers and self._timers[0][0] <= when:
            at, _, timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                self.now = max(self.now, at)
                timer.callback()
                return
        self.now = max(self.now, when)


def pieces(data: bytes, size: int) -> list[bytes]:
    return [data[start:start + size] for start in range(0, len(data), size)]


def spaced(parts: Iterable[bytes], first: float, every: float) -> list[tuple[float, bytes]]:
    """`parts` arriving at `first`, then one every `every` seconds."""
    return [(first + index * every, part) for index, part in enumerate(parts)]


async def read(wire: WireOnAClock, *, coalesce: float = 0.0, consumer_seconds: float = 0.0,
               ) -> tuple[list[StreamEvent], StreamTimeoutError | None]:
    """The events read from `wire` with a read timeout of GAP, and the timeout if one came
    (`wire.now` is then when it fired). The consumer spends `consumer_seconds` on each."""
    events: list[StreamEvent] = []
    provider = Settings().resolve_provider("chutes", env={})
    async with ProviderClient(provider, None, timeouts=Timeouts(read=GAP), coalesce=coalesce,
                              pacing_clock=wire, watchdog_clock=wire) as client:
        try:
            async with asyncio.timeout(SAFETY):
                async for event in client.parse_stream(wire.body()):
                    events.append(event)
                    if consumer_seconds:
                        await wire.spend(consumer_seconds)
        except StreamTimeoutError as error:
            return events, error
    return events, None


def text_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ContentDelta))


async def test_silence_times_out_exactly_a_read_timeout_after_the_last_event() -> None:
    """Events 3 s apart are fine (under GAP); after the last one the wire is silent, and the
    timeout comes GAP seconds of waiting later: not sooner, not later."""
    frames = stream_of(["one ", "two "])
    wire = WireOnAClock([(0.0, frames[0] + frames[1]), (3.0, frames[2])], held=True)
    events, error = await read(wire)
    assert error is not None and "stopped sending for 4 seconds" in error.message
    assert wire.now == 3.0 + GAP
    assert text_of(events) == "one two "  # what arrived whole is kept


async def test_a_server_dripping_bytes_hits_the_timeout() -> None:
    """A byte a second of an event that never completes: bytes, but no progress."""
    frames = stream_of(["one ", "two ", "three"])
    wire = WireOnAClock([(0.0, frames[0] + frames[1]),
                         *spaced(pieces(b"".join(frames[2:]), 1), first=0.5, every=1.0)],
                        held=True)
    events, error = await read(wire)
    assert error is not None
    assert "trickle" in error.message and "4 seconds" in error.message
    assert wire.now == GAP  # 0.5 + 1 + 1 + 1 s of waiting for bytes, and 0.5 s for the next
    assert text_of(events) == "one "


async def test_keep_alive_comments_are_not_events() -> None:
    frames = stream_of(["a"], done=False, finish_reason=None, usage=False)
    pings = spaced([b": keep-alive\n\n"] * 200, first=0.5, every=1.0)
    wire = WireOnAClock([(0.0, b"".join(frames)), *pings,
                         (1000.0, sse(chunk(finish_reason="stop")))], held=True)
    events, error = await read(wire)
    assert error is not None and "trickle" in error.message
    assert wire.now == GAP and text_of(events) == "a"


async def test_a_long_event_that_arrives_steadily_is_fine() -> None:
    """One 600 KiB event in 8 KiB pieces a second apart: it takes 75 s (many read timeouts)
    to arrive, but each read timeout's worth of waiting brings 32 KiB, twice PROGRESS_BYTES."""
    assert 8 * 1024 * GAP >= 2 * PROGRESS_BYTES
    big = "y" * (600 * 1024)
    first, event, *rest = stream_of([big, "!"])
    wire = WireOnAClock([(0.0, first), *spaced(pieces(event, 8 * 1024), first=1.0, every=1.0)])
    wire.arrivals.append((wire.arrivals[-1][0] + 1.0, b"".join(rest)))
    events, error = await read(wire)
    assert error is None
    assert text_of(events) == big + "!" and isinstance(events[-1], StreamDone)
    assert wire.now > 10 * GAP


async def test_events_each_within_the_timeout_are_fine_however_split() -> None:
    """Every event comes in two halves 1.5 s apart, so each takes 3 s of waiting (under GAP)
    and the stream many times GAP: the wait starts again at each event."""
    words = [f"w{i} " for i in range(10)]
    halves = [half for frame in stream_of(words)
              for half in (frame[:len(frame) // 2], frame[len(frame) // 2:])]
    wire = WireOnAClock(spaced(halves, first=0.0, every=1.5))
    events, error = await read(wire)
    assert error is None
    assert text_of(events) == "".join(words) and isinstance(events[-1], StreamDone)
    assert wire.now > 5 * GAP


async def test_a_long_event_that_crawls_hits_the_timeout() -> None:
    """The same kind of event at 1 KiB every half second: 8 KiB per read timeout of waiting,
    under PROGRESS_BYTES."""
    assert 1024 * GAP / 0.5 < PROGRESS_BYTES
    frames = stream_of(["start ", "z" * (100 * 1024)])
    wire = WireOnAClock([(0.0, frames[0] + frames[1]),
                         *spaced(pieces(frames[2], 1024), first=0.25, every=0.5)], held=True)
    events, error = await read(wire)
    assert error is not None and "trickle" in error.message
    assert wire.now == GAP and text_of(events) == "start "


async def test_a_slow_consumer_is_not_a_stalled_stream() -> None:
    """The consumer spends 10 s (more than GAP) on each event: that is not waiting on the
    wire, so it does not count."""
    wire = WireOnAClock(spaced(stream_of(["a", "b", "c"]), first=0.0, every=1.0))
    events, error = await read(wire, consumer_seconds=10.0)
    assert error is None
    assert text_of(events) == "abc" and isinstance(events[-1], StreamDone)
    assert wire.now >= 3 * 10.0


async def test_coalescing_pauses_do_not_count_as_a_stalled_stream() -> None:
    """Tokens a second apart, read with a 6 s `coalesce`: the client pauses longer than the
    read timeout between reads, and the pauses are not waiting on the wire."""
    words = [f"w{i} " for i in range(20)]
    wire = WireOnAClock(spaced(stream_of(words), first=0.0, every=1.0))
    events, error = await read(wire, coalesce=6.0)
    assert error is None
    assert text_of(events) == "".join(words) and isinstance(events[-1], StreamDone)
    assert max(wire.pauses) > GAP


async def test_silence_over_the_network_says_the_provider_stopped(chutes_server: FakeProvider
                                                                  ) -> None:
    """The whole way (HTTP, the event loop's own clock and timers): the stream is held for
    good after "one ", so the timeout must come, however slow the machine."""
    chutes_server.script(Reply(stream_of(["one ", "two"]), stall_after=2, stall_seconds=600))
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": chutes_server.url})
    events: list[StreamEvent] = []
    async with ProviderClient(provider, "test-key-read-timeout", timeouts=Timeouts(read=0.2),
                              max_retries=0) as client:
        try:
            async with asyncio.timeout(SAFETY):
                async for event in client.stream_chat("m", HELLO):
                    events.append(event)
        except StreamTimeoutError as error:
            assert "stopped sending for 0.2 seconds" in error.message
        else:
            raise AssertionError("the held stream did not time out")
    assert text_of(events) == "one "
    assert chutes_server.wait_for_idle()  # and the connection was closed
