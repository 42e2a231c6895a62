"""Client throughput: a 20,000-event stream parsed into typed events, against a raw byte read.

Target: the client takes at most 1.2 × the time of reading the same bytes raw (issue 15).
"""

from __future__ import annotations

import asyncio

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
    async with httpx.AsyncClient() as http:
        start = timer()
        body = {"model": model, "messages": [{"role": "user", "content": "x"}], "stream": True}
        async with http.stream("POST", f"{url}/chat/completions", json=body) as response:
            async for _ in response.aiter_bytes():
                pass
        return timer() - start


async def client_read(url: str) -> float:
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": url})
    async with ProviderClient(provider, "bench-key") as client:
        start = timer()
        count = 0
        messages = [ChatMessage(role=Role.USER, content="x")]
        async for event in client.stream_chat(MODEL, messages):
            if isinstance(event, ContentDelta):
                count += 1
        elapsed = timer() - start
    assert count == EVENTS, count
    return elapsed


async def measure(url: str) -> dict[str, Figure]:
    await raw_read(url)  # warm up both sides
    raw, parsed = [], []
    for _ in range(RUNS):
        raw.append(await raw_read(url))
        parsed.append(await client_read(url))
    raw_s, client_s = median(raw), median(parsed)
    return {
        "client.raw_read_20k_events_s": info(raw_s, "s"),
        "client.parse_20k_events_s": info(client_s, "s"),
        "client.ratio_to_raw_read": figure(client_s / raw_s, 1.2, "x"),
    }


def run() -> dict[str, Figure]:
    with fake_provider_process() as url:
        return asyncio.run(measure(url))


if __name__ == "__main__":
    report("client", run())
