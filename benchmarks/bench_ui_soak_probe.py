"""What grows over a soak (benchmarks/bench_ui_soak.py's loop), found rather than measured:
the type counts of every live object (gc.get_objects() with nothing frozen, after a full
collection) and a tracemalloc snapshot at reply FROM and reply TO, diffed; printed, biggest
first. A type or a traceback whose count grows with replies while the conversations they
belong to are gone is a leak; what the screen's own messages hold grows only until Ctrl+N.

Run: `python -m benchmarks.bench_ui_soak_probe [FROM TO [FRAMES]]` (default 60 160 0; FRAMES
0 traces nothing, 12 makes it about twenty times as slow). Not a figure: nothing here goes in
RESULTS.md but what it names.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import tempfile
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.bench_ui_soak import sqlite_mb
from benchmarks.common import fake_provider_process

MODEL = "bench/200"


def type_counts() -> Counter[str]:
    return Counter(f"{type(item).__module__}.{type(item).__qualname__}"
                   for item in gc.get_objects())


def caches(app: Any) -> dict[str, Any]:
    """The bounded caches that fill over a day, and what outlives its conversation."""
    from rich.cells import cached_cell_len
    from textual.worker import WorkerState

    nodes = [node for screen in app.screen_stack for node in screen.walk_children(
        with_self=True)] + [app]
    entries = sum(len(node._query_one_cache) for node in nodes)
    gone = Counter(f"{type(link[3]).__name__} {key[1]}" for node in nodes
                   for key, link in node._query_one_cache._cache.items()
                   if not link[3].is_attached)
    workers = [worker for worker in app.workers if worker.state in (
        WorkerState.PENDING, WorkerState.RUNNING)]
    return {"cell_len_cache": cached_cell_len.cache_info().currsize,
            "query_one_entries": entries, "query_one_detached": dict(gone),
            "workers": len(app.workers), "workers_unfinished": len(workers),
            "unfinished_names": sorted({worker.name for worker in workers}),
            "sqlite_mb": round(sqlite_mb(), 3), **views(app)}


def views(app: Any) -> dict[str, int]:
    """The finished views mounted, and the rows they hold (of the width shown, of the
    width before it, and painted by Textual)."""
    from tui_chat.ui.widgets.message_view import LINES, MessageView

    mounted = [view for screen in app.screen_stack for view in screen.query(MessageView)]
    shown = [view.cached for view in mounted]
    return {"views": len(shown), "rows": sum(len(cached._strips) for cached in shown),
            "rows_painted": sum(len(view._styles_cache._cache) for view in mounted),
            "rows_previous": sum(len(cached._previous[1]) for cached in shown
                                 if cached._previous is not None),
            "line_cache_kb": LINES.size // 1024}


async def probe(url: str, start: int, end: int, frames: int) -> None:
    from benchmarks.bench_ui_soak import per_conversation, soak_reply
    from benchmarks.ui_harness import FrameClock, running_app
    from tui_chat.ui import gc_policy

    marks: dict[int, tuple[Counter[str], tracemalloc.Snapshot | None, int]] = {}
    with tempfile.TemporaryDirectory(prefix="tui-chat-probe-") as folder:
        async with running_app(url, Path(folder), model=MODEL) as (app, pilot, screen):
            clock = FrameClock(app)
            each = per_conversation()  # TUI_CHAT_BENCH_PER_CONVERSATION, as the soak
            for index in range(end):
                if index == start - 20 and frames:
                    tracemalloc.start(frames)
                await soak_reply(screen, pilot, clock, index, each)
                if (index + 1) % 20 == 0:
                    print(f"reply {index + 1}: {caches(app)}", flush=True)
                if index + 1 in (start, end):
                    marks[index + 1] = gc_policy.reclaim_counting(
                        lambda: (type_counts(), take_snapshot(), sys.getallocatedblocks()))
    report(marks[start], marks[end], end - start)


def take_snapshot() -> tracemalloc.Snapshot | None:
    return tracemalloc.take_snapshot() if tracemalloc.is_tracing() else None


def report(before: tuple[Counter[str], tracemalloc.Snapshot | None, int],
           after: tuple[Counter[str], tracemalloc.Snapshot | None, int], replies: int) -> None:
    print(f"heap blocks {before[2]:,} -> {after[2]:,} over {replies} replies")
    grown = Counter(after[0])
    grown.subtract(before[0])
    print("types that grew (count):")
    for name, count in grown.most_common(25):
        if count > 0:
            print(f"  {count:+7d}  {name}")
    if before[1] is None or after[1] is None:
        return
    filters = [tracemalloc.Filter(False, tracemalloc.__file__),
               tracemalloc.Filter(False, "<frozen importlib._bootstrap>")]
    new, old = after[1].filter_traces(filters), before[1].filter_traces(filters)
    stats = new.compare_to(old, "traceback")
    total = sum(stat.size_diff for stat in stats)
    print(f"traced growth {total / 1024:.1f} KiB over {replies} replies; biggest:")
    for stat in stats[:20]:
        if stat.size_diff <= 0:
            continue
        print(f"\n{stat.size_diff / 1024:+.1f} KiB in {stat.count_diff:+d} blocks")
        for line in stat.traceback.format(most_recent_first=True)[:2 * 12]:
            print("   ", line)


def main(argv: list[str]) -> None:
    start, end = (int(argv[0]), int(argv[1])) if len(argv) >= 2 else (60, 160)
    frames = int(argv[2]) if len(argv) >= 3 else 0
    with fake_provider_process() as url:
        asyncio.run(probe(url, start, end, frames))


if __name__ == "__main__":
    main(sys.argv[1:])
