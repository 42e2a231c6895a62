"""Streaming figures of the app, headless at 120×40, against the fake provider in its own
process (its replies: benchmarks/textgen.py). Medians of RUNS runs, each in a fresh app.

- markdown 2,000 / 20,000 chunks, one 20,000-character fence in 5,000 chunks, at full loopback
  speed: from Enter to the whole reply rendered = the first frame painted (see ui_harness)
  at which the live reply view is gone and the last message view holds the whole text.
  For 20,000 chunks also the app's CPU over that time (`time.process_time()`, all its
  threads), and the wall time against a raw read of the same stream (httpx, bytes only,
  nothing parsed), measured just before each run.
- per-chunk cost, first 1,000 vs last 1,000 chunks: `ReplyPresenter.content` (every content
  delta goes to it, from the controller's `present`) is wrapped to time-stamp each content
  delta as the app takes it, with the characters received so far; chunk i is taken when the
  text reaches the end of the i-th chunk sent (the client may join a few chunks into one
  delta). Cost of a range = time
  from its first chunk taken to its last / chunks. Rendering runs on the same event loop, so a
  growing render cost shows as a growing gap between chunks.
- CPU at 100 chunks/s: `time.process_time()` of this process (the app; the fake provider is
  another process) over the wall time, Enter to rendered, of a 2,000-chunk reply sent at
  about 100 chunks a second (20 s).
- key press to screen: while the chunks of a 20,000-chunk reply arrive at full speed, a
  letter is sent every 20 ms the way the terminal driver delivers keys (not waiting for the
  screen); latency = from sending it to the first frame painted with it in the prompt. p95
  and max of the keys of all runs together.

Run: `python -m benchmarks ui_stream`; the CPU share at 100 chunks/s alone (about 25 s a run):
`python -m benchmarks.bench_ui_stream paced [RUNS]`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.bench_client import raw_read
from benchmarks.common import (
    Figure,
    fake_provider_process,
    figure,
    info,
    machine_reference,
    median,
    report,
    timer,
)
from benchmarks.textgen import fence_chunks, markdown_chunks
from benchmarks.ui_harness import FrameClock, percentile, reply_shown, running_app, send_key
from tui_chat.ui.screens.conversation import ConversationScreen

RUNS = 3
CPU_RUNS = 3
WINDOW = 1_000
KEY_EVERY = 0.02


@dataclass
class StreamRun:
    seconds: float
    cpu_seconds: float
    stamps: list[tuple[float, int]] = field(default_factory=list)  # (time, characters so far)
    latencies: list[float] = field(default_factory=list)

    def chunk_times(self, chunks: list[str]) -> list[float]:
        """When the app took each chunk: the first delta whose text reaches the chunk's end."""
        ends = list(itertools.accumulate(len(c) for c in chunks))
        times, k = [], 0
        for end in ends:
            while self.stamps[k][1] < end:
                k += 1
            times.append(self.stamps[k][0])
        return times

    def per_chunk_ratio(self, chunks: list[str]) -> float:
        times = self.chunk_times(chunks)
        return (times[-1] - times[-WINDOW]) / (times[WINDOW - 1] - times[0])


@contextlib.contextmanager
def full_collections(pauses: list[float]) -> Iterator[None]:
    """Seconds of each generation-2 garbage collection while the block runs."""
    began: list[float] = []

    def probe(phase: str, info: dict[str, int]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            began.append(timer())
        elif began:
            pauses.append(timer() - began.pop())

    gc.callbacks.append(probe)
    try:
        yield
    finally:
        gc.callbacks.remove(probe)


def _stamp_deltas(screen: ConversationScreen, stamps: list[tuple[float, int]]) -> None:
    presenter = screen.presenter
    original = presenter.content
    received = 0

    async def content(text: str) -> None:
        nonlocal received
        received += len(text)
        stamps.append((timer(), received))
        await original(text)

    presenter.content = content  # type: ignore[method-assign]


def _prompt_has(screen: ConversationScreen, letters: int) -> Callable[[], bool]:
    return lambda: len(screen.prompt.text) >= letters


async def _type_during(app: Any, screen: ConversationScreen, clock: FrameClock,
                       stamps: list[tuple[float, int]], total: int,
                       latencies: list[float]) -> None:
    """A letter into the prompt every KEY_EVERY s while the reply's chunks arrive (from the
    first to the last; not while the finished reply is drawn after them), each timed on its
    own, as a typist does not wait for the screen: from sending it to the first frame painted
    with it in the prompt."""
    while not stamps:  # noqa: ASYNC110 (polls a list the app fills; 2 ms is precise enough)
        await asyncio.sleep(0.002)
    pending: list[tuple[float, asyncio.Future[float]]] = []
    while stamps[-1][1] < total and screen.streaming:
        seen = clock.when(_prompt_has(screen, len(pending) + 1))
        pending.append((timer(), seen))
        send_key(app, "a")
        await asyncio.sleep(KEY_EVERY)
    for began, seen in pending:
        try:
            latencies.append(await asyncio.wait_for(seen, 10) - began)
        except TimeoutError:
            latencies.append(10.0)


async def stream_once(url: str, model: str, expected: str, *, typing: bool = False,
                      limit: float = 120) -> StreamRun:
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as folder:
        async with running_app(url, Path(folder), model=model) as (app, pilot, screen):
            stamps: list[tuple[float, int]] = []
            latencies: list[float] = []
            _stamp_deltas(screen, stamps)
            clock = FrameClock(app)
            screen.prompt.load_text("go")
            done = clock.when(reply_shown(screen, expected))
            cpu, began = time.process_time(), timer()
            await pilot.press("enter")
            typist = (asyncio.create_task(_type_during(app, screen, clock, stamps,
                                                       len(expected), latencies))
                      if typing else None)
            finished = await asyncio.wait_for(done, limit)
            run = StreamRun(finished - began, time.process_time() - cpu, stamps, latencies)
            if typist is not None:
                await typist
                await pilot.pause()
                assert "a" * len(latencies) in screen.prompt.text  # every letter arrived
    return run


async def measure(url: str) -> dict[str, Figure]:
    figures: dict[str, Figure] = {"ui.stream_machine_reference_s": info(machine_reference(), "s")}
    await stream_once(url, "bench/markdown-200", "".join(markdown_chunks(200)))  # warm up
    cases = [("md2k", "bench/markdown-2000", markdown_chunks(2000), 1.0),
             ("md20k", "bench/markdown-20000", markdown_chunks(20000), 8.0),
             ("fence5k", "bench/fence-5000", fence_chunks(5000), 2.0)]
    for key, model, chunks, target in cases:
        runs, raw = [], []
        for _ in range(RUNS):
            if key == "md20k":
                raw.append(await raw_read(url, model))
            runs.append(await stream_once(url, model, "".join(chunks)))
        print(f"  {key}: " + ", ".join(f"{r.seconds:.2f} s (cpu {r.cpu_seconds:.2f} s)"
                                       for r in runs)
              + (" raw read " + ", ".join(f"{r:.2f} s" for r in raw) if raw else ""),
              flush=True)
        figures[f"ui.stream_{key}_to_rendered_s"] = figure(median([r.seconds for r in runs]),
                                                           target, "s")
        if key == "md20k":
            figures["ui.stream_md20k_cpu_s"] = figure(median([r.cpu_seconds for r in runs]),
                                                      0.6, "s")
            figures["ui.stream_md20k_raw_read_s"] = info(median(raw), "s")
            figures["ui.stream_md20k_over_raw_read"] = figure(
                median([r.seconds / read for r, read in zip(runs, raw, strict=True)]), 3.0, "x")
        if key != "md2k":
            figures[f"ui.stream_{key}_last_over_first_1000_chunks"] = figure(
                median([r.per_chunk_ratio(chunks) for r in runs]), 1.5, "x")
    cpu_runs = [await stream_once(url, "bench/paced-100ps-2000",
                                  "".join(markdown_chunks(2000)), limit=120)
                for _ in range(CPU_RUNS)]
    print("  cpu at 100/s: " + ", ".join(f"{r.cpu_seconds / r.seconds:.1%} over "
                                         f"{r.seconds:.1f} s" for r in cpu_runs), flush=True)
    figures["ui.stream_100ps_cpu_share_pct"] = figure(
        median([100 * r.cpu_seconds / r.seconds for r in cpu_runs]), 5, "%")
    pauses: list[float] = []
    with full_collections(pauses):
        typed = [await stream_once(url, "bench/markdown-20000",
                                   "".join(markdown_chunks(20000)), typing=True)
                 for _ in range(RUNS)]
    print("  key p95 by run: " + ", ".join(
        f"{1000 * percentile(r.latencies, 0.95):.0f} ms (max {1000 * max(r.latencies):.0f}, "
        f"{len(r.latencies)} keys)" for r in typed), flush=True)
    pooled = [latency for r in typed for latency in r.latencies]
    figures["ui.keypress_while_streaming_p95_ms"] = figure(1000 * percentile(pooled, 0.95), 20,
                                                           "ms")
    figures["ui.keypress_while_streaming_max_ms"] = figure(1000 * max(pooled), 100, "ms")
    figures["ui.full_gc_longest_ms"] = figure(1000 * max(pauses, default=0.0), 50, "ms")
    return figures


async def measure_paced(url: str, runs: int) -> dict[str, Figure]:
    """The CPU share at 100 chunks/s alone, after the same warm-up as `measure`."""
    figures: dict[str, Figure] = {"ui.stream_machine_reference_s": info(machine_reference(), "s")}
    await stream_once(url, "bench/markdown-200", "".join(markdown_chunks(200)))  # warm up
    shares = []
    for _ in range(runs):
        r = await stream_once(url, "bench/paced-100ps-2000", "".join(markdown_chunks(2000)))
        shares.append(100 * r.cpu_seconds / r.seconds)
        print(f"  cpu at 100/s: {shares[-1]:.1f}% over {r.seconds:.1f} s", flush=True)
    figures["ui.stream_100ps_cpu_share_pct"] = figure(median(shares), 5, "%")
    return figures


def run() -> dict[str, Figure]:
    with fake_provider_process() as url:
        return asyncio.run(measure(url))


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["paced"]:  # `python -m benchmarks.bench_ui_stream paced [RUNS]`
        with fake_provider_process() as url:
            paced = asyncio.run(measure_paced(url, int((sys.argv[2:] or [CPU_RUNS])[0])))
        report("ui_stream_paced", paced)
    else:
        report("ui_stream", run())
