"""Start-up with five tool servers configured against start-up with none (issue 23): servers
start on first use, never on the start-up path, so the first frame must not move.

Measured exactly as `bench_ui_startup` measures the empty store (`start_once`: a fresh
process, interpreter start and every import included, headless 120×40, to the first frame
with the prompt focused; bytecode cached; medians of RUNS, the two cases interleaved run by
run, which goes first alternating so that neither always follows the other; the median of
the pairs' ratios shown beside). "None": no config.toml at all, as in `bench_ui_startup`.
"Five": a config.toml with five `[mcp.servers.*]` sections, four commands (stdio) and one
`url` (Streamable HTTP), enabled, with `${VAR}`s, env and headers. Each command, were it
ever run, first appends its name to a file in the run's folder: after every run that file
must not exist (no server was started before the first frame), and the process must not
have imported the SDK (`mcp`, `mcp_types`, `httpx2`) by then; either breaks the benchmark,
not just its figure.

Targets: five servers ≤ 1.05 × none (wall; CPU shown beside it).
Run: `python -m benchmarks mcp_startup`. `python -m benchmarks.bench_mcp_startup
--instructions [RUNS]` counts instead the instructions to the first frame of each case
under callgrind (as `benchmarks.instructions`; needs valgrind, about a minute a count; take
the second run), the figure that hardly moves with the machine's load.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_ui_startup import ROOT, bench_env
from benchmarks.common import Figure, figure, info, machine_reference, median, report

RUNS = 11
SDK = ("mcp", "mcp_types", "httpx2")

CHILD = """\
import json, os, sys
from pathlib import Path
from benchmarks import ui_driver

def at_frame():
    from tui_chat.core.paths import config_file
    loaded = [m for m in {sdk!r} if m in sys.modules]
    Path(sys.argv[3]).write_text(json.dumps([loaded, config_file().exists()]))
    if {stop!r}:
        os._exit(0)

ui_driver.AT_FRAME = at_frame
ui_driver.startup(Path(sys.argv[1]), float(sys.argv[2]))
"""


def five_servers(folder: Path) -> str:
    """A config.toml with five tool servers; each command writes its name to
    `folder/started` first thing, were it started."""
    started = folder / "started"

    def stdio(name: str, then: str) -> str:
        script = f"echo {name} >> '{started}'; exec {then}"
        return (f"[mcp.servers.{name}]\ncommand = \"sh\"\nargs = [\"-c\", {json.dumps(script)}]\n")

    return "\n".join([
        stdio("time", f"{sys.executable} -m mcp_server_time --local-timezone UTC")
        + 'approve = "read-only"\n',
        stdio("everything", "npx -y @modelcontextprotocol/server-everything stdio")
        + "timeout = 30\n",
        stdio("faults", f"{sys.executable} -m tests.mcp.fault_server ok")
        + f'env = {{ PYTHONPATH = {json.dumps(str(ROOT))}, TOKEN = "${{HOME}}" }}\n'
        + f"cwd = {json.dumps(str(folder))}\n",
        stdio("files", "npx -y @modelcontextprotocol/server-filesystem /tmp")
        + 'approve = "ask"\nenabled = true\n',
        '[mcp.servers.search]\nurl = "http://127.0.0.1:9/mcp"\n'
        'headers = { Authorization = "Bearer ${HOME}" }\napprove = "always"\n',
    ])


def start_once(*, servers: bool) -> tuple[float, float]:
    """Seconds from launch to the first ready frame, and the CPU seconds used by then; with
    `servers`, the config.toml of `five_servers`. Asserts no server started, no SDK loaded."""
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        folder = Path(name)
        env = bench_env(folder, folder / "empty.sqlite3")
        if servers:
            (folder / "config" / "tui-chat").mkdir(parents=True)
            (folder / "config" / "tui-chat" / "config.toml").write_text(five_servers(folder))
        out, loaded = folder / "out.json", folder / "loaded.json"
        launched = time.time()
        subprocess.run([sys.executable, "-c", CHILD.format(sdk=SDK, stop=False), str(out),
                        repr(launched), str(loaded)], env=env, cwd=ROOT, check=True,
                       timeout=60)
        result = json.loads(out.read_text())
        assert result["code"] == 0, result
        sdk, configured = json.loads(loaded.read_text())
        assert sdk == [], f"the SDK was imported before the first frame: {sdk}"
        assert configured == servers, "the app did not read the config.toml written for it"
        assert not (folder / "started").exists(), (
            f"a server was started before the first frame: {(folder / 'started').read_text()}")
        return float(result["ready_s"]), float(result["cpu_s"])


def run() -> dict[str, Figure]:
    reference = machine_reference()
    cases = {"none": False, "five servers": True}
    walls: dict[str, list[float]] = {label: [] for label in cases}
    cpus: dict[str, list[float]] = {label: [] for label in cases}
    for servers in cases.values():
        start_once(servers=servers)  # warm the page cache and the bytecode
    for run_number in range(RUNS):
        order = list(cases.items())
        for label, servers in order if run_number % 2 == 0 else reversed(order):
            ready_s, cpu_s = start_once(servers=servers)
            walls[label].append(ready_s)
            cpus[label].append(cpu_s)
    for label in cases:
        print(f"  {label}: " + ", ".join(f"{v:.3f}" for v in walls[label])
              + " s; CPU " + ", ".join(f"{v:.3f}" for v in cpus[label]) + " s", flush=True)
    wall = {label: median(values) for label, values in walls.items()}
    cpu = {label: median(values) for label, values in cpus.items()}
    return {
        "mcp.startup_machine_reference_s": info(reference, "s"),
        "mcp.startup_no_servers_s": info(wall["none"], "s"),
        "mcp.startup_five_servers_s": info(wall["five servers"], "s"),
        "mcp.startup_five_over_none": figure(wall["five servers"] / wall["none"], 1.05, "x"),
        "mcp.startup_cpu_five_over_none": info(cpu["five servers"] / cpu["none"], "x"),
        "mcp.startup_paired_five_over_none": info(median(
            [five / none for five, none in zip(walls["five servers"], walls["none"],
                                               strict=True)]), "x"),
    }


def count(*, servers: bool) -> int:
    """Instructions from the interpreter's start to the first frame (callgrind)."""
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        folder = Path(name)
        env = bench_env(folder, folder / "empty.sqlite3")
        if servers:
            (folder / "config" / "tui-chat").mkdir(parents=True)
            (folder / "config" / "tui-chat" / "config.toml").write_text(five_servers(folder))
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={folder / 'cg'}",
             sys.executable, "-c", CHILD.format(sdk=SDK, stop=True), str(folder / "out.json"),
             "0.0", str(folder / "loaded.json")],
            env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
        found = re.search(r"Collected : (\d+)", result.stderr)
        assert found is not None, result.stderr[-2000:]
        assert not (folder / "started").exists()
        return int(found.group(1))


def main(argv: list[str]) -> int:
    if "--instructions" not in argv:
        report("mcp_startup", run())
        return 0
    runs = int(next((a for a in argv if a.isdigit()), "2"))
    for _ in range(runs):
        none, five = count(servers=False), count(servers=True)
        print(f"no config {none / 1e6:,.0f} M, five tool servers {five / 1e6:,.0f} M: "
              f"{five / none:.4f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
