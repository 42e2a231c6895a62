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
from benchmarks.ui_stores import many_conversations

RUNS = 7
ROOT = Path(__file__).parent.parent


def bench_env(folder: Path, store: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("CHUTES_", "SUTRA_", "TUI_CHAT_", "TEXTUAL"))}
    env.update(XDG_CONFIG_HOME=str(folder / "config"), XDG_DATA_HOME=str(folder / "data"),
               XDG_CACHE_HOME=str(folder / "cache"), TUI_CHAT_DB=str(store),
               CHUTES_API_KEY="bench-key", CHUTES_BASE_URL="http://127.0.0.1:9/v1")
    return env


def start_once(store: Path, mode: str = "startup") -> float:
    """Seconds from launch to the first ready frame of `mode` (ui_driver: startup or bare)."""
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        folder = Path(name)
        out = folder / "out.json"
        launched = time.time()
        subprocess.run([sys.executable, "-m", "benchmarks.ui_driver", mode, str(out),
                        repr(launched)], env=bench_env(folder, store), cwd=ROOT, check=True,
                       timeout=60)
        result = json.loads(out.read_text())
        assert result["code"] == 0, result
        return float(result["ready_s"])


def run() -> dict[str, Figure]:
    many = many_conversations()
    scale = many_conversations(100_000, 10)  # the same cached file as bench_store's
    reference = machine_reference()
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        empty = Path(name) / "empty.sqlite3"
        cases = {"bare Textual": (empty, "bare"), "empty": (empty, "startup"),
                 "10,000 conversations": (many, "startup"),
                 "100,000 conversations": (scale, "startup")}
        times: dict[str, list[float]] = {label: [] for label in cases}
        for store, mode in cases.values():
            start_once(store, mode)  # warm the page cache for each
        for _ in range(RUNS):
            for label, (store, mode) in cases.items():
                times[label].append(start_once(store, mode))
    for label, values in times.items():
        print(f"  {label}: " + ", ".join(f"{v:.3f}" for v in values), flush=True)
    bare, empty_s = median(times["bare Textual"]), median(times["empty"])
    many_s, scale_s = median(times["10,000 conversations"]), median(times["100,000 conversations"])
    return {
        "ui.startup_machine_reference_s": info(reference, "s"),
        "ui.startup_bare_textual_s": info(bare, "s"),
        "ui.startup_empty_store_s": figure(empty_s, 0.5, "s"),
        "ui.startup_over_bare_textual": figure(empty_s / bare, 1.25, "x"),
        "ui.startup_10k_conversations_s": info(many_s, "s"),
        "ui.startup_10k_over_empty": figure(many_s / empty_s, 1.2, "x"),
        "ui.startup_100k_conversations_s": info(scale_s, "s"),
        "ui.startup_100k_over_empty": figure(scale_s / empty_s, 1.2, "x"),
    }


if __name__ == "__main__":
    report("ui_startup", run())
