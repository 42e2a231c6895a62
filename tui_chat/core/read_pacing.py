"""Whether the client pauses before reading a stream again, so that a trickle of tokens
gathers into one read (see ProviderClient's `coalesce`).

Each read costs about the same whatever its size (the event loop, anyio, httpcore and httpx
wake up for it), so at 100 tokens a second reading each token as it comes is most of a
client's CPU; reading every `coalesce` seconds instead costs one wake-up a pause. A read is
"waiting" when it took longer than NETWORK_WAIT and brought less than TRICKLE_BYTES. But a
read also takes long when the event loop was busy elsewhere (a frame, a garbage collection)
before it came back to the reader, even at full speed, where each event is a read of its own
(h11 hands on each chunk of the body apart). A pause then only delays a stream that is
already there: one such pause in a 20,000-event reply cost a tenth of a second, and replies
had several. So:

- a stream starts trickling at the second waiting read in a row (a busy loop seldom holds
  two reads in a row), and then pauses after each waiting read;
- it stops trickling when TRICKLE_BYTES arrived since the last pause (a fast stream fills a
  pause with more than a trickle).
"""

from __future__ import annotations

from typing import Protocol

TRICKLE_BYTES = 4096
"""A read shorter than this may be a trickle; this much between two pauses is not one."""
NETWORK_WAIT = 0.001
"""A read that took longer than this (seconds) waited for the network, or for the loop."""


class ReadPacing:
    """The pause decision, read by read (see the module doc)."""

    __slots__ = ("_since_pause", "_waited_before", "trickling")

    def __init__(self) -> None:
        self.trickling = False
        self._waited_before = False
        self._since_pause = 0  # bytes read since the last pause

    def pause_after(self, size: int, seconds: float) -> bool:
        """A read brought `size` bytes after `seconds`: pause before the next one?"""
        self._since_pause += size
        if self._since_pause >= TRICKLE_BYTES:
            self.trickling = False
        waited = size < TRICKLE_BYTES and seconds > NETWORK_WAIT
        if waited and (self.trickling or self._waited_before):
            self.trickling, self._waited_before, self._since_pause = True, False, 0
            return True
        self._waited_before = waited
        return False


class PacingClock(Protocol):
    """The time the pause decision is measured in, and the way a pause waits."""

    def time(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...
