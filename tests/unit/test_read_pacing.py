"""When the client pauses between reads (tui_chat.core.read_pacing): a trickle of tokens is
read a batch at a time; a fast stream is read straight through, even when the event loop
holds a read up now and then (a frame, a collection)."""

from tui_chat.core.read_pacing import NETWORK_WAIT, TRICKLE_BYTES, ReadPacing

EVENT = 150  # bytes of one streamed chunk
SLOW = NETWORK_WAIT * 10  # a read that waited (for the network, or for a busy loop)
QUICK = NETWORK_WAIT / 10  # a read served from what was buffered


def test_a_trickle_is_told_from_the_second_waiting_read_in_a_row() -> None:
    pacing = ReadPacing()
    assert not pacing.pause_after(EVENT, SLOW)  # the first token, after the model's wait
    assert pacing.pause_after(EVENT, SLOW)
    assert pacing.trickling


def test_while_trickling_every_waiting_read_pauses() -> None:
    pacing = ReadPacing()
    pacing.pause_after(EVENT, SLOW)
    pacing.pause_after(EVENT, SLOW)
    for _ in range(20):  # a pause gathered a few tokens: read at once, then one more wait
        assert not any(pacing.pause_after(EVENT, QUICK) for _ in range(5))
        assert pacing.pause_after(EVENT, SLOW)


def test_a_pause_filled_with_more_than_a_trickle_ends_it() -> None:
    pacing = ReadPacing()
    pacing.pause_after(EVENT, SLOW)
    pacing.pause_after(EVENT, SLOW)
    for _ in range(TRICKLE_BYTES // EVENT + 1):  # the stream sped up
        pacing.pause_after(EVENT, QUICK)
    assert not pacing.trickling
    assert not pacing.pause_after(EVENT, SLOW)  # a busy loop again: no pause for it


def test_a_fast_stream_held_up_by_a_busy_loop_now_and_then_never_pauses() -> None:
    pacing = ReadPacing()
    pauses = [pacing.pause_after(EVENT, SLOW if read % 40 == 0 else QUICK)
              for read in range(20_000)]
    assert not any(pauses)


def test_a_long_read_is_never_a_trickle() -> None:
    pacing = ReadPacing()
    assert not any(pacing.pause_after(TRICKLE_BYTES, SLOW) for _ in range(10))
