"""A stdio transport for the SDK's `Client` that keeps what a failure sentence needs.

The SDK's own `stdio_client` hides its process, so when a server dies tui-chat could not say
with which status, nor what it last wrote on stderr, nor that what it wrote on stdout was not
MCP at all. This one does the same work (newline-delimited JSON-RPC over the pipes; the server
in a session of its own; on close: stdin closed, a grace period, then SIGTERM and SIGKILL to
its whole process group) and records those facts in a `ProcessWatch`. POSIX only: on Windows
the manager uses the SDK's `stdio_client`.

Imported by `manager` only (it imports the SDK).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio
import anyio.abc
import mcp_types
from mcp.shared.message import SessionMessage

if TYPE_CHECKING:  # what a transport yields (named only in the SDK's private module)
    from mcp.client._transport import TransportStreams

STDERR_TAIL = 4096
"""Bytes of a server's stderr kept, for the last line in a failure sentence."""
GRACE = 2.0
"""Seconds a server has to exit after its stdin closes, then again after SIGTERM."""


@dataclass
class ProcessWatch:
    """What is known of one run of a server's process."""

    pid: int | None = None
    returncode: int | None = None
    stderr_tail: bytes = b""
    not_mcp: str | None = None
    """The first line on stdout that was not a JSON-RPC message."""
    exited: asyncio.Event = field(default_factory=asyncio.Event)
    garbage: asyncio.Event = field(default_factory=asyncio.Event)

    def last_stderr_line(self) -> str | None:
        lines = [line.strip() for line in
                 self.stderr_tail.decode("utf-8", "replace").splitlines() if line.strip()]
        return lines[-1][:300] if lines else None


@contextlib.asynccontextmanager
async def stdio_transport(argv: list[str], env: Mapping[str, str], cwd: str | None,
                          watch: ProcessWatch) -> AsyncIterator[TransportStreams]:
    """Run `argv` and speak JSON-RPC over its pipes. Raises OSError when it cannot start."""
    process = await anyio.open_process(argv, env=dict(env), cwd=cwd, stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       start_new_session=True)
    watch.pid = process.pid
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def stdout_reader() -> None:
        assert process.stdout is not None
        pieces: list[bytes] = []
        async with read_writer:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for chunk in process.stdout:
                    *lines, rest = chunk.split(b"\n")
                    if lines:
                        lines[0] = b"".join([*pieces, lines[0]])
                        pieces = []
                        for line in lines:
                            if line.strip():
                                await read_writer.send(_parsed(line, watch))
                    if rest:
                        pieces.append(rest)
        await _reaped(process, watch)

    async def stderr_reader() -> None:
        assert process.stderr is not None
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            async for chunk in process.stderr:
                watch.stderr_tail = (watch.stderr_tail + chunk)[-STDERR_TAIL:]

    async def stdin_writer() -> None:
        assert process.stdin is not None
        try:
            async with write_reader:
                async for message in write_reader:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(data.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()  # the session sees the end, not a request hanging

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(stdout_reader)
        tasks.start_soon(stderr_reader)
        tasks.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await _stop(process, watch)
                for stream in (read_stream, write_stream, read_writer, write_reader):
                    await stream.aclose()
            tasks.cancel_scope.cancel()


def _parsed(line: bytes, watch: ProcessWatch) -> SessionMessage | Exception:
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line,
                                                                               by_name=False))
    except ValueError as error:
        if watch.not_mcp is None:
            watch.not_mcp = line.decode("utf-8", "replace").strip()[:120]
            watch.garbage.set()
        return error


async def _reaped(process: anyio.abc.Process, watch: ProcessWatch) -> None:
    """After stdout ends: the exit status, if the process ends within the grace period."""
    with anyio.move_on_after(GRACE, shield=True):
        watch.returncode = await process.wait()
        watch.exited.set()


async def _stop(process: anyio.abc.Process, watch: ProcessWatch) -> None:
    if process.stdin is not None:
        with contextlib.suppress(Exception):
            await process.stdin.aclose()
    for sent in (None, signal.SIGTERM, signal.SIGKILL):
        if sent is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sent)
        with anyio.move_on_after(GRACE):
            watch.returncode = await process.wait()
            break
    watch.exited.set()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)  # what is left of its group: its children
    with anyio.move_on_after(GRACE), contextlib.suppress(Exception):
        await process.aclose()  # its pipes and asyncio's transport, before the loop closes
