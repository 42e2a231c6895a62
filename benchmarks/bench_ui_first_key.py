"""The first key a user types, echoed: `tui-chat` in a real pseudo-terminal (120×40, as a
terminal runs it: interpreter start, every import, the terminal's own driver), a key written
the moment the prompt's placeholder first reaches the terminal, and the time until the
terminal receives that key drawn in the prompt. The reference is a bare Textual app (a
TextArea with a placeholder and a Footer) run and typed into the same way. Runs interleaved,
medians of RUNS; the figures are ratios to the bare app, so that a loaded machine weighs on
both sides.

Whatever runs right after the first frame (the warm-up thread, the model listing, gc) must
not hold the first keys: target ≤ 1.25 × the bare app's first echo (issue 24 measured 2.19×
in tmux). The time to the prompt itself is the start-up figure's (bench_ui_startup), shown
here for reference. Run: `python -m benchmarks ui_first_key`.
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

from benchmarks.bench_ui_startup import bench_env
from benchmarks.common import Figure, figure, info, median, report

RUNS = int(os.environ.get("BENCH_RUNS", "7"))
ROWS, COLUMNS = 40, 120
KEY = "§"  # drawn as these bytes and nowhere else in either app's output
KEY_BYTES = KEY.encode()
ROOT = Path(__file__).parent.parent

BARE_APP = """
from textual.app import App
from textual.widgets import Footer, TextArea

class Bare(App):
    def compose(self):
        yield TextArea(id="prompt", placeholder="Message (Enter sends)")
        yield Footer()

    def on_mount(self):
        self.query_one(TextArea).focus()

Bare().run()
"""


def first_echo(argv: list[str], ready: bytes, env: dict[str, str]) -> tuple[float, float]:
    """(seconds from launch to `ready` on the terminal, seconds from then to the key's echo)."""
    main, child = os.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    launched = time.monotonic()
    process = subprocess.Popen(argv, stdin=child, stdout=child, stderr=child, env=env,
                               cwd=ROOT, start_new_session=True)
    os.close(child)
    seen, typed_at, shown_at = b"", 0.0, 0.0
    try:
        while not shown_at:
            readable, _, _ = select.select([main], [], [], 30)
            if not readable:
                raise TimeoutError(f"nothing on the terminal for 30 s: {seen[-300:]!r}")
            data = os.read(main, 65536)
            now = time.monotonic()
            if not typed_at:
                seen += data
                if ready in seen:
                    os.write(main, KEY_BYTES)
                    typed_at = now
            elif KEY_BYTES in data:
                shown_at = now
    finally:
        process.kill()
        process.wait()
        os.close(main)
    return typed_at - launched, shown_at - typed_at


def run() -> dict[str, Figure]:
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        folder = Path(name)
        env = {**bench_env(folder, folder / "empty.sqlite3"), "TERM": "xterm-256color",
               "COLUMNS": str(COLUMNS), "LINES": str(ROWS)}
        cases = {
            "bare Textual": ([sys.executable, "-c", BARE_APP], b"Message (Enter sends)"),
            "tui-chat": ([sys.executable, "-m", "tui_chat"], b"Message (Enter sends, "),
        }
        prompts: dict[str, list[float]] = {label: [] for label in cases}
        echoes: dict[str, list[float]] = {label: [] for label in cases}
        for argv, ready in cases.values():
            first_echo(argv, ready, env)  # the page cache and the bytecode, once each
        for _ in range(RUNS):
            for label, (argv, ready) in cases.items():
                prompt, echo = first_echo(argv, ready, env)
                prompts[label].append(prompt)
                echoes[label].append(echo)
    for label in cases:
        print(f"  {label}: prompt " + ", ".join(f"{v:.3f}" for v in prompts[label])
              + " s; echo " + ", ".join(f"{v * 1000:.0f}" for v in echoes[label]) + " ms",
              flush=True)
    prompt = {label: median(values) for label, values in prompts.items()}
    echo = {label: median(values) for label, values in echoes.items()}
    return {
        "prompt shown, tui-chat over bare": info(prompt["tui-chat"] / prompt["bare Textual"], "x"),
        "first key echoed, tui-chat": info(echo["tui-chat"] * 1000, "ms"),
        "first key echoed, bare Textual": info(echo["bare Textual"] * 1000, "ms"),
        "first key echoed, tui-chat over bare": figure(
            echo["tui-chat"] / echo["bare Textual"], 1.25, "x"),
    }

if __name__ == "__main__":
    report("ui_first_key", run())
