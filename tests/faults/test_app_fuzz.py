"""Issue 6, fuzz through the app: a stream cut at random byte offsets (inside UTF-8 sequences
too), sometimes with a garbage line between two events, never crashes the app and never loses
the text that arrived before the garbage, on screen or in the store."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.faults.pilot import wait_idle
from tests.ui.conftest import AppFactory, conversation, record_notifications
from tui_chat.core.config import Settings
from tui_chat.core.models import MessageStatus
from tui_chat.core.store import Store
from tui_chat.ui.widgets.message_view import MessageView

PIECES = ["Hello ", "नमस्ते ", "🙂 ", "வணக்கம் ", "你好 ", "`code` ", "**bold** ", "end"]
GARBAGE = [b"data: {not json\n\n", b"data: [1, 2\n\n", b'data: {"choices": 5}\n\n']


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    return [data[a:b] for a, b in itertools.pairwise(points) if b > a]


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
       garbage_at=st.none() | st.integers(min_value=2, max_value=len(PIECES)),
       garbage=st.sampled_from(GARBAGE))
@pytest.mark.slow
def test_random_splits_and_garbage_through_the_app(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider,
        cuts: list[int], garbage_at: int | None, garbage: bytes) -> None:
    events = stream_of(PIECES)
    if garbage_at is not None:
        events = [*events[:garbage_at], garbage, *events[garbage_at:]]
    chutes_server.clear_script()
    chutes_server.script(Reply(split_at(b"".join(events), cuts)))
    expected = "".join(PIECES if garbage_at is None else PIECES[:garbage_at - 1])
    asyncio.run(run_one(make_app, store, expected, garbage_at is None))


async def run_one(make_app: AppFactory, store: Store, expected: str, complete: bool) -> None:
    app = make_app(settings=Settings(max_retries=0))
    async with app.run_test(size=(100, 30)) as pilot:
        notes: list[tuple[str, Any]] = record_notifications(app)
        screen = conversation(app)
        screen.prompt.insert("fuzz")
        await pilot.press("enter")
        await wait_idle(pilot)
        reply = screen.query(MessageView)[-1].message
        assert reply.content == expected
        assert reply.status is (MessageStatus.COMPLETE if complete
                                else MessageStatus.INTERRUPTED)
        assert store.get_message(reply.id).content == expected
        assert [n for n in notes if n[0] == "error"] == []  # a failure is said inline
        assert bool(reply.error) is not complete
        assert app.is_running
        await pilot.press("ctrl+q")
    assert app.return_code == 0 and app._exception is None
