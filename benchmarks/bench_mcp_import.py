"""What the MCP SDK costs to import (issue 23), and what it brings in.

`mcp` (the official SDK, `mcp>=2.3,<3`) is imported only when a conversation first uses a
tool server (`tui_chat.core.mcp.manager`), never at start-up: `tests/ui/test_startup_path.py`
holds `mcp`, `mcp_types` and `httpx2` out of the modules loaded before the first frame, and
`bench_mcp_startup` checks it again at the first frame of every run. This measures what that
first use then costs, each in a fresh process (bytecode cached, as bench_ui_startup caches
it), the cases interleaved run by run, medians of RUNS:

- `import mcp` alone, in a bare interpreter (what any program pays for the SDK);
- the first use in the app: `tui_chat.core.mcp.manager` and `.exchange` imported in a process
  that has already imported what the app has loaded by its first exchange (the app and
  its screens, the workspace, the provider client, httpx, pydantic): what a user waits for,
  once, when the first message with tools goes out.

Wall and CPU time of the import itself, and the modules it adds. Also, with no timing, the
distributions `mcp` pulls in that tui-chat does not otherwise need (read from the installed
packages' metadata). Figures for reference: no target of their own (the target is that none
of it is on the start-up path). Run: `python -m benchmarks mcp_import`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from benchmarks.bench_ui_startup import ROOT, bench_env
from benchmarks.common import Figure, info, median, report

RUNS = 7
APP_FIRST_EXCHANGE = ("tui_chat.cli", "tui_chat.ui.app", "tui_chat.ui.screens.conversation",
                      "tui_chat.core.workspace", "tui_chat.core.client", "httpx", "pydantic")
CHILD = """\
import importlib, json, sys, time
for name in {before!r}:
    importlib.import_module(name)
had = set(sys.modules)
wall, cpu = time.perf_counter(), time.process_time()
for name in {measured!r}:
    importlib.import_module(name)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps([wall, cpu, len(set(sys.modules) - had)]))
"""
CASES = {
    "import mcp (bare interpreter)": ((), ("mcp",)),
    "first use in the app (manager, exchange)": (
        APP_FIRST_EXCHANGE, ("tui_chat.core.mcp.manager", "tui_chat.core.mcp.exchange")),
}


def once(before: tuple[str, ...], measured: tuple[str, ...]) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        folder = Path(name)
        result = subprocess.run(
            [sys.executable, "-c", CHILD.format(before=before, measured=measured)],
            env=bench_env(folder, folder / "empty.sqlite3"), cwd=ROOT, capture_output=True,
            text=True, check=True, timeout=120)
        wall, cpu, modules = json.loads(result.stdout.strip().splitlines()[-1])
        return float(wall), float(cpu), int(modules)


def _closure(roots: list[str]) -> set[str]:
    """The installed distributions `roots` need, themselves included (no extras)."""
    seen: set[str] = set()
    todo = [_canonical(root) for root in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        seen.add(name)
        for line in requires:
            if "extra ==" in line:
                continue
            marker = line.split(";", 1)
            if len(marker) == 2 and not _applies(marker[1]):
                continue
            todo.append(_canonical(re.split(r"[\s<>=!~\[(;]", line, maxsplit=1)[0]))
    return seen


def _applies(marker: str) -> bool:
    from packaging.markers import Marker

    return bool(Marker(marker).evaluate({"extra": ""}))


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pulled_in() -> list[str]:
    """The distributions `mcp` needs that tui-chat's other requirements do not."""
    own = [re.split(r"[\s<>=!~\[(;]", line, maxsplit=1)[0]
           for line in metadata.requires("tui-chat") or [] if "extra ==" not in line]
    others = _closure([name for name in own if _canonical(name) != "mcp"])
    return sorted(_closure(["mcp"]) - others)


def run() -> dict[str, Figure]:
    extra = pulled_in()
    print(f"  mcp and {len(extra) - 1} distributions tui-chat does not otherwise need: "
          + ", ".join(extra), flush=True)
    results: dict[str, list[tuple[float, float, int]]] = {label: [] for label in CASES}
    for before, measured in CASES.values():
        once(before, measured)  # compile and cache the bytecode
    for _ in range(RUNS):
        for label, (before, measured) in CASES.items():
            results[label].append(once(before, measured))
    for label, values in results.items():
        print(f"  {label}: " + ", ".join(f"{w:.3f}" for w, _, _ in values) + " s; CPU "
              + ", ".join(f"{c:.3f}" for _, c, _ in values) + f" s; {values[0][2]} modules",
              flush=True)
    bare, first = results["import mcp (bare interpreter)"], \
        results["first use in the app (manager, exchange)"]
    return {
        "mcp.import_bare_s": info(median([w for w, _, _ in bare]), "s"),
        "mcp.import_bare_cpu_s": info(median([c for _, c, _ in bare]), "s"),
        "mcp.import_bare_modules": info(median([float(m) for _, _, m in bare]), "n"),
        "mcp.import_first_use_s": info(median([w for w, _, _ in first]), "s"),
        "mcp.import_first_use_cpu_s": info(median([c for _, c, _ in first]), "s"),
        "mcp.import_first_use_modules": info(median([float(m) for _, _, m in first]), "n"),
        "mcp.import_distributions_added": info(float(len(extra)), "n"),
    }


if __name__ == "__main__":
    report("mcp_import", run())
