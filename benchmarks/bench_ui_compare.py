"""Comparing models in the app, in a real terminal (tmux, 120×40), against the fake provider
in its own process: two replies at once cost at most twice one (issue 24).

Each run is a fresh `tui-chat` app in a fresh tmux pane (benchmarks/peers/terminal.py: a
private tmux server, the app's CPU read from /proc), on a fresh store, with two providers
configured on the same loopback fake provider (Chutes and "mirror"):
- one: `go` typed, then Enter: one 20,000-chunk Markdown reply (benchmarks/textgen.py,
  `bench/markdown-20000`) at full loopback speed;
- two: the same, with the two models compared at once (the workspace's `choose_several`, as
  the model picker's "compare" does, set by the launcher below before the prompt is typed):
  each streams the same 20,000-chunk reply.
Measured from Enter: the app's CPU (user + system, all its threads) and wall time to the end
of the replies (the first screen read by `capture-pane` showing the reply's last line, once
per reply), and its CPU until the app is idle again (the first IDLE_WINDOW seconds after the
end in which it used under IDLE_SHARE of a core; the CPU at that window's start).

Figures: the medians of RUNS runs each, one and two interleaved, and two over one, CPU to the
end and CPU to idle (targets ≤ 2.0), wall time for reference.
Run: `python -m benchmarks ui_compare` (about a minute; needs tmux).
`python -m benchmarks.bench_ui_compare [RUNS]` runs it alone.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import (
    Figure,
    fake_provider_process,
    figure,
    info,
    machine_reference,
    median,
    report,
)
from benchmarks.peers.apps import base_env
from benchmarks.peers.terminal import Pane, Terminal

RUNS = 3
MODEL = "bench/markdown-20000"
SENTINEL = "total_399 = compute(399, 48) + 1"
"""The reply's last line (the last line of its last code block; once in the reply)."""
READY = "Enter sends"  # the prompt's placeholder
PROMPT = "go"
SETTLE = 1.0
"""Seconds the app is left alone once ready (its warm-up thread runs while a user types)."""
IDLE_WINDOW, IDLE_SHARE = 1.0, 0.03
TIMEOUT = 180.0


@dataclass
class Run:
    seconds: float
    cpu_to_end: float
    cpu_to_idle: float


def launch(url: str, folder: Path, compare: bool) -> None:
    """In the pane: the app as `tui-chat -m MODEL` starts it, with "mirror" configured and,
    for `compare`, both models chosen for the next message."""
    from tui_chat.core.config import ProviderConfig, Settings
    from tui_chat.core.secrets import Secret
    from tui_chat.core.store import Store
    from tui_chat.ui.app import TuiChatApp
    from tui_chat.ui.services import AppServices

    settings = Settings(providers={"mirror": ProviderConfig(
        base_url=url, api_key=Secret("bench-key"), models=[MODEL])})
    with Store.open(folder / "store.sqlite3") as store:
        services = AppServices.create(settings, store, config_path=folder / "config.toml",
                                      env={"CHUTES_BASE_URL": url, "CHUTES_API_KEY": "bench"},
                                      model=MODEL)
        if compare:
            services.workspace.choose_several([("chutes", MODEL), ("mirror", MODEL)])
        TuiChatApp(services).run()


def once(terminal: Terminal, url: str, root: Path, compare: bool) -> Run:
    folder = Path(tempfile.mkdtemp(prefix="run-", dir=root))
    env = {**base_env(folder, str(Path(sys.executable).parent)),
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    argv = [sys.executable, "-m", "benchmarks.bench_ui_compare", "app", url, str(folder),
            "two" if compare else "one"]
    pane = terminal.start(argv, env, folder)
    try:
        ready = pane.wait_for(lambda s: READY in s and (not compare or "compare 2" in s),
                              TIMEOUT)
        if ready is None:
            raise RuntimeError("the app did not start:\n" + pane.screen())
        time.sleep(SETTLE)
        pane.type(PROMPT)
        if pane.wait_for(lambda s: PROMPT in s and READY not in s, TIMEOUT) is None:
            raise RuntimeError("the prompt did not show the text typed:\n" + pane.screen())
        replies = 2 if compare else 1
        cpu, began = pane.cpu(), time.perf_counter()
        pane.keys("Enter")
        end = pane.wait_for(lambda s: s.count(SENTINEL) >= replies, TIMEOUT, poll=0.02)
        if end is None:
            raise RuntimeError("the replies never ended on screen:\n" + pane.screen())
        at_end = pane.cpu()
        return Run(end - began, at_end - cpu, idle_cpu(pane) - cpu)
    finally:
        pane.close()


def idle_cpu(pane: Pane) -> float:
    """The app's CPU when it goes idle: at the start of the first IDLE_WINDOW in which it
    used under IDLE_SHARE of a core."""
    marks = [(time.perf_counter(), pane.cpu())]
    deadline = marks[0][0] + TIMEOUT
    while time.perf_counter() < deadline:
        time.sleep(0.1)
        now = (time.perf_counter(), pane.cpu())
        marks.append(now)
        start = next((m for m in marks if now[0] - m[0] <= IDLE_WINDOW + 0.05), None)
        if (start is not None and now[0] - start[0] >= IDLE_WINDOW - 0.05
                and now[1] - start[1] < IDLE_SHARE * (now[0] - start[0])):
            return start[1]
    raise RuntimeError("the app never went idle")


def measure(url: str, runs: int) -> dict[str, Figure]:
    reference = machine_reference()
    ones: list[Run] = []
    twos: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        root = Path(name)
        with Terminal(root / "tmux.sock") as terminal:
            once(terminal, url, root, compare=False)  # warm up (bytecode, disk caches)
            for _ in range(runs):
                ones.append(once(terminal, url, root, compare=False))
                twos.append(once(terminal, url, root, compare=True))
    for label, items in (("one", ones), ("two", twos)):
        print(f"  {label}: " + ", ".join(f"{r.seconds:.2f} s (cpu {r.cpu_to_end:.2f} s, "
                                         f"{r.cpu_to_idle:.2f} s to idle)" for r in items),
              flush=True)

    def ratio(field: str) -> float:
        return (median([getattr(r, field) for r in twos])
                / median([getattr(r, field) for r in ones]))

    return {
        "ui.compare_machine_reference_s": info(reference, "s"),
        "ui.compare_one_cpu_to_end_s": info(median([r.cpu_to_end for r in ones]), "s"),
        "ui.compare_two_cpu_to_end_s": info(median([r.cpu_to_end for r in twos]), "s"),
        "ui.compare_two_over_one_cpu_to_end": figure(ratio("cpu_to_end"), 2.0, "x"),
        "ui.compare_two_over_one_cpu_to_idle": figure(ratio("cpu_to_idle"), 2.0, "x"),
        "ui.compare_two_over_one_wall": info(ratio("seconds"), "x"),
    }


def run(runs: int = RUNS) -> dict[str, Figure]:
    with fake_provider_process() as url:
        return measure(url, runs)


if __name__ == "__main__":
    if sys.argv[1:2] == ["app"]:
        launch(sys.argv[2], Path(sys.argv[3]), sys.argv[4] == "two")
    else:
        figures = run(int(sys.argv[1]) if len(sys.argv) > 1 else RUNS)
        report("ui_compare", figures)
        print(json.dumps({k: v["value"] for k, v in figures.items()}))
