"""One tool server's connection, started on demand and restarted once.

A `ServerConnection` starts its server through the SDK's `Client` (both protocol eras: it
probes `server/discover`, then falls back to the `initialize` handshake) over
`stdio.stdio_transport` or Streamable HTTP, entered and left in a task of its own (anyio's
scopes must be left by the task that entered them), and lists its tools, every page. A
connection lost (the server crashed, mid-call or idle) is started again on its next use, once;
a second loss leaves it down.

Every failure is one sentence (`McpFailure`): the command is missing; it exited with status N
and this last line of stderr; it did not answer within N s of starting; it wrote something that
is not MCP on stdout.

This module imports the SDK (about 0.6 s): only `manager` imports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import mcp_types
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tui_chat import __version__
from tui_chat.core.mcp.config import (
    McpServerConfig,
    UnsetVariableError,
    expand,
    server_environment,
)
from tui_chat.core.mcp.elicitation import ElicitAnswer, ElicitRequest
from tui_chat.core.mcp.stdio import ProcessWatch, stdio_transport

# The SDK logs through `logging`; with no handler of the app's, Python would print its
# warnings on stderr, over the full-screen UI. Its failures reach the user as sentences.
logging.getLogger("mcp").addHandler(logging.NullHandler())
logging.getLogger("mcp").propagate = False

MAX_PAGES = 100
"""Pages of `tools/list` read from one server (a server that pages forever stops there)."""


Elicit = Callable[[ElicitRequest], Awaitable[ElicitAnswer]]


class McpFailure(Exception):
    """A server that cannot be used, in one sentence."""

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence


def era_of(version: str) -> str:
    kind = "stateless" if version in MODERN_PROTOCOL_VERSIONS else "initialize handshake"
    return f"{version} ({kind})"


class ServerConnection:
    """One server's connection: a task that holds the SDK's client open until closed."""

    def __init__(self, name: str, config: McpServerConfig, env: Mapping[str, str] | None,
                 roots: Sequence[Path], elicit: Elicit | None) -> None:
        self.name, self.config, self._env, self._roots = name, config, env, roots
        self._elicit = elicit
        self.client: Client | None = None
        self.tools: list[mcp_types.Tool] = []
        self.watch = ProcessWatch()
        self.losses = 0
        self.failure: str | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        self._lock = asyncio.Lock()

    @property
    def era(self) -> str | None:
        return era_of(self.client.protocol_version) if self.client is not None else None

    async def ready(self) -> Client:
        """The connected client: started (or started again, once) if need be."""
        async with self._lock:
            if self.client is not None and self._task is not None and not self._task.done():
                return self.client
            if self.failure is not None:
                raise McpFailure(self.failure)
            if self._task is not None:  # it was running, and its connection was lost
                await self.lost()
                if self.failure is not None:
                    raise McpFailure(self.failure)
            try:
                await self._start()
            except McpFailure as failure:
                self.failure = failure.sentence
                raise
            assert self.client is not None
            return self.client

    async def _start(self) -> None:
        self.watch = ProcessWatch()
        self._closing = asyncio.Event()
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._run(ready), name=f"mcp server {self.name}")
        garbage = asyncio.create_task(self.watch.garbage.wait())
        waiting: set[asyncio.Future[Any]] = {ready, garbage}
        try:
            done, _ = await asyncio.wait(waiting, timeout=self.config.start_timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            garbage.cancel()
        if ready in done:
            error = ready.exception()
            if error is None:
                return
            await self.close()
            raise McpFailure(self._start_sentence(error)) from None
        await self.close()
        if done:
            raise McpFailure(self._not_mcp_sentence())
        raise McpFailure(f"The tool server {self.name} did not answer within "
                         f"{self.config.start_timeout:g} s of starting{self._stderr_clause()}.")

    async def _run(self, ready: asyncio.Future[None]) -> None:
        try:
            async with self._connected() as client:
                self.tools = await _all_tools(client)
                self.client = client
                ready.set_result(None)
                await self._closing.wait()
        except asyncio.CancelledError:
            ready.cancel()
            raise
        except BaseException as error:  # a failure to start goes to the starter
            if not ready.done():
                ready.set_exception(_leaf(error))
            if not isinstance(error, Exception):
                raise  # KeyboardInterrupt, SystemExit
        finally:
            self.client = None

    def _client(self, target: Any) -> Client:
        """The SDK's client for `target`: roots answered (the folders the user works in, for
        servers that ask, as the filesystem server does); elicitation only when the session
        can ask the user (else not advertised, and the SDK declines); no sampling."""
        roots = mcp_types.ListRootsResult(roots=[
            mcp_types.Root(uri=path.resolve().as_uri(), name=path.name or str(path))
            for path in self._roots])

        async def list_roots(context: Any) -> mcp_types.ListRootsResult:
            return roots

        elicit = self._elicit

        async def elicitation(context: Any, params: Any) -> mcp_types.ElicitResult:
            assert elicit is not None
            url = getattr(params, "url", None)
            schema = getattr(params, "requested_schema", None)
            action, content = await elicit(ElicitRequest(self.name, params.message, schema,
                                                         url))
            return mcp_types.ElicitResult(action=action,
                                          content=content if action == "accept" else None)

        return Client(target, client_info=mcp_types.Implementation(
            name="tui-chat", version=__version__), list_roots_callback=list_roots,
            elicitation_callback=elicitation if elicit is not None else None)

    @contextlib.asynccontextmanager
    async def _connected(self) -> AsyncIterator[Client]:
        config, where = self.config, f"[mcp.servers.{self.name}]"
        env = os.environ if self._env is None else self._env
        if config.url is not None:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            url = expand(config.url, env, f"url of {where}")
            headers = {key: expand(value, env, f"headers.{key} of {where}")
                       for key, value in config.headers.items()}
            # As the SDK's own client: 30 s to connect or write, 5 minutes between reads (a
            # call's event stream may stay quiet while the tool works); no redirects followed
            # (the transport follows those that stay on the server's origin itself).
            timeout = httpx2.Timeout(30.0, read=300.0)
            async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http:
                transport = streamable_http_client(url, http_client=http)
                async with self._client(transport) as client:
                    yield client
            return
        argv, cwd = self._launch(env)
        child_env = server_environment(config, self.name, env)
        if sys.platform == "win32":  # pragma: no cover - the SDK's transport there
            from mcp.client.stdio import StdioServerParameters

            params = StdioServerParameters(command=argv[0], args=argv[1:], env=child_env,
                                           cwd=cwd)
            async with self._client(params) as client:
                yield client
            return
        transport = stdio_transport(argv, child_env, cwd, self.watch)
        async with self._client(transport) as client:
            yield client

    def _launch(self, env: Mapping[str, str]) -> tuple[list[str], str | None]:
        """The command line (its program found on PATH) and working folder; McpFailure."""
        config, where = self.config, f"[mcp.servers.{self.name}]"
        assert config.command is not None
        argv = [expand(config.command, env, f"command of {where}"),
                *(expand(arg, env, f"args of {where}") for arg in config.args)]
        cwd = (os.path.expanduser(expand(config.cwd, env, f"cwd of {where}"))
               if config.cwd else None)
        if cwd is not None and not os.path.isdir(cwd):
            raise McpFailure(f"The tool server {self.name} cannot start: its cwd {cwd!r} is "
                             "not a folder.")
        found = shutil.which(argv[0], path=env.get("PATH"))
        if found is None:
            raise McpFailure(f"The tool server {self.name} cannot start: the command "
                             f"{argv[0]!r} was not found (install it, or give its full path "
                             f"as command under {where}).")
        return [found, *argv[1:]], cwd

    def _start_sentence(self, error: BaseException) -> str:
        if isinstance(error, McpFailure):
            return error.sentence
        if isinstance(error, UnsetVariableError):
            return f"The tool server {self.name} cannot start: {error}."
        if isinstance(error, PermissionError):
            return (f"The tool server {self.name} cannot start: its command cannot be run "
                    "(permission denied).")
        if self.watch.not_mcp is not None:
            return self._not_mcp_sentence()
        if self.config.url is None and self.watch.returncode is not None:
            return (f"The tool server {self.name} exited with status {self.watch.returncode} "
                    f"before it answered{self._stderr_clause()}.")
        if self.config.url is not None:
            return (f"The tool server {self.name} at {self.config.url} could not be used: "
                    f"{reason(error)}.")
        return f"The tool server {self.name} could not start: {reason(error)}."

    def _not_mcp_sentence(self) -> str:
        return (f"The tool server {self.name} speaks no MCP: it wrote "
                f"{self.watch.not_mcp!r} on stdout, which is not a JSON-RPC message.")

    def _stderr_clause(self) -> str:
        line = self.watch.last_stderr_line()
        return f"; its last line on stderr: {line!r}" if line else " (nothing on stderr)"

    async def lost(self) -> str:
        """Count a lost connection (the next use restarts the server, once), and say it."""
        if self.config.url is None:  # its exit status, for the sentence
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5):
                    await self.watch.exited.wait()
        self.losses += 1
        sentence = self._lost_sentence()
        if self.losses > 1:
            self.failure = (f"The tool server {self.name} stopped twice, so tui-chat no "
                            "longer restarts it (see `tui-chat mcp list`).")
        await self.close()
        return sentence

    def _lost_sentence(self) -> str:
        status = (f"exited with status {self.watch.returncode}"
                  if self.watch.returncode is not None else "closed its connection")
        again = ("it will be started again for the next call" if self.losses <= 1
                 else "it will not be started again")
        return (f"The tool server {self.name} {status} during the call"
                f"{self._stderr_clause()}; {again}.")

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        self._closing.set()
        try:
            if self.client is None:  # still starting: nothing to wait for
                raise TimeoutError
            await asyncio.wait_for(asyncio.shield(task), timeout=10)
        except Exception:  # whatever it died of, it is gone
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


async def _all_tools(client: Client) -> list[mcp_types.Tool]:
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


def _leaf(error: BaseException) -> BaseException:
    """The first error inside exception groups (anyio's task groups wrap what they raise)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def reason(error: BaseException) -> str:
    error = _leaf(error)
    if isinstance(error, MCPError):
        return error.error.message.rstrip(".")
    text = str(error).strip().rstrip(".") or type(error).__name__
    return text.splitlines()[0][:200]
