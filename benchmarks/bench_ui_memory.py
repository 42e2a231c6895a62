"""Memory of a session left open all day: REPLIES replies of 20,000 Markdown chunks each
(`bench/markdown-20000`, benchmarks/textgen.py; about 295,000 characters a reply), each in a
new conversation (Ctrl+N after it), in the real app headless at 120×40 against the fake
provider in its own process. The app runs in a fresh process of its own (`--child`), so its
resident memory is its own and not that of benchmarks run before it.

After each reply is rendered whole (see ui_harness.reply_shown) and Ctrl+N has emptied the
view, a full collection runs and the child records: VmRSS, the Python heap
(`sys.getallocatedblocks`, blocks held by Python's allocator), the objects the collector
tracks, and how many message views and live reply views are still alive anywhere (frozen
ones included: see `sample`).

Figures: the growth of VmRSS per reply after the first WARM (the least-squares slope over
replies WARM..REPLIES; memory taken by the first replies fills caches meant to stay, and
the allocator's arenas), target ≤ 1 MB; the total growth from the ready prompt to the last
reply, for reference; and the longest full garbage collection of the session, for
reference (it grows with the objects the process keeps).

What the early growth is: Python's small-object allocator. After each of the first dozen
replies its arenas (1 MiB each) grow by about two while the bytes in live objects stay flat
(`sys._debugmallocstats()`): a reply's peak of short-lived objects leaves a few survivors
in arenas that can then not be returned, until the arenas reach the high-water mark of one
reply's peak; from there RSS stays flat. A run of a dozen replies or fewer therefore
measures only that filling (about 2 MB a reply), not a leak.

Run: `python -m benchmarks ui_memory` (50 replies, a few minutes); a quicker run with fewer:
`TUI_CHAT_BENCH_REPLIES=25 python -m benchmarks ui_memory`.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import (
    Figure,
    fake_provider_process,
    figure,
    info,
    machine_reference,
    report,
)

REPLIES = 50
WARM = 5
"""Replies not counted in the growth: the caches meant to stay fill during them."""
TARGET_MB_PER_REPLY = 1.0
MODEL = "bench/markdown-20000"
ROOT = Path(__file__).parent.parent


def replies_wanted() -> int:
    wanted = int(os.environ.get("TUI_CHAT_BENCH_REPLIES", REPLIES))
    return max(WARM + 2, wanted)


def slope(values: list[float]) -> float:
    """Least-squares growth per step of `values` (one value per reply)."""
    count = len(values)
    mean_x, mean_y = (count - 1) / 2, sum(values) / count
    spread = sum((x - mean_x) ** 2 for x in range(count))
    return sum((x - mean_x) * (y - mean_y) for x, y in enumerate(values)) / spread


def status_mb(field: str = "VmRSS") -> float:
    """A memory figure of this process from /proc/self/status, in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def rss_mb() -> float:
    return status_mb("VmRSS")


def alive(kinds: tuple[type, ...]) -> dict[str, int]:
    counts = {kind.__name__: 0 for kind in kinds}
    for item in gc.get_objects():
        for kind in kinds:
            if isinstance(item, kind):
                counts[kind.__name__] += 1
    return counts


async def session(url: str, replies: int) -> dict[str, Any]:
    """The child's work: the replies, one after another, with a sample after each."""
    from benchmarks.bench_ui_stream import full_collections
    from benchmarks.textgen import markdown_chunks
    from benchmarks.ui_harness import FrameClock, reply_shown, running_app
    from tui_chat.ui import gc_policy
    from tui_chat.ui.widgets.message_view import MessageView
    from tui_chat.ui.widgets.reply_view import ReplyView

    expected = "".join(markdown_chunks(20000))
    samples: list[dict[str, Any]] = []
    pauses: list[float] = []

    def sample() -> None:
        # gc.get_objects() leaves out frozen objects, and the app's gc policy freezes what
        # start-up, a shown conversation and each full collection left: the count runs in
        # a reclaim (everything unfrozen, collected, frozen again, as the policy would), with
        # the collector's callbacks (the policy's, the pause probe) held off meanwhile.
        def count() -> dict[str, Any]:
            return {"rss_mb": rss_mb(), "anon_mb": status_mb("RssAnon"),
                    "file_mb": status_mb("RssFile"), "heap_blocks": sys.getallocatedblocks(),
                    "objects": len(gc.get_objects()), **alive((MessageView, ReplyView))}

        samples.append(gc_policy.reclaim_counting(count))

    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as folder:
        async with running_app(url, Path(folder), model=MODEL) as (app, pilot, screen):
            clock = FrameClock(app)
            sample()
            with full_collections(pauses):
                for index in range(replies):
                    screen.prompt.load_text(f"reply {index}")
                    shown = clock.when(reply_shown(screen, expected))
                    await pilot.press("enter")
                    await asyncio.wait_for(shown, 300)
                    await pilot.press("ctrl+n")
                    await pilot.pause()
                    assert not screen.message_list.messages, "Ctrl+N did not empty the view"
                    sample()
                    last = samples[-1]
                    print(f"  reply {index + 1}: {last['rss_mb']:.0f} MB (anonymous "
                          f"{last['anon_mb']:.0f}, files {last['file_mb']:.0f})", flush=True,
                          file=sys.stderr)
    return {"samples": samples, "full_gc_longest_s": max(pauses, default=0.0)}


def session_once(url: str, replies: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        out = Path(name) / "out.json"
        subprocess.run([sys.executable, "-m", "benchmarks.bench_ui_memory", "--child",
                        str(out), url, str(replies)], cwd=ROOT, check=True,
                       timeout=60 * replies + 120)
        result: dict[str, Any] = json.loads(out.read_text())
    return result


def run() -> dict[str, Figure]:
    replies = replies_wanted()
    reference = machine_reference()
    with fake_provider_process() as url:
        result = session_once(url, replies)
    samples = result["samples"]  # [0]: the ready prompt; [i]: after reply i
    rss = [s["rss_mb"] for s in samples]
    heap = [s["heap_blocks"] for s in samples]
    print("  RSS after each reply (MB): " + " ".join(f"{v:.0f}" for v in rss[1:]), flush=True)
    print("  Python heap blocks after each reply (thousands): "
          + " ".join(f"{v / 1000:.0f}" for v in heap[1:]), flush=True)
    last = samples[-1]
    print(f"  alive at the end: {last['MessageView']} message views, {last['ReplyView']} "
          f"reply views, {last['objects']} objects tracked", flush=True)
    counted = rss[WARM:]
    return {
        "ui.memory_machine_reference_s": info(reference, "s"),
        "ui.memory_replies": info(replies, ""),
        "ui.memory_rss_ready_mb": info(rss[0], "MB"),
        "ui.memory_rss_after_warm_replies_mb": info(rss[WARM], "MB"),
        "ui.memory_rss_last_mb": info(rss[-1], "MB"),
        "ui.memory_growth_per_reply_mb": figure(slope(counted), TARGET_MB_PER_REPLY, "MB"),
        "ui.memory_growth_total_mb": info(rss[-1] - rss[0], "MB"),
        "ui.memory_heap_blocks_per_reply": info(slope(heap[WARM:]), ""),
        "ui.memory_full_gc_longest_ms": info(1000 * result["full_gc_longest_s"], "ms"),
    }


def child(argv: list[str]) -> None:
    out, url, replies = Path(argv[0]), argv[1], int(argv[2])
    out.write_text(json.dumps(asyncio.run(session(url, replies))))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2:])
    else:
        report("ui_memory", run())
