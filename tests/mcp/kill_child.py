"""A tui-chat exchange run in a process of its own, to be killed mid-call by the test.

`python -m tests.mcp.kill_child STORE` sends "run the slow tool" through a Workspace with the
fault server as the tool server `faults` (approve = "always"), to the fake provider at
$CHUTES_BASE_URL, and prints RUNNING when the call runs; then waits for the SIGKILL."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tests.mcp.conftest import fault_server
from tui_chat.core.config import Settings
from tui_chat.core.mcp.config import McpSettings
from tui_chat.core.model_facts import ModelSettings
from tui_chat.core.store import Store
from tui_chat.core.tool_exchange import ToolCallStarted
from tui_chat.core.workspace import Workspace

MODEL = "deepseek-ai/DeepSeek-V3-0324"


def settings() -> Settings:
    return Settings(mcp=McpSettings(servers={"faults": fault_server(approve="always")}),
                    models={f"chutes:{MODEL}": ModelSettings(tools=True)})


async def main(path: Path) -> None:
    with Store.open(path) as store:
        workspace = Workspace(settings(), store, env=dict(os.environ))
        async for event in workspace.send("run the slow tool"):
            if isinstance(event, ToolCallStarted):
                print("RUNNING", flush=True)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
