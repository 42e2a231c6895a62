"""The store at scale: 100,000 conversations × 10 messages (generated once, cached:
ui_stores.hundred_thousand_conversations), read as the sidebar reads it.

Targets: list the newest 100 conversations ≤ 20 ms; the full-text search (newest 50 hits)
median ≤ 50 ms over QUERIES; the sidebar's search, which counts the matching conversations
(up to store_search.COUNT_LIMIT) and brings the newest hit of the 300 newest, worst of
QUERIES ≤ 100 ms. For reference: the sidebar's whole read (its 2,000 newest, for the title
filter, without counts; then the message counts of the 300 rows it draws), beside the same
2,000 read counted (one count per conversation, as the sidebar read them before), the two
alternated; and opening the store. Medians of several runs.
Run: `python -m benchmarks store_scale`.
"""

from __future__ import annotations

from benchmarks.bench_store import _median_ms
from benchmarks.common import Figure, figure, info, machine_reference, median, report, timer
from benchmarks.ui_stores import hundred_thousand_conversations
from tui_chat.core.store import Store
from tui_chat.ui.widgets.conversation_list import LIST_LIMIT, MAX_SHOWN

QUERIES = ("stream", "python", "terminal window", "def", "the reply", "zebra", "x")
"""Words of every conversation (benchmarks/textgen.py's vocabulary), code, two words, one that
never matches, and a one-letter term (a LIKE scan)."""


def sidebar_read(store: Store) -> None:
    """What ConversationList.reload and its first draw read."""
    summaries = store.list_conversations(limit=LIST_LIMIT, counted=False)
    store.message_counts([summary.id for summary in summaries[:MAX_SHOWN]])


def _alternated_ms(store: Store, runs: int) -> tuple[float, float]:
    """Medians of (the sidebar's read, the same list counted), run in turn."""
    sidebar_read(store)
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for spent, action in zip(times, (lambda: sidebar_read(store),
                                         lambda: store.list_conversations(limit=LIST_LIMIT)),
                                 strict=True):
            began = timer()
            action()
            spent.append((timer() - began) * 1000)
    return median(times[0]), median(times[1])


def run() -> dict[str, Figure]:
    path = hundred_thousand_conversations()
    reference = machine_reference()
    with Store.open(path) as store:
        assert store.count_conversations() == 100_000
        list_ms = _median_ms(lambda: store.list_conversations(limit=100), 20)
        sidebar_ms, counted_ms = _alternated_ms(store, 7)
        searches = {q: _median_ms(lambda q=q: store.search(q), 5)  # type: ignore[misc]
                    for q in QUERIES}
        by_conversation = {q: _median_ms(lambda q=q: store.search_conversations(  # type: ignore[misc]
            q, MAX_SHOWN), 5) for q in QUERIES}
    open_ms = _median_ms(lambda: Store.open(path).close(), 5)
    print("  search (ms): " + ", ".join(f"{q!r} {v:.1f}" for q, v in searches.items()))
    print("  by conversation (ms): " + ", ".join(f"{q!r} {v:.1f}"
                                                 for q, v in by_conversation.items()))
    return {
        "store_scale.machine_reference_s": info(reference, "s"),
        "store_scale.list_newest_100_ms": figure(list_ms, 20, "ms"),
        "store_scale.sidebar_list_ms": info(sidebar_ms, "ms"),
        "store_scale.list_2000_counted_ms": info(counted_ms, "ms"),
        "store_scale.search_median_ms": figure(median(list(searches.values())), 50, "ms"),
        "store_scale.search_by_conversation_worst_ms": figure(max(by_conversation.values()),
                                                              100, "ms"),
        "store_scale.open_ms": info(open_ms, "ms"),
    }


if __name__ == "__main__":
    report("store_scale", run())
