"""Detecting a stalled stream without paying for a timer reschedule on every read.

The rule. A stream makes progress when an SSE event completes, or when another
`PROGRESS_BYTES` of an event still in progress have arrived. The read timeout (`gap`) bounds
the time spent waiting on the wire between two progress points. So a server that drips a byte
a second (or a comment line, or stray text, every few seconds: neither is an event) hits the
timeout, while one long event that arrives steadily (at least PROGRESS_BYTES per `gap`
seconds, 16 KiB a minute with the default 60 s) is fine. Time the consumer spends between
reads (drawing, saving, the app's coalescing pauses) is not waiting on the wire and does not
count.

Cost. A read only stores two times and adds its wait to a sum; the timer re-arms itself,
checking the sum when it fires. (Rescheduling an `asyncio.timeout` on every read cost 13 µs a
read, a quarter of the client's time on a fast stream.)

Time. Every time the watchdog reads and every timer it arms go through one `WatchdogClock`:
the running event loop by default (`loop.time`, `loop.call_at`), a clock of its own in a test
(ProviderClient's `watchdog_clock`), so that "times out after N seconds of waiting" and "never
while events keep coming" are decided by the test's time, never by how fast the machine is.
The reader stamps its reads with the same clock (`clock.time()`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

PROGRESS_BYTES = 16 * 1024
"""Bytes of an unfinished event that count as progress (see the module docstring)."""
_MIN_RECHECK = 0.01
"""Seconds: the timer never re-arms sooner, even when the wait is nearly used up."""


class Timer(Protocol):
    """An armed timer (asyncio's TimerHandle is one)."""

    def cancel(self) -> None: ...


class WatchdogClock(Protocol):
    """The time the watchdog measures in, and the way it arms its timer (an asyncio event loop
    is one)."""

    def time(self) -> float: ...

    def call_at(self, when: float, callback: Callable[[], object], /) -> Timer: ...


class IdleWatchdog:
    """Cancels the reading task when the stream makes no progress for `gap` seconds of
    waiting on the wire.

    The reader, per read: sets `reading_since` to `clock.time()` before awaiting the read;
    when it returns, before handing anything to the consumer, calls `progressed()` if the
    data completed an event, else `read_done(...)`. `clock`: default the running loop.
    """

    __slots__ = ("_fired", "_handle", "_partial", "_task", "_waited", "clock", "gap",
                 "progress_bytes", "reading_since")

    def __init__(self, gap: float, progress_bytes: int = PROGRESS_BYTES, *,
                 clock: WatchdogClock | None = None) -> None:
        self.gap = gap
        self.progress_bytes = progress_bytes
        self.clock: WatchdogClock = clock if clock is not None else asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._waited = 0.0  # seconds waited on the wire since the last progress
        self._partial = 0  # bytes received since the last progress
        self.reading_since: float | None = None
        """When the read in progress started waiting on the wire; None: the consumer has the
        time (a plain attribute, not a method: it is set on every read)."""
        self._fired = False
        self._handle = self.clock.call_at(self.clock.time() + gap, self._check)

    def progressed(self) -> None:
        """The read that just returned completed an event."""
        self._waited = 0.0
        self._partial = 0
        self.reading_since = None

    def read_done(self, now: float, size: int, completed_event: bool) -> None:
        """A read returned `size` bytes at `now`; `completed_event`: they completed an event."""
        if completed_event:
            self._waited = 0.0
            self._partial = 0
        else:
            if self.reading_since is not None:
                self._waited += now - self.reading_since
            self._partial += size
            if self._partial >= self.progress_bytes:
                self._waited = 0.0
                self._partial = 0
        self.reading_since = None

    @property
    def trickled(self) -> bool:
        """Whether bytes arrived since the last progress (a drip, not a silence)."""
        return self._partial > 0

    def fired(self) -> bool:
        """True once, if the cancellation came from this watchdog (and undoes its cancel)."""
        if self._fired and self._task is not None:
            self._task.uncancel()
        return self._fired

    def close(self) -> None:
        self._handle.cancel()

    def _check(self) -> None:
        now = self.clock.time()
        waited = self._waited
        if self.reading_since is not None:
            waited += now - self.reading_since
            if waited >= self.gap and self._task is not None:
                self._fired = True
                self._task.cancel()
                return
        # While the consumer has the time the wait does not grow: look again when it could
        # first run out.
        self._handle = self.clock.call_at(now + max(self.gap - waited, _MIN_RECHECK),
                                          self._check)
