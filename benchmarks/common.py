"""Helpers shared by the benchmarks: a fake provider in its own process, figures and reports."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypedDict

RESULTS = Path(__file__).parent / "results"


class Figure(TypedDict):
    value: float
    target: float | None  # None: a figure shown for reference, with no target of its own
    unit: str
    ok: bool


def figure(value: float, target: float, unit: str) -> Figure:
    """A measured figure and its target; lower is better for every figure we track."""
    return {"value": round(value, 4), "target": target, "unit": unit, "ok": value <= target}


def info(value: float, unit: str) -> Figure:
    """A figure printed for reference (e.g. the raw time a ratio is based on)."""
    return {"value": round(value, 4), "target": None, "unit": unit, "ok": True}


def report(name: str, figures: dict[str, Figure]) -> None:
    for key, item in figures.items():
        target = item["target"]
        mark = "    " if target is None else ("ok  " if item["ok"] else "MISS")
        goal = "(reference)" if target is None else f"(target <= {target:g})"
        print(f"{mark} {key:<48} {item['value']:>10.3f} {item['unit']:<6} {goal}", flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(figures, indent=2) + "\n")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def fake_provider_process(flavour: str = "chutes") -> Iterator[str]:
    """The loopback fake provider in a separate process, so it does not share our GIL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.fakeprovider", "--port", str(port), "--flavour", flavour],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent,
    )
    try:
        assert process.stdout is not None
        process.stdout.readline()  # "serving …" once it listens
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(timeout=10)


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def timer() -> float:
    return time.perf_counter()


def machine_reference() -> float:
    """Seconds for a fixed pure-Python loop (median of 5): this machine's speed right now.
    A shared 2-core VM varies by a third from minute to minute; read the figures beside it."""
    times = []
    for _ in range(5):
        began = timer()
        sum(i * i for i in range(1_000_000))
        times.append(timer() - began)
    return median(times)
