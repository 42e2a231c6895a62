"""`python -m benchmarks peers [--runs N] [--timeout S] [--only SCENARIO,…] [--apps APP,…]`:
every scenario for every app, interleaved (run 1 of each app, then run 2 of each, …), the
medians and their ratios to tui-chat as a Markdown table, and everything in
benchmarks/results/peers.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, fake_provider_process, machine_reference, median
from benchmarks.peers.apps import App, InstallFailed, Peer, all_apps, describe
from benchmarks.peers.scenarios import PACED_RATE, REPLY_CHUNKS, Run, Scenarios, Workspace
from benchmarks.peers.terminal import Terminal, TmuxMissing, require_tmux

CACHE = Path(os.environ.get("TUI_CHAT_BENCH_CACHE",
                            Path(tempfile.gettempdir()) / "tui-chat-bench-cache"))
SCENARIOS = ("reply", "paced", "open500", "open2000", "startup")
TITLES = {
    "reply": f"{REPLY_CHUNKS:,}-chunk Markdown reply, send → its end on screen",
    "paced": f"{REPLY_CHUNKS:,} chunks at {PACED_RATE}/s: CPU share over the "
             f"{REPLY_CHUNKS // PACED_RATE} s",
    "open500": "open a 500-message conversation → its last message on screen",
    "open2000": "open a 2,000-message conversation → its last message on screen",
    "startup": "start-up to a ready prompt, empty store",
}


def arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks peers",
                                     description="tui-chat, elia and oterm side by side in tmux.")
    parser.add_argument("--runs", type=int, default=3, help="runs of each app per scenario")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds a run may take before it counts as not finished")
    parser.add_argument("--only", default=",".join(SCENARIOS),
                        help=f"scenarios, comma-separated: {', '.join(SCENARIOS)}")
    parser.add_argument("--apps", default="tui-chat,elia,oterm")
    parser.add_argument("--show", action="store_true",
                        help="print the table of the last run again (results/peers.json)")
    return parser.parse_args(argv)


def machine() -> dict[str, Any]:
    cpu = next((line.split(":", 1)[1].strip() for line in
                Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
               platform.processor())
    memory = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                  if line.startswith("MemTotal:"))
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gb": round(memory / 2**20),
            "system": platform.platform(), "python": platform.python_version()}


def load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def run_all(apps: list[App], scenarios: list[str], runs: int, timeout: float
            ) -> dict[str, dict[str, list[Run]]]:
    results: dict[str, dict[str, list[Run]]] = {name: {app.name: [] for app in apps}
                                                for name in scenarios}
    with (tempfile.TemporaryDirectory(prefix="tui-chat-peers-") as name,
          fake_provider_process() as url, Terminal(Path(name) / "tmux.sock") as terminal):
        workspace = Workspace(Path(name))
        bench = Scenarios(terminal, workspace, url, timeout=max(timeout, 120.0))
        for app in apps:  # bytecode compiled, files in the page cache: not counted
            print(f"  warming up {app.name}", flush=True)
            bench.startup(app)
        bench.timeout = timeout
        plans: dict[str, Callable[[App], Run]] = {
            "reply": bench.reply, "paced": bench.paced, "startup": bench.startup,
            "open500": lambda app: bench.open(app, 500),
            "open2000": lambda app: bench.open(app, 2000)}
        for scenario in scenarios:
            for number in range(runs):
                for app in apps:
                    run = plans[scenario](app)
                    results[scenario][app.name].append(run)
                    print(f"  {scenario} {number + 1}/{runs} {app.name}: {show_run(run)}",
                          flush=True)
    return results


def show_run(run: Run) -> str:
    parts = ["—" if run.seconds is None else f"{run.seconds:.2f} s",
             f"CPU {run.cpu_seconds:.2f} s"]
    if run.cpu_share is not None:
        parts.append(f"{100 * run.cpu_share:.0f} % of a core")
    if run.rss_mb is not None:
        parts.append(f"{run.rss_mb:.0f} MB")
    return ", ".join(parts) + (f" ({run.note})" if run.note else "")


def middle(values: list[float | None]) -> float:
    """The median, a run that did not finish counting as slower than any that did."""
    return median([math.inf if value is None else value for value in values])


def summarise(results: dict[str, dict[str, list[Run]]]) -> dict[str, dict[str, Any]]:
    summary: dict[str, dict[str, Any]] = {}
    for scenario, by_app in results.items():
        rows: dict[str, Any] = {}
        for name, runs in by_app.items():
            seconds = middle([r.seconds for r in runs])
            row: dict[str, Any] = {
                "seconds": None if math.isinf(seconds) else seconds,
                "finished": sum(r.seconds is not None for r in runs), "runs": len(runs),
                "cpu_seconds": median([r.cpu_seconds for r in runs]),
                "notes": sorted({r.note for r in runs if r.note})}
            shares = [r.cpu_share for r in runs if r.cpu_share is not None]
            if shares:
                row["cpu_share"] = median(shares)
            sizes = [r.rss_mb for r in runs if r.rss_mb is not None]
            if sizes:
                row["rss_mb"] = median(sizes)
            rows[name] = row
        summary[scenario] = rows
    return summary


def _only_idle(row: dict[str, Any]) -> list[str]:
    """The notes of a scenario whose unfinished runs all went idle (none ran out of time)."""
    notes: list[str] = row["notes"]
    return notes if notes and all("idle" in note for note in notes) else []


def _of(row: dict[str, Any] | None, key: str) -> float | None:
    return None if row is None else row.get(key)


def _ratio(value: float | None, base: float | None, bound: bool) -> str:
    if value is None or not base:
        return ""
    return f" ({'> ' if bound else ''}{value / base:.{1 if value / base < 10 else 0}f}×)"


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value < 10 else f"{value:.0f} s"


def cells(row: dict[str, Any], base: dict[str, Any] | None, key: str, timeout: float
          ) -> tuple[str, str]:
    """The main figure of a scenario and its second line, with the ratios to `base`."""
    if key == "paced":
        share = row.get("cpu_share")
        main = "" if share is None else f"{100 * share:.0f} %" + _ratio(
            share, _of(base, "cpu_share"), False)
        end, idle = row["seconds"], _only_idle(row)
        if end is not None:
            return main, f"end on screen at {end:.1f} s"
        return main, (f"end never on screen ({idle[0].split(',')[0]})" if idle else
                      f"end not on screen in {timeout + REPLY_CHUNKS / PACED_RATE:.0f} s")
    if row["seconds"] is None:
        idle = _only_idle(row)
        main = (f"end never on screen ({idle[0].split(',')[0]})" if idle else
                f"> {timeout:.0f} s" + _ratio(timeout, _of(base, "seconds"), True))
    else:
        main = _seconds(row["seconds"]) + _ratio(row["seconds"], _of(base, "seconds"), False)
    if key == "reply":
        unfinished = row["seconds"] is None and not _only_idle(row)
        cpu = row["cpu_seconds"]
        second = (f"CPU {'> ' if unfinished else ''}{_seconds(cpu)}"
                  + _ratio(cpu, _of(base, "cpu_seconds"), unfinished))
    elif "rss_mb" in row:
        second = f"{row['rss_mb']:.0f} MB resident"
    else:
        second = ""
    return main, second


def table(summary: dict[str, dict[str, Any]], names: list[str], timeout: float) -> str:
    lines = ["| scenario | " + " | ".join(names) + " |",
             "| --- |" + " --- |" * len(names)]
    for key, rows in summary.items():
        base = rows.get("tui-chat")
        pairs = [cells(rows[name], None if name == "tui-chat" else base, key, timeout)
                 for name in names]
        lines.append(f"| {TITLES[key]} | " + " | ".join(p[0] for p in pairs) + " |")
        if any(p[1] for p in pairs):
            lines.append("| … | " + " | ".join(p[1] for p in pairs) + " |")
    return "\n".join(lines)


def publish(meta: dict[str, Any], results: dict[str, dict[str, list[Run]]],
            names: list[str], write: bool = True) -> None:
    """The heading and table on stdout; everything in benchmarks/results/peers.json."""
    summary = summarise(results)
    versions = ", ".join(f"{name} {item['version']} (Textual {item['textual']})"
                         for name, item in meta["apps"].items())
    print(f"\n{meta['date']}; {versions}; {meta['machine']['cores']} cores "
          f"({meta['machine']['cpu']}); medians of {meta['runs']} runs; machine reference "
          f"{meta['machine_reference_s_before']:.3f} → {meta['machine_reference_s_after']:.3f} s; "
          f"load {meta['load_before']} → {meta['load_after']}\n")
    print(table(summary, names, meta["timeout_s"]))
    if not write:
        return
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "peers.json").write_text(json.dumps(
        {"meta": meta, "summary": summary,
         "runs": {s: {a: [asdict(r) for r in rs] for a, rs in by.items()}
                  for s, by in results.items()}}, indent=2) + "\n")


def main(argv: list[str]) -> int:
    args = arguments(argv)
    if args.show:
        saved = json.loads((RESULTS / "peers.json").read_text())
        results = {scenario: {name: [Run(**run) for run in runs] for name, runs in by.items()}
                   for scenario, by in saved["runs"].items()}
        publish(saved["meta"], results, list(saved["meta"]["apps"]), write=False)
        return 0
    try:
        require_tmux()
    except TmuxMissing as missing:
        print(missing, file=sys.stderr)
        return 2
    scenarios = [s for s in args.only.split(",") if s]
    unknown = sorted(set(scenarios) - set(SCENARIOS))
    wanted = args.apps.split(",")
    apps = [app for app in all_apps() if app.name in wanted]
    if unknown or not apps:
        print(f"Unknown scenario {', '.join(unknown)}: choose from {', '.join(SCENARIOS)}."
              if unknown else "No app chosen: pass --apps tui-chat,elia,oterm.", file=sys.stderr)
        return 2
    try:
        for app in apps:
            if isinstance(app, Peer):
                app.install(CACHE)
    except InstallFailed as failure:
        print(failure, file=sys.stderr)
        return 1
    meta: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"), "apps": describe(apps),
        "machine": machine(), "runs": args.runs, "timeout_s": args.timeout,
        "machine_reference_s_before": machine_reference(), "load_before": load()}
    print(f"machine reference {meta['machine_reference_s_before']:.3f} s, load {load()}",
          flush=True)
    began = time.monotonic()
    results = run_all(apps, scenarios, args.runs, args.timeout)
    meta.update(machine_reference_s_after=machine_reference(), load_after=load(),
                minutes=round((time.monotonic() - began) / 60, 1))
    publish(meta, results, [app.name for app in apps])
    return 0
