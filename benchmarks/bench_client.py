"""Client throughput: a 20,000-event stream parsed into typed events, against a raw byte read.

Target: the client takes at most 1.2 × the time of reading the same bytes raw (issue 15): the
median of the ratios of runs taken in pairs, raw then client, so that a load that changes
from minute to minute weighs on both sides of each ratio alike. Beside it, the CPU of this
process over each read (the fake provider is another process): what the client adds is
that difference, while the wall time of either also waits on the server.
"""

from __future__ import annotations

import asyncio
import time

import httpx

from benchmarks.common import Figure, fake_provider_process, figure, info, median, report, timer
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.events import ContentDelta
from tui_chat.core.models import ChatMessage, Role

EVENTS = 20_000
RUNS = 5
MODEL = f"bench/{EVENTS}"


async def raw_read(url: str, model: str = MODEL) -> float:
    """Seconds to read the stream of `model` as bytes, nothing parsed (the floor)."""
    return (await timed_raw_read(url, model))[0]


async def timed_raw_read(url: str, model: str = MODEL) -> tuple[float, float]:
    """Seconds and this process's CPU seconds to read the stream of `model` raw."""
    async with httpx.AsyncClient() as http:
        start, cpu = timer(), time.process_time()
        body = {"model": model, "messages": [{"role": "user", "content": "x"}], "stream": True}
        async with http.stream("POST", f"{url}/chat/completions", json=body) as response:
            async for _ in response.aiter_bytes():
                pass
        return timer() - start, time.process_time() - cpu


async def client_read(url: str) -> tuple[float, float]:
    """Seconds and CPU seconds for the client to turn the same stream into typed events."""
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": url})
    async with ProviderClient(provider, "bench-key") as client:
        start, cpu = timer(), time.process_time()
        count = 0
        messages = [ChatMessage(role=Role.USER, content="x")]
        async for event in client.stream_chat(MODEL, messages):
            if isinstance(event, ContentDelta):
                count += 1
        elapsed = timer() - start, time.process_time() - cpu
    assert count == EVENTS, count
    return elapsed


async def measure(url: str) -> dict[str, Figure]:
    await raw_read(url)  # warm up both sides
    raw, parsed = [], []
    for _ in range(RUNS):
        raw.append(await timed_raw_read(url))
        parsed.append(await client_read(url))
    print("  raw / client by run: " + ", ".join(
        f"{r:.2f} / {c:.2f} s (cpu {rc:.2f} / {cc:.2f})"
        for (r, rc), (c, cc) in zip(raw, parsed, strict=True)), flush=True)
    return {
        "client.raw_read_20k_events_s": info(median([r for r, _ in raw]), "s"),
        "client.parse_20k_events_s": info(median([c for c, _ in parsed]), "s"),
        "client.ratio_to_raw_read": figure(
            median([c / r for (r, _), (c, _) in zip(raw, parsed, strict=True)]), 1.2, "x"),
        "client.cpu_over_raw_read_cpu": info(
            median([c / r for (_, r), (_, c) in zip(raw, parsed, strict=True)]), "x"),
    }


def run() -> dict[str, Figure]:
    with fake_provider_process() as url:
        return asyncio.run(measure(url))


if __name__ == "__main__":
    report("client", run())
