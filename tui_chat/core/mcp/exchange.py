"""The MCP servers as the exchange's `ToolBox` (core.tool_exchange).

`McpToolBox` offers the tools of the servers enabled for a conversation, started on first
use by the workspace's `ServerManager` (which outlives the exchange: servers are started once
per run). Each call goes through `loop.run_call`: checked, put to the user when the server's
policy says so (through the exchange's asker, or approved without asking with
`approve_all`: `ask --approve-tools`), run, and its result text returned. The conversation's
grants ("always for this tool / server") live as long as the workspace.

Imported only when a conversation has servers enabled: the SDK comes with the manager.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tui_chat.core.asker import Asker
from tui_chat.core.mcp.approval import Answer, Grants
from tui_chat.core.mcp.loop import (
    Approval,
    CallAsker,
    CallProgress,
    CallRequest,
    CallStarted,
    LoopEvent,
    approvals_from,
    run_call,
)
from tui_chat.core.mcp.manager import ServerManager
from tui_chat.core.mcp.tools import openai_tools
from tui_chat.core.models import ToolCall
from tui_chat.core.tool_exchange import CallOutcome, Cancel, RunProgress


async def _approve_all(request: CallRequest) -> Approval:
    return Approval(Answer.ONCE)


class McpToolBox:
    """The tools of `servers` (names of `manager`'s), for one exchange."""

    def __init__(self, manager: ServerManager, servers: Sequence[str], asker: Asker,
                 grants: Grants, *, approve_all: bool = False) -> None:
        self.manager = manager
        self.servers = list(servers)
        self.grants = grants
        self.max_steps = manager.settings.max_steps
        self._ask: CallAsker = _approve_all if approve_all else approvals_from(asker)

    async def offered(self) -> list[dict[str, Any]]:
        return openai_tools(await self.manager.tools(self.servers))

    def failures(self) -> dict[str, str]:
        """Why each server that could not start did not (its sentence)."""
        return {name: sentence for name, sentence in self.manager.failures().items()
                if name in self.servers}

    def server_of(self, name: str) -> str | None:
        spec = self.manager.find(name)
        return spec.server if spec is not None else None

    async def run(self, call: ToolCall, started: Callable[[Cancel], None],
                  progress: RunProgress | None = None) -> CallOutcome:
        def heard(event: LoopEvent) -> None:
            if isinstance(event, CallStarted):
                started(event.cancel)
            elif isinstance(event, CallProgress) and progress is not None:
                progress.update(event.progress, event.total, event.message)

        record = await run_call(call.id, call.name, call.arguments, self.manager, self._ask,
                                self.grants, heard)
        return CallOutcome(record.status, record.result, record.server,
                           record.seconds if record.status not in ("denied", "invalid")
                           else None, record.files)
