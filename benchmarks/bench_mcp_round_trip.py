"""A tool round trip (issue 23): from the user's approval to the tool's result on its way to
the provider, what tui-chat adds beyond the server's own time.

The exchange is the real one both front-ends run (`Workspace.send` with tool servers on):
the loopback fake provider (tests/fakeprovider.py, in this process) streams a reply that
calls `f__timed` of the SDK-built fault server (tests/mcp/fault_server.py, over stdio, a
process of its own); the exchange's asker approves it ("Run once") and notes the moment it
answers; the provider notes the moment the next request, the one carrying the tool's result,
has arrived (its body read). The tool sleeps MS milliseconds and returns the seconds it
spent, as the server measured them around its own work. So:

    overhead = (request with the result arrived − approval given) − the server's own time

which holds everything tui-chat and the SDK do for a call: checking it, the JSON-RPC request
and its answer over the pipe (the SDK's client and server framing), the result turned into
text, the tool message saved in the store, the next request built and posted over loopback.
The server is started by the first (warm-up) exchange, as in use; ROUNDS exchanges follow,
each a new conversation (so the figure does not grow with the conversation's length: each
request carries the whole path). Median and the 90th percentile of the rounds.

For reference, the share of the SDK and the pipe: the same tool called ROUNDS times straight
through a `ServerManager` (`manager.call`, what the exchange calls), its duration less the
server's own time.

Target: overhead ≤ 20 ms (the median). Run: `python -m benchmarks mcp_round_trip`.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.common import Figure, figure, info, machine_reference, median, report
from tests.fakeprovider import FakeProvider, Reply, stream_of, tool_call_stream

if TYPE_CHECKING:
    from tui_chat.core.config import Settings

ROUNDS = 40
WARM_UP = 3
MS = 20
MODEL = "deepseek-ai/DeepSeek-V3-0324"
ROOT = Path(__file__).parent.parent


class _Approver:
    """The exchange's asker: approves every call once and notes when it did."""

    def __init__(self) -> None:
        self.approved: float | None = None

    async def confirm(self, question: str) -> bool:
        return True

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        self.approved = time.perf_counter()
        return "Run once"


class _Provider(FakeProvider):
    """The fake provider, noting when a request carrying a tool's result arrives."""

    arrived: float | None = None
    server_s: float | None = None

    def next_reply(self, request: dict[str, Any]) -> Reply:
        last = (request.get("messages") or [{}])[-1]
        if last.get("role") == "tool":
            self.arrived = time.perf_counter()
            self.server_s = float(last["content"])
        return super().next_reply(request)


def _settings() -> Settings:
    """The fault server as `f`, and the model marked as taking tools."""
    from tui_chat.core.config import Settings
    from tui_chat.core.mcp.config import McpServerConfig, McpSettings
    from tui_chat.core.model_facts import ModelSettings

    server = McpServerConfig(command=sys.executable,
                             args=["-m", "tests.mcp.fault_server", "ok"],
                             env={"PYTHONPATH": str(ROOT)})
    return Settings(mcp=McpSettings(servers={"f": server}),
                    models={f"chutes:{MODEL}": ModelSettings(tools=True)})


async def _rounds(provider: _Provider, folder: Path) -> tuple[list[float], list[float]]:
    from tui_chat.core.store import Store
    from tui_chat.core.workspace import Workspace

    settings = _settings()
    env = {"CHUTES_BASE_URL": provider.url, "CHUTES_API_KEY": "cpk_bench-0001",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    store = Store.open(folder / "store.sqlite3")
    workspace = Workspace(settings, store, env=env)
    totals: list[float] = []
    overheads: list[float] = []
    try:
        for index in range(WARM_UP + ROUNDS):
            provider.script(Reply(tool_call_stream([("f__timed", f'{{"ms": {MS}}}')],
                                                   ids=[f"call_{index}"])),
                            Reply(stream_of(["done"])))
            workspace.new_conversation()
            asker = _Approver()
            provider.arrived = provider.server_s = None
            async for _ in workspace.send(f"question {index}", asker=asker):
                pass
            assert asker.approved is not None and provider.arrived is not None, "no round trip"
            assert provider.server_s is not None
            if index >= WARM_UP:
                total = provider.arrived - asker.approved
                totals.append(total)
                overheads.append(total - provider.server_s)
    finally:
        await workspace.aclose()
        store.close()
    return totals, overheads


async def _calls(folder: Path) -> list[float]:
    """`manager.call` of the same tool, less the server's own time, ROUNDS times."""
    from tui_chat.core.mcp.manager import ServerManager

    manager = ServerManager(_settings().mcp, env=dict(os.environ))
    overheads: list[float] = []
    try:
        await manager.tools()
        tool = manager.find("f__timed")
        assert tool is not None, manager.failures()
        for index in range(WARM_UP + ROUNDS):
            began = time.perf_counter()
            outcome = await manager.call(tool, {"ms": MS})
            took = time.perf_counter() - began
            assert outcome.status == "ok", outcome
            if index >= WARM_UP:
                overheads.append(took - float(outcome.text))
    finally:
        await manager.aclose()
    return overheads


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def run() -> dict[str, Figure]:
    reference = machine_reference()
    provider = _Provider("chutes")
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name, provider:
        totals, overheads = asyncio.run(_rounds(provider, Path(name)))
        calls = asyncio.run(_calls(Path(name)))
    print("  overhead (ms): " + ", ".join(f"{v * 1000:.1f}" for v in overheads), flush=True)
    return {
        "mcp.round_trip_machine_reference_s": info(reference, "s"),
        "mcp.round_trip_total_ms": info(median(totals) * 1000, "ms"),
        "mcp.round_trip_server_own_ms": info(median(totals) * 1000
                                             - median(overheads) * 1000, "ms"),
        "mcp.round_trip_overhead_ms": figure(median(overheads) * 1000, 20, "ms"),
        "mcp.round_trip_overhead_p90_ms": info(_p90(overheads) * 1000, "ms"),
        "mcp.call_alone_overhead_ms": info(median(calls) * 1000, "ms"),
    }


if __name__ == "__main__":
    report("mcp_round_trip", run())
