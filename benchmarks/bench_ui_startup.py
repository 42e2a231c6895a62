"""Start-up of `tui-chat` to a ready prompt, in a fresh process each time (interpreter start and
every import included; see ui_driver.startup), headless at 120×40: with an empty store, and with
10,000 stored conversations × 50 messages (generated once, cached: ui_stores). Runs of the two
are interleaved so that both see the same machine; medians of RUNS.

Targets: empty ≤ 0.5 s; 10,000 conversations ≤ 1.2 × empty.
Run: `python -m benchmarks ui_startup`.
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


def start_once(store: Path) -> float:
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        folder = Path(name)
        out = folder / "out.json"
        launched = time.time()
        subprocess.run([sys.executable, "-m", "benchmarks.ui_driver", "startup", str(out),
                        repr(launched)], env=bench_env(folder, store), cwd=ROOT, check=True,
                       timeout=60)
        result = json.loads(out.read_text())
        assert result["code"] == 0, result
        return float(result["ready_s"])


def run() -> dict[str, Figure]:
    many = many_conversations()
    reference = machine_reference()
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        empty = Path(name) / "empty.sqlite3"
        start_once(empty)  # warm the page cache for both
        start_once(many)
        empty_s, many_s = [], []
        for _ in range(RUNS):
            empty_s.append(start_once(empty))
            many_s.append(start_once(many))
    print("  empty: " + ", ".join(f"{v:.3f}" for v in empty_s), flush=True)
    print("  10,000 conversations: " + ", ".join(f"{v:.3f}" for v in many_s), flush=True)
    empty_median, many_median = median(empty_s), median(many_s)
    return {
        "ui.startup_machine_reference_s": info(reference, "s"),
        "ui.startup_empty_store_s": figure(empty_median, 0.5, "s"),
        "ui.startup_10k_conversations_s": info(many_median, "s"),
        "ui.startup_10k_over_empty": figure(many_median / empty_median, 1.2, "x"),
    }


if __name__ == "__main__":
    report("ui_startup", run())
