"""The tool servers of a session: started on first use, listed, called.

`ServerManager` holds one `connection.ServerConnection` per enabled `[mcp.servers.NAME]`. A
server starts when its tools are first asked for, or at its first call. Its tools are named for
the model across all servers (`tools.qualified_names`). A call runs under the server's
`timeout`; a caller that cancels the task running `call` (Esc) has the SDK tell the server
(`notifications/cancelled` on stdio, the request's stream closed on HTTP). A server whose
connection is lost is started again on its next use, once (see `connection`). A call a server
refuses until pages are opened (error -32042) puts each page to the user (`elicit`, URL mode)
and, when all were opened, is made again, once.

This module imports the SDK (about 0.6 s): nothing imports it until a server is needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import mcp_types
from mcp.shared.exceptions import MCPError

from tui_chat.core.mcp.config import Approval, McpSettings
from tui_chat.core.mcp.connection import (
    Elicit,
    McpFailure,
    ServerConnection,
    reason,
)
from tui_chat.core.mcp.elicitation import ElicitAnswer, ElicitRequest, domain
from tui_chat.core.mcp.results import read_result
from tui_chat.core.mcp.tools import ToolSpec, qualified_names
from tui_chat.core.models import Attachment

__all__ = ["Elicit", "ElicitAnswer", "ElicitRequest", "McpFailure", "ServerManager",
           "ServerReport", "ToolOutcome"]

CallStatus = Literal["ok", "error", "failed", "timed-out"]
Progress = Callable[[float, float | None, str | None], None]
"""(progress, total or None, message or None) as a server reports a call's progress."""


@dataclass(frozen=True)
class ToolOutcome:
    """A finished call: `text` goes back to the model as the tool's result; `files` (its
    images) are kept for the user (results.read_result)."""

    status: CallStatus
    text: str
    seconds: float
    files: tuple[Attachment, ...] = ()


@dataclass(frozen=True)
class ServerReport:
    """What `mcp list` shows of one server."""

    name: str
    era: str | None
    tools: tuple[ToolSpec, ...]
    failure: str | None


class ServerManager:
    """The enabled servers of `settings`, started on first use. Close with `aclose`."""

    def __init__(self, settings: McpSettings, env: Mapping[str, str] | None = None,
                 roots: Sequence[Path] | None = None, elicit: Elicit | None = None) -> None:
        """`env`: where `${VAR}` and a server's base environment come from (default: the
        process's); `roots`: the folders offered to servers that ask (default: the current
        one); `elicit`: asks the user for input a server needs (none: servers are told the
        client cannot)."""
        self.settings = settings
        roots = [Path.cwd()] if roots is None else list(roots)
        self._elicit = elicit
        self._deadlines: dict[str, set[asyncio.Timeout]] = {}  # of the calls running
        self._servers = {name: ServerConnection(name, config, env, roots,
                                                self._timed_out_of(name, elicit))
                         for name, config in settings.enabled_servers().items()}
        self._specs: dict[str, ToolSpec] = {}

    def _timed_out_of(self, server: str, elicit: Elicit | None) -> Elicit | None:
        """`elicit`, with the time the user takes to answer left out of the `timeout` of the
        server's calls running meanwhile (a form filled in slowly is not a call that hangs)."""
        if elicit is None:
            return None

        async def asked(request: ElicitRequest) -> ElicitAnswer:
            loop = asyncio.get_running_loop()
            paused = {deadline: when - loop.time() for deadline in self._deadlines.get(
                server, ()) if (when := deadline.when()) is not None}
            for deadline in paused:
                deadline.reschedule(None)
            try:
                return await elicit(request)
            finally:
                for deadline, left in paused.items():
                    if not deadline.expired():
                        deadline.reschedule(loop.time() + left)

        return asked

    @property
    def names(self) -> list[str]:
        return list(self._servers)

    def policy(self, server: str) -> Approval:
        return self._servers[server].config.approve

    async def reports(self, names: Sequence[str] | None = None) -> list[ServerReport]:
        """Start the servers `names` (default: all enabled) and say what each offers, under
        the names the model sees (qualified across them all), or why it cannot be used."""
        chosen = list(names or self._servers)
        specs = await self.tools(chosen)
        return [ServerReport(name, self._servers[name].era,
                             tuple(spec for spec in specs if spec.server == name),
                             self._servers[name].failure) for name in chosen]

    async def report(self, name: str) -> ServerReport:
        return (await self.reports([name]))[0]

    async def tools(self, names: Sequence[str] | None = None) -> list[ToolSpec]:
        """The tools of the servers `names` (default: all enabled), started together; a server
        that cannot start offers none (its sentence: `failures`)."""
        chosen = [self._servers[name] for name in (names or self._servers)]
        await asyncio.gather(*(_quietly(server.ready()) for server in chosen))
        listed = [(server, tool) for server in chosen if server.client is not None
                  for tool in server.tools]
        qualified = qualified_names((server.name, tool.name) for server, tool in listed)
        specs = [_spec(server.name, tool, name) for (server, tool), name
                 in zip(listed, qualified, strict=True)]
        self._specs = {spec.qualified: spec for spec in specs}
        return specs

    def failures(self) -> dict[str, str]:
        return {name: server.failure for name, server in self._servers.items()
                if server.failure is not None}

    def listed(self) -> list[ToolSpec]:
        """The tools as last listed by `tools` (none before it)."""
        return list(self._specs.values())

    def find(self, qualified: str) -> ToolSpec | None:
        """The tool the model called by `qualified`, as last listed by `tools`."""
        return self._specs.get(qualified)

    async def call(self, tool: ToolSpec, arguments: dict[str, Any],
                   on_progress: Progress | None = None) -> ToolOutcome:
        """Run one call. Cancelling the calling task cancels the call (CancelledError).
        `on_progress` hears the server's progress notifications for it."""
        server = self._servers[tool.server]
        started = time.monotonic()

        def outcome(status: CallStatus, text: str) -> ToolOutcome:
            return ToolOutcome(status, text, time.monotonic() - started)

        try:
            client = await server.ready()
        except McpFailure as failure:
            return outcome("failed", failure.sentence)
        timeout = server.config.timeout
        for attempt in (1, 2):
            try:
                async with asyncio.timeout(timeout) as deadline:
                    running = self._deadlines.setdefault(tool.server, set())
                    running.add(deadline)
                    try:
                        result = await client.call_tool(
                            tool.name, arguments, progress_callback=_progress(on_progress))
                    finally:
                        running.discard(deadline)
                break
            except TimeoutError:
                return outcome("timed-out", f"The call did not finish within {timeout:g} s, "
                                            "so tui-chat cancelled it.")
            except MCPError as error:
                if error.code == mcp_types.CONNECTION_CLOSED:
                    return outcome("failed", await server.lost())
                if error.code == mcp_types.URL_ELICITATION_REQUIRED and attempt == 1:
                    refused = await self._pages_first(tool.server, error)
                    if refused is None:
                        continue  # every page was opened: the call is made again, once
                    return outcome("failed", refused)
                return outcome("failed", f"The tool server {tool.server} refused the call: "
                                         f"{reason(error)}.")
            except Exception as error:  # a result the SDK cannot read
                return outcome("failed", f"The tool server {tool.server} answered the call "
                                         f"with something tui-chat cannot read: "
                                         f"{reason(error)}.")
        text, files = read_result(result.content, result.structured_content,
                                  is_error=bool(result.is_error),
                                  limit=self.settings.max_result_chars)
        return ToolOutcome("error" if result.is_error else "ok", text,
                           time.monotonic() - started, tuple(files))

    async def _pages_first(self, server: str, error: MCPError) -> str | None:
        """A server said the call needs pages opened first (MCP error -32042, URL mode
        elicitation): each is put to the user as a page to open; None when every one was
        opened (the call is then made again), else why the call did not run."""
        data = error.error.data if isinstance(error.error.data, dict) else {}
        pages = [page for page in data.get("elicitations") or [] if isinstance(page, dict)]
        if not pages or self._elicit is None:
            return (f"The tool server {server} needs a page opened before the call "
                    f"({reason(error)}), and tui-chat cannot ask you here.")
        for page in pages:
            url = str(page.get("url") or "")
            action, _ = await self._elicit(ElicitRequest(server, str(page.get("message") or ""),
                                                         None, url))
            if action != "accept":
                return (f"The tool server {server} needs the page on "
                        f"{domain(url) or 'an unknown domain'} opened before the call; it "
                        f"was not ({'declined' if action == 'decline' else 'cancelled'}), so "
                        "the call did not run.")
        return None

    async def aclose(self) -> None:
        await asyncio.gather(*(server.close() for server in self._servers.values()))


def _progress(on_progress: Progress | None) -> Any:
    if on_progress is None:
        return None

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        on_progress(progress, total, message)

    return heard


async def _quietly(start: Any) -> None:
    with contextlib.suppress(McpFailure):
        await start


def _spec(server: str, tool: mcp_types.Tool, qualified: str) -> ToolSpec:
    hints = tool.annotations
    return ToolSpec(server=server, name=tool.name, qualified=qualified,
                    description=tool.description or tool.title or "",
                    input_schema=dict(tool.input_schema),
                    read_only=bool(hints is not None and hints.read_only_hint))

