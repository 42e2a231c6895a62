"""Conversation store figures on a generated store of 1,000 conversations × 50 messages (~5 MB
of text, mixed English, Hindi and Chinese) plus one conversation of 2,000 messages.

Targets: list the newest 100 conversations ≤ 20 ms; load a 2,000-message conversation ≤ 100 ms;
a full-text search ≤ 50 ms; the sidebar's search, which counts every matching conversation
and brings the newest hit of the 300 newest, ≤ 100 ms (it reads every match of a common word);
a streaming flush at message 2,000 ≤ 1.5 × a flush at message 10.
Every figure is a median of several runs. Run: `python -m benchmarks.bench_store`.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.common import Figure, figure, info, median, report, timer
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store

CONVERSATIONS = 1_000
MESSAGES = 50
BIG = 2_000
FLUSHES = 300
_VOCABULARY = ("the a of to stream reply model token answer question provider latency context "
               "window python terminal keyboard search history export import saved message "
               "नमस्ते दुनिया भाषा मॉडल उत्तर प्रश्न வணக்கம் உலகம் மொழி 你好 世界 模型 回答 问题")
WORDS = _VOCABULARY.split(" ")
SEARCHES = ("terminal keyboard", "stream", "नमस्ते", "வணக்கம்", "provider latency", "zebra")
SHORT_SEARCHES = ("你好", "世界", "猫")  # below three characters: a LIKE scan; "猫" never matches


def _text(rng: random.Random, words: int) -> str:
    """Random words from a small vocabulary: every word is common, the hard case for search."""
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _messages(rng: random.Random, cid: str, count: int, start: datetime) -> list[Message]:
    return [Message(conversation_id=cid, role=Role.USER if i % 2 == 0 else Role.ASSISTANT,
                    content=_text(rng, rng.randint(6, 20)), provider="chutes", model="m",
                    created=start + timedelta(seconds=i)) for i in range(count)]


def generate(store: Store) -> tuple[str, str]:
    """Fill the store; returns the ids of a 10-message and of the 2,000-message conversation."""
    rng = random.Random(42)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for index in range(CONVERSATIONS):
        when = start + timedelta(minutes=index)
        conversation = Conversation(title=_text(rng, 5), created=when, updated=when,
                                    provider="chutes", model="m")
        store.import_conversation(conversation,
                                  _messages(rng, conversation.id, MESSAGES, when))
    small = Conversation(title="ten messages")
    store.import_conversation(small, _messages(rng, small.id, 10, start))
    big = Conversation(title="two thousand messages")
    store.import_conversation(big, _messages(rng, big.id, BIG, start))
    return small.id, big.id


def _median_ms(action: Callable[[], object], runs: int) -> float:
    action()  # warm the page cache
    times = []
    for _ in range(runs):
        began = timer()
        action()
        times.append((timer() - began) * 1000)
    return median(times)


def _flush_ms(store: Store, small: str, big: str) -> tuple[float, float]:
    """Median cost of one streaming flush (update_message) at message 10 and at message 2,000,
    interleaved so that both see the same disk and checkpoint conditions."""
    replies = [store.add_message(Message(conversation_id=cid, role=Role.ASSISTANT,
                                         status=MessageStatus.STREAMING, provider="chutes",
                                         model="m")) for cid in (small, big)]
    times: list[list[float]] = [[], []]
    piece = "streamed text " * 4
    for _ in range(FLUSHES):
        for reply, bucket in zip(replies, times, strict=True):
            reply.content += piece
            began = timer()
            store.update_message(reply)
            bucket.append((timer() - began) * 1000)
    return median(times[0]), median(times[1])


def measure(store: Store, small: str, big: str) -> dict[str, Figure]:
    list_ms = _median_ms(lambda: store.list_conversations(limit=100), 20)
    load_ms = _median_ms(lambda: store.get_messages(big), 10)
    search_ms = median([_median_ms(lambda q=q: store.search(q), 5) for q in SEARCHES])  # type: ignore[misc]
    worst_search_ms = max(_median_ms(lambda q=q: store.search(q), 5)  # type: ignore[misc]
                          for q in (*SEARCHES, *SHORT_SEARCHES))
    by_conversation_ms = max(_median_ms(lambda q=q: store.search_conversations(q, 300), 5)  # type: ignore[misc]
                             for q in (*SEARCHES, *SHORT_SEARCHES))
    flush_10, flush_2000 = _flush_ms(store, small, big)
    open_ms = _median_ms(lambda: Store.open(store.path).close(), 5)  # includes quick_check
    size_mb = store.path.stat().st_size / 1e6
    text_mb = store._conn.execute(
        "SELECT sum(length(CAST(content AS BLOB))) FROM messages").fetchone()[0] / 1e6
    return {
        "store.list_newest_100_ms": figure(list_ms, 20, "ms"),
        "store.load_2000_messages_ms": figure(load_ms, 100, "ms"),
        "store.search_median_ms": figure(search_ms, 50, "ms"),
        "store.search_worst_ms": figure(worst_search_ms, 50, "ms"),
        "store.search_by_conversation_worst_ms": figure(by_conversation_ms, 100, "ms"),
        "store.flush_at_message_10_ms": info(flush_10, "ms"),
        "store.flush_at_message_2000_ms": info(flush_2000, "ms"),
        "store.flush_2000_over_10_ratio": figure(flush_2000 / flush_10, 1.5, "x"),
        "store.open_ms": info(open_ms, "ms"),
        "store.text_mb": info(text_mb, "MB"),
        "store.file_mb": info(size_mb, "MB"),
    }


def run() -> dict[str, Figure]:
    with (tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as folder,
          Store.open(Path(folder) / "bench.sqlite3") as store):
        began = timer()
        small, big = generate(store)
        print(f"generated {CONVERSATIONS * MESSAGES + BIG + 10} messages in "
              f"{timer() - began:.1f} s", flush=True)
        return measure(store, small, big)


if __name__ == "__main__":
    report("store", run())
