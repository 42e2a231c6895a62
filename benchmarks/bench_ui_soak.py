"""Memory over a long day of short replies: REPLIES replies of 200 chunks (`bench/200`, about
1,200 characters each) back to back, PER_CONVERSATION in each conversation (then Ctrl+N), in
the real app headless at 120×40 against the fake provider in its own process; the app in a
fresh process of its own (`--child`, as bench_ui_memory), so its memory is its own.

After each reply a reclaim runs (gc_policy: unfreeze, full collection, freeze) and the child
records VmRSS and the Python heap's blocks. Figure: the growth of VmRSS per 100 replies after
the first WARM (least-squares slope), target ≤ 1 MB; the heap blocks' slope for reference.

What grew (benchmarks/RESULTS.md has the figures): first, every finished reply's live view,
kept whole by the answer's lazy rows (drawn by its bound methods); since fixed. Then, found by
diffing gc.get_objects() type counts between two replies and walking a survivor's referrers:
the footer's Esc Stop key, mounted and removed with every reply, kept by Textual's data_bind
watchers (fitted_footer.watch_compact), and the StylesCache of every widget gone, kept by
Textual's `get_inner_outer` lru_cache keyed by it (line_cache.unkey_inner_outer).
What else grows is bounded caches filling (benchmarks/bench_ui_soak_probe.py prints them every
20 replies): SQLite's page cache of the store (2 MB by default, about 2.5 MB allocated in all:
full after about 320 of these replies, as the store outgrows it), Rich's cell-width cache
(4,096 entries, about six new strings a reply, most of them status-bar lines: full after
about 600), Textual's query_one caches (1,024 entries, full after 60). No widget, worker or
row outlives its conversation. So the slope of a short run is the slope of those caches
filling, and falls as they fill. One long conversation (PER_CONVERSATION=1000) grows by what
its messages on screen hold, about 65 KB a message (their rows and one widget each; views far
above the part shown no longer keep Textual's painted copy): expected, not this figure's.

Measured as issue 26 did: 300 replies (about five minutes of the issue's machine, where it
counted 319) after WARM, the slope over all of them the figure with the target; beside it,
for reference, the slope over the last half (the steady part), SQLite's share (what
`sqlite3_memory_used` says, where Python's SQLite is a shared library), and the slope
without it.

Run: `python -m benchmarks ui_soak` (300 replies after 20 warm, about two minutes on a quiet
machine); `TUI_CHAT_BENCH_REPLIES=600` for longer, `TUI_CHAT_BENCH_PER_CONVERSATION=1000`
for one long conversation.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.bench_ui_memory import rss_mb, slope
from benchmarks.common import Figure, fake_provider_process, figure, info, report

REPLIES = 300
WARM = 20
PER_CONVERSATION = 10
TARGET_MB_PER_100 = 1.0
MODEL = "bench/200"
ROOT = Path(__file__).parent.parent


def sqlite_mb() -> float:
    """What SQLite has allocated in this process (the store's page cache, mostly), in MB; NaN
    where Python's SQLite cannot be asked (linked in statically)."""
    try:
        library = ctypes.CDLL(ctypes.util.find_library("sqlite3") or "libsqlite3.so.0")
    except OSError:
        return float("nan")
    library.sqlite3_memory_used.restype = ctypes.c_int64
    return float(library.sqlite3_memory_used()) / 2**20


def per_conversation() -> int:
    return max(1, int(os.environ.get("TUI_CHAT_BENCH_PER_CONVERSATION", PER_CONVERSATION)))


async def soak_reply(screen: Any, pilot: Any, clock: Any, index: int, each: int) -> None:
    """Reply `index` of a soak of `each` replies a conversation: sent, and waited for until it
    is shown whole; after a conversation's last, Ctrl+N starts the next."""
    from benchmarks.ui_harness import last_view

    in_conversation = index % each
    screen.prompt.load_text(f"reply {index}")

    def shown(count: int = 2 * (in_conversation + 1)) -> bool:
        view = last_view(screen)
        return (screen.message_list.reply is None and view is not None
                and view.message.content.startswith("tok0")
                and len(screen.message_list.messages) >= count)

    done = clock.when(shown)
    await pilot.press("enter")
    await asyncio.wait_for(done, 120)
    if in_conversation == each - 1:
        await pilot.press("ctrl+n")
        await pilot.pause()


async def session(url: str, replies: int) -> dict[str, Any]:
    from benchmarks.ui_harness import FrameClock, running_app
    from tui_chat.ui import gc_policy

    samples: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as folder:
        async with running_app(url, Path(folder), model=MODEL) as (app, pilot, screen):
            clock = FrameClock(app)
            each = per_conversation()
            for index in range(WARM + replies):
                await soak_reply(screen, pilot, clock, index, each)
                samples.append(gc_policy.reclaim_counting(
                    lambda: {"rss_mb": rss_mb(), "heap_blocks": float(sys.getallocatedblocks()),
                             "sqlite_mb": sqlite_mb()}))
                if index % 20 == 19:
                    print(f"  reply {index + 1}: {samples[-1]['rss_mb']:.1f} MB", flush=True,
                          file=sys.stderr)
    return {"samples": samples}


def run() -> dict[str, Figure]:
    replies = max(20, int(os.environ.get("TUI_CHAT_BENCH_REPLIES", REPLIES)))
    with fake_provider_process() as url, tempfile.TemporaryDirectory() as name:
        out = Path(name) / "out.json"
        subprocess.run([sys.executable, "-m", "benchmarks.bench_ui_soak", "--child", str(out),
                        url, str(replies)], cwd=ROOT, check=True, timeout=30 * replies + 300)
        samples = json.loads(out.read_text())["samples"]
    rss = [s["rss_mb"] for s in samples]
    heap = [s["heap_blocks"] for s in samples]
    sqlite = [s["sqlite_mb"] for s in samples]
    counted = rss[WARM:]
    besides = [total - store for total, store in zip(counted, sqlite[WARM:], strict=True)]
    return {
        "ui.soak_replies": info(replies, ""),
        "ui.soak_rss_after_warm_mb": info(rss[WARM - 1], "MB"),
        "ui.soak_rss_last_mb": info(rss[-1], "MB"),
        "ui.soak_growth_per_100_replies_mb": figure(100 * slope(counted), TARGET_MB_PER_100,
                                                    "MB"),
        "ui.soak_growth_last_half_per_100_mb": info(100 * slope(counted[len(counted) // 2:]),
                                                    "MB"),
        "ui.soak_sqlite_after_warm_mb": info(sqlite[WARM - 1], "MB"),
        "ui.soak_sqlite_last_mb": info(sqlite[-1], "MB"),
        "ui.soak_growth_besides_sqlite_per_100_mb": info(100 * slope(besides), "MB"),
        "ui.soak_heap_blocks_per_100_replies": info(100 * slope(heap[WARM:]), ""),
    }


def child(argv: list[str]) -> None:
    out, url, replies = Path(argv[0]), argv[1], int(argv[2])
    out.write_text(json.dumps(asyncio.run(session(url, replies))))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2:])
    else:
        report("ui_soak", run())
