"""Start-up of `tui-chat` to a ready prompt, in a fresh process each time (interpreter start and
every import included; see ui_driver.startup), headless at 120×40: with an empty store, with
10,000 stored conversations × 50 messages and with 100,000 × 10 (generated once, cached:
ui_stores); and, as the reference, a bare Textual app with a TextArea and a Footer started the
same way to its first frame (ui_driver.bare). Runs are interleaved run by run so that all see
the same machine; medians of RUNS.

Targets: empty ≤ 0.5 s and ≤ 1.25 × the bare Textual app; 10,000 and 100,000 conversations
≤ 1.2 × empty. Run: `python -m benchmarks ui_startup`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Figure, figure, info, machine_reference, median, report
from benchmarks.ui_stores import CACHE, many_conversations

RUNS = 7
ROOT = Path(__file__).parent.parent


def bench_env(folder: Path, store: Path) -> dict[str, str]:
    """The environment of one run. Bytecode is cached (outside the repo, in CACHE) even where
    PYTHONDONTWRITEBYTECODE is set, as it is for an installed tui-chat (pip compiles it):
    without it every run compiles each of tui-chat's modules from source again."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("CHUTES_", "SUTRA_", "TUI_CHAT_", "TEXTUAL"))
           and key != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=str(CACHE / "pycache"), XDG_CONFIG_HOME=str(folder / "config"),
               XDG_DATA_HOME=str(folder / "data"),
               XDG_CACHE_HOME=str(folder / "cache"), TUI_CHAT_DB=str(store),
               CHUTES_API_KEY="bench-key", CHUTES_BASE_URL="http://127.0.0.1:9/v1")
    return env


def start_once(store: Path, mode: str = "startup") -> tuple[float, float]:
    """Seconds from launch to the first ready frame of `mode` (ui_driver: startup or bare),
    and the CPU seconds the process had used by then."""
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        folder = Path(name)
        out = folder / "out.json"
        launched = time.time()
        subprocess.run([sys.executable, "-m", "benchmarks.ui_driver", mode, str(out),
                        repr(launched)], env=bench_env(folder, store), cwd=ROOT, check=True,
                       timeout=60)
        result = json.loads(out.read_text())
        assert result["code"] == 0, result
        return float(result["ready_s"]), float(result["cpu_s"])


def run() -> dict[str, Figure]:
    many = many_conversations()
    scale = many_conversations(100_000, 10)  # the same cached file as bench_store's
    reference = machine_reference()
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        empty = Path(name) / "empty.sqlite3"
        cases = {"bare Textual": (empty, "bare"), "empty": (empty, "startup"),
                 "10,000 conversations": (many, "startup"),
                 "100,000 conversations": (scale, "startup")}
        walls: dict[str, list[float]] = {label: [] for label in cases}
        cpus: dict[str, list[float]] = {label: [] for label in cases}
        for store, mode in cases.values():
            start_once(store, mode)  # warm the page cache (and the bytecode) for each
        for _ in range(RUNS):
            for label, (store, mode) in cases.items():
                wall, cpu = start_once(store, mode)
                walls[label].append(wall)
                cpus[label].append(cpu)
    for label in cases:
        print(f"  {label}: " + ", ".join(f"{v:.3f}" for v in walls[label])
              + " s; CPU " + ", ".join(f"{v:.3f}" for v in cpus[label]) + " s", flush=True)
    wall = {label: median(values) for label, values in walls.items()}
    cpu = {label: median(values) for label, values in cpus.items()}
    empty_s = wall["empty"]
    return {
        "ui.startup_machine_reference_s": info(reference, "s"),
        "ui.startup_bare_textual_s": info(wall["bare Textual"], "s"),
        "ui.startup_empty_store_s": figure(empty_s, 0.5, "s"),
        "ui.startup_over_bare_textual": figure(empty_s / wall["bare Textual"], 1.25, "x"),
        "ui.startup_cpu_over_bare_textual": info(cpu["empty"] / cpu["bare Textual"], "x"),
        "ui.startup_10k_conversations_s": info(wall["10,000 conversations"], "s"),
        "ui.startup_10k_over_empty": figure(wall["10,000 conversations"] / empty_s, 1.2, "x"),
        "ui.startup_100k_conversations_s": info(wall["100,000 conversations"], "s"),
        "ui.startup_100k_over_empty": figure(wall["100,000 conversations"] / empty_s, 1.2, "x"),
    }


if __name__ == "__main__":
    report("ui_startup", run())
