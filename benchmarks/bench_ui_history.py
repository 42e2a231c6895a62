"""A long conversation: 10,000 messages (Markdown, a code block in every third answer; generated
once, cached: ui_stores), opened in the running app as the sidebar opens it, headless at
120×40, each run in a fresh process (ui_driver.history, which says exactly what is timed):

- open to its first frame (the newest messages drawn) ≤ 0.3 s; VmRSS of the process after it
  ≤ 150 MB; the path is read newest first, so the time until the whole of it is read (Home
  and the rest no longer wait) is reported beside it;
- Home in the message list to the frame showing the first message at the top, and End back
  to the frame showing the last one, each ≤ 100 ms (ROUNDS of each per run, median; the
  first Home of a run, whose page was never shown before, is also reported on its own: the
  app draws it ahead, off screen, once the path is read, and the Home rounds begin then).

Medians over RUNS processes. Run: `python -m benchmarks ui_history`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.bench_ui_startup import ROOT, bench_env
from benchmarks.common import Figure, figure, info, machine_reference, median, report
from benchmarks.ui_stores import long_conversation

RUNS = 3
ROUNDS = 5
MESSAGES = 10_000


def history_once(store: Path, conversation_id: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        folder = Path(name)
        out = folder / "out.json"
        subprocess.run([sys.executable, "-m", "benchmarks.ui_driver", "history", str(out),
                        conversation_id, str(ROUNDS)], env=bench_env(folder, store), cwd=ROOT,
                       check=True, timeout=300)
        result: dict[str, Any] = json.loads(out.read_text())
    assert result["messages"] == MESSAGES, result["messages"]
    return result


def run() -> dict[str, Figure]:
    store, conversation_id = long_conversation(MESSAGES)
    reference = machine_reference()
    runs = [history_once(store, conversation_id) for _ in range(RUNS)]
    for item in runs:
        print(f"  open {item['open_s']:.3f} s, whole path {item['whole_s']:.3f} s, "
              f"RSS {item['rss_before_mb']:.0f} → "
              f"{item['rss_mb']:.0f} MB, home {[round(v * 1000) for v in item['home_s']]} ms, "
              f"end {[round(v * 1000) for v in item['end_s']]} ms", flush=True)
    return {
        "ui.history_machine_reference_s": info(reference, "s"),
        "ui.open_10000_messages_s": figure(median([r["open_s"] for r in runs]), 0.3, "s"),
        "ui.open_10000_messages_whole_path_s": info(median([r["whole_s"] for r in runs]),
                                                    "s"),
        "ui.open_10000_messages_rss_mb": figure(median([r["rss_mb"] for r in runs]), 150, "MB"),
        "ui.scroll_home_ms": figure(median([1000 * median(r["home_s"]) for r in runs]), 100,
                                    "ms"),
        "ui.scroll_home_first_ms": figure(median([1000 * r["home_s"][0] for r in runs]), 100,
                                          "ms"),
        "ui.scroll_end_ms": figure(median([1000 * median(r["end_s"]) for r in runs]), 100,
                                   "ms"),
    }


if __name__ == "__main__":
    report("ui_history", run())
