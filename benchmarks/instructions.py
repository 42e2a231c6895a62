"""Instructions to the first frame, counted by valgrind's callgrind: tui-chat started as
bench_ui_startup starts it (empty store, no config file; `--config` adds a config.toml with a
key, a custom provider and parameters) and the bare Textual app, each in a fresh process
stopped at its first frame (ui_driver.AT_FRAME). Unlike the wall and CPU times, the count
hardly moves with the machine's load (runs agree to about 0.1 %), so it shows a change of a
few per cent that the timings of a loaded machine hide. The first run after a module changed
also counts compiling it (its bytecode is cached, as bench_ui_startup caches it): take the
second. Slow: about a minute a run under valgrind; not part of `python -m benchmarks`.

Run: `python -m benchmarks.instructions [--config] [RUNS]` (needs valgrind).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.bench_ui_startup import ROOT, bench_env

CHILD = ("import os, sys; from pathlib import Path; from benchmarks import ui_driver\n"
         "ui_driver.AT_FRAME = lambda: os._exit(0)\n"
         "getattr(ui_driver, sys.argv[1])(Path(sys.argv[2]), 0.0)\n")
CONFIG = ('theme = "tui-chat-forest"\nreading_width = 90\n[parameters]\ntemperature = 0.7\n'
          '[providers.chutes]\napi_key = "cpk_bench_key_123"\n[providers.local]\n'
          'base_url = "http://127.0.0.1:9/v1"\nneeds_key = false\nmodels = ["m"]\n')


def start_env(folder: Path, *, config: bool) -> dict[str, str]:
    """The environment of a start in `folder` (bench_ui_startup's), with an empty store and,
    with `config`, the config.toml above."""
    env = bench_env(folder, folder / "empty.sqlite3")
    if config:
        (folder / "config" / "tui-chat").mkdir(parents=True)
        (folder / "config" / "tui-chat" / "config.toml").write_text(CONFIG)
    return env


def count(mode: str, *, config: bool = False) -> int:
    """Instructions from the interpreter's start to the first frame of `mode`."""
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        folder = Path(name)
        env = start_env(folder, config=config)
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={folder / 'out'}",
             sys.executable, "-c", CHILD, mode, str(folder / "out.json")],
            env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
        found = re.search(r"Collected : (\d+)", result.stderr)
        assert found is not None, result.stderr[-2000:]
        return int(found.group(1))


def main(argv: list[str]) -> int:
    config = "--config" in argv
    runs = int(next((a for a in argv if a.isdigit()), "1"))
    for _ in range(runs):
        bare = count("bare")
        app = count("startup", config=config)
        print(f"bare Textual {bare / 1e6:,.0f} M, tui-chat{' (config.toml)' if config else ''}"
              f" {app / 1e6:,.0f} M: {app / bare:.3f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
