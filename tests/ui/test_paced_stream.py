"""The live reply's pump (PacedStream, alone or in a PaceGroup): text written is always
somewhere, queued, in flight or taken in, and `caught_up` says yes only once it is taken in.
The append is drawn in a task of its own; between the pump taking the text from the queue
and that task starting, the text was nowhere: `caught_up` said yes with the last append not
drawn (a test read the reply then, under load), and a stop in that moment ended the reply
before its last append."""

from __future__ import annotations

import asyncio

import pytest

from tui_chat.ui.widgets.reply_view import Commit, PacedStream, PaceGroup, Prepare


def recording() -> tuple[list[str], Prepare]:
    taken: list[str] = []

    async def prepare(text: str) -> Commit:
        return lambda: taken.append(text)

    return taken, prepare


async def steps_until_taken(stream: PacedStream, taken: list[str], text: str) -> None:
    """Step the event loop one turn at a time until `text` is taken in, checking at each
    turn that it is somewhere and that `caught_up` does not run ahead of it."""
    for _ in range(1000):  # a bound for a broken build, not a time
        held = "".join(taken) + stream.unshown
        assert held == text, f"the text is {held!r} between the queue and the screen"
        assert not stream.caught_up or "".join(taken) == text
        if "".join(taken) == text:
            return
        await asyncio.sleep(0)
    raise AssertionError("never taken in")


@pytest.mark.parametrize("grouped", [False, True])
async def test_written_text_is_always_queued_in_flight_or_taken_in(grouped: bool) -> None:
    taken, prepare = recording()
    group = PaceGroup() if grouped else None
    stream = PacedStream(prepare, group)
    stream.start()
    stream.write("hello")
    await steps_until_taken(stream, taken, "hello")
    await stream.stop(drain=True)
    assert taken == ["hello"]


@pytest.mark.parametrize("grouped", [False, True])
async def test_a_stop_as_the_pump_takes_the_text_keeps_the_last_append(grouped: bool) -> None:
    """Stopped at each turn of the loop after the write in turn: the text is taken in by the
    time stop returns, wherever the pump stood."""
    for turns in range(6):
        taken, prepare = recording()
        stream = PacedStream(prepare, PaceGroup() if grouped else None)
        stream.start()
        stream.write("last words")
        for _ in range(turns):
            await asyncio.sleep(0)
        await stream.stop(drain=True)
        assert "".join(taken) == "last words", f"stopped after {turns} turns: {taken}"
        assert stream.caught_up
