"""End-to-end encryption's cost to the client (issue 27): a 20,000-chunk reply read through
Chutes' E2EE transport (each chunk decrypted: base64, ChaCha20-Poly1305, then parsed as
ever) against the same reply in plain text, both from the loopback fake of Chutes' E2EE
endpoints running in a process of its own (its encryption is not this process's CPU).

Target: the client's CPU for the encrypted reply at most 1.3 × the plain one's: the median
of the ratios of runs taken in pairs, plain then encrypted, so that a load that changes from
minute to minute weighs on both sides of each ratio alike. The wall times are beside it.

Before and after, under the same load: `python -m benchmarks.bench_e2ee --against REV [RUNS]`
reads the reply with the decrypting reader (`tui_chat.core.e2ee._decrypted`) of the commit
REV and with today's, in turns (each beside a plain read), and prints both medians.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from benchmarks.common import Figure, figure, free_port, info, median, timer
from tui_chat.core import e2ee
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.events import ContentDelta, SentAs
from tui_chat.core.models import ChatMessage, Role

CHUNKS = 20_000
RUNS = 7
MODEL = f"bench/{CHUNKS}"


@contextlib.contextmanager
def fake_e2ee_process() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.fake_chutes_e2ee", "--port", str(port), "--model", MODEL],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent)
    try:
        assert process.stdout is not None
        process.stdout.readline()  # "serving …" once it listens
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def read(client: ProviderClient, mode: str) -> tuple[float, float]:
    """Seconds and this process's CPU seconds to turn the reply into typed events."""
    start, cpu = timer(), time.process_time()
    count, private = 0, False
    messages = [ChatMessage(role=Role.USER, content="x")]
    async for event in client.stream_chat(MODEL, messages, e2ee=mode):  # type: ignore[arg-type]
        if isinstance(event, ContentDelta):
            count += 1
        elif isinstance(event, SentAs):
            private = True
    elapsed = timer() - start, time.process_time() - cpu
    assert count == CHUNKS and private == (mode == "required"), (count, private)
    return elapsed


async def measure(url: str) -> dict[str, Figure]:
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": url})
    provider = msgspec.structs.replace(provider, spec=msgspec.structs.replace(
        provider.spec, e2ee="auto"))
    plain, private = [], []
    async with ProviderClient(provider, "cpk_bench_key_0123456789") as client:
        await read(client, "off")  # warm up both sides (the chute's listing, a nonce pool)
        await read(client, "required")
        for _ in range(RUNS):
            plain.append(await read(client, "off"))
            private.append(await read(client, "required"))
    print("  plain / encrypted by run: " + ", ".join(
        f"{p:.2f} / {e:.2f} s (cpu {pc:.2f} / {ec:.2f})"
        for (p, pc), (e, ec) in zip(plain, private, strict=True)), flush=True)
    return {
        "e2ee.plain_20k_chunks_cpu_s": info(median([c for _, c in plain]), "s"),
        "e2ee.encrypted_20k_chunks_cpu_s": info(median([c for _, c in private]), "s"),
        "e2ee.encrypted_20k_chunks_wall_s": info(median([w for w, _ in private]), "s"),
        "e2ee.cpu_ratio_to_plain": figure(
            median([e / p for (_, p), (_, e) in zip(plain, private, strict=True)]), 1.3, "x"),
    }


def run() -> dict[str, Figure]:
    with fake_e2ee_process() as url:
        return asyncio.run(measure(url))


def reader_at(revision: str) -> Callable[..., Any]:
    """`_decrypted` as the commit `revision` wrote it."""
    root = Path(__file__).parent.parent
    source = subprocess.run(["git", "show", f"{revision}:tui_chat/core/e2ee.py"], cwd=root,
                            capture_output=True, text=True, check=True).stdout
    module = types.ModuleType(f"e2ee_at_{revision}")
    exec(compile(source, f"{revision}:tui_chat/core/e2ee.py", "exec"), module.__dict__)
    reader: Callable[..., Any] = module._decrypted
    return reader


async def against(url: str, revision: str, runs: int) -> None:
    readers = {revision: reader_at(revision), "today": e2ee._decrypted}
    ratios: dict[str, list[float]] = {name: [] for name in readers}
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": url})
    provider = msgspec.structs.replace(provider, spec=msgspec.structs.replace(
        provider.spec, e2ee="auto"))
    async with ProviderClient(provider, "cpk_bench_key_0123456789") as client:
        await read(client, "off")
        await read(client, "required")
        for turn in range(runs):
            names = list(readers) if turn % 2 == 0 else list(reversed(readers))
            for name in names:
                e2ee._decrypted = readers[name]
                _, plain = await read(client, "off")
                _, private = await read(client, "required")
                ratios[name].append(private / plain)
                print(f"  {name}: cpu {private:.3f} / {plain:.3f} s = {private / plain:.3f}",
                      flush=True)
    e2ee._decrypted = readers["today"]
    for name, values in ratios.items():
        print(f"{name}: median of {len(values)} ratios {median(values):.3f}x "
              f"({', '.join(f'{v:.2f}' for v in values)})")


if __name__ == "__main__":
    if sys.argv[1:2] != ["--against"] or len(sys.argv) < 3:
        sys.exit("usage: python -m benchmarks.bench_e2ee --against REV [RUNS]")
    with fake_e2ee_process() as address:
        asyncio.run(against(address, sys.argv[2], int(sys.argv[3]) if sys.argv[3:] else 6))
