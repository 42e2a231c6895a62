"""An MCP server built with the SDK, for the faults a client must survive.

`python -m tests.mcp.fault_server MODE` serves over stdio. MODE:
- `ok`: tools `echo`, `slow` (sleeps until cancelled, writes a marker file when the
  cancellation reaches it), `crash` (exits mid-call with status 7), `big` (a 10 MB text),
  `structured`, `image`, `picture` (an image and two links), `env` (the server's
  environment as JSON), `read` (read-only),
  `timed` (sleeps `ms` milliseconds; returns the seconds it spent, as the server measured
  them: benchmarks/bench_mcp_round_trip.py subtracts them), `garbage` (writes a line of
  invalid JSON on stdout, then answers), `garbage_only` (writes one, then never answers).
- `slow-start`: sleeps before serving (longer than any test's start timeout).
- `many`: 500 tools (`t0` … `t499`).
- `http:PORT`: the `ok` tools over Streamable HTTP at http://127.0.0.1:PORT/mcp, with
  `authorization` (the request's Authorization header).
Environment: `FAULT_MARKER` is the file `slow` writes when cancelled; `FAULT_STATE`, a file
whose presence makes `crash` crash only once (it creates it), for the restart test.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    ImageContent,
    InputRequiredResult,
    ResourceLink,
    ToolAnnotations,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAA"
       "AABJRU5ErkJggg==")
"""A 1×1 PNG."""


class City(BaseModel):
    city: str
    days: int = 1


def _mark(suffix: str, text: str) -> None:
    Path(os.environ["FAULT_MARKER"] + suffix).write_text(text, encoding="utf-8")


def build(mode: str) -> MCPServer:
    server = MCPServer("faults")
    if mode == "many":
        for index in range(500):
            server.add_tool(lambda index=index: f"tool {index}", name=f"t{index}",
                            description=f"Tool number {index}")
        return server

    @server.tool(description="Says back what it is given.")
    def echo(text: str) -> str:
        return text

    @server.tool(description="Reads only.", annotations=ToolAnnotations(readOnlyHint=True))
    def read() -> str:
        return "read"

    @server.tool(description="Runs until cancelled.")
    async def slow() -> str:
        _mark(".started", "")
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            _mark("", "cancelled")
            raise
        return "done"

    @server.tool(description="Exits in the middle of the call.")
    def crash() -> str:
        state = os.environ.get("FAULT_STATE")
        if state is None or not Path(state).exists():
            if state is not None:
                Path(state).write_text("crashed once", encoding="utf-8")
            print("about to crash", file=sys.stderr, flush=True)
            os._exit(7)
        return "survived"

    @server.tool(description="Sleeps ms milliseconds; says how long it took, in seconds.")
    async def timed(ms: int) -> str:
        began = time.perf_counter()
        await asyncio.sleep(ms / 1000)
        return f"{time.perf_counter() - began:.6f}"

    @server.tool(description="Writes a line that is not JSON on stdout, then answers.")
    def garbage() -> str:
        os.write(1, b"{this is not JSON\n")
        return "answered after the garbage"

    @server.tool(description="Writes a line that is not JSON on stdout instead of answering.")
    async def garbage_only() -> str:
        os.write(1, b"<html>not JSON either</html>\n")
        _mark(".garbage", "")
        await asyncio.sleep(3600)
        return "never"

    @server.tool(description="Ten megabytes of text.")
    def big() -> str:
        return "x" * 10_000_000

    @server.tool(description="A structured result.")
    def structured() -> dict[str, int]:
        return {"a": 1, "b": 2}

    @server.tool(description="A tiny image.")
    def image() -> ImageContent:
        return ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png")

    @server.tool(description="An image and two resource links, an https one and a file one.")
    def picture() -> list[ImageContent | ResourceLink]:
        return [ImageContent(type="image", data=PNG, mime_type="image/png"),
                ResourceLink(type="resource_link", name="the docs",
                             uri="https://docs.example/page"),
                ResourceLink(type="resource_link", name="passwd", uri="file:///etc/passwd")]

    @server.tool(description="The request's Authorization header (over HTTP).")
    def authorization(ctx: Context) -> str:
        return (ctx.headers or {}).get("authorization", "(none)")

    @server.tool(description="Reports its progress in three steps.")
    async def progress(ctx: Context) -> str:
        for step in (1, 2, 3):
            await ctx.report_progress(step, 3, f"step {step}")
        return "done"

    @server.tool(description="Reports step 1 of 3, with a message, then waits.")
    async def progress_held(ctx: Context) -> str:
        await ctx.report_progress(1, 3, "step 1: warming up")
        await asyncio.sleep(3600)
        return "never"

    @server.tool(description="Asks the user for a city.")
    async def ask_city(ctx: Context) -> Any:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:  # input asked for in the result
            answer = (ctx.input_responses or {}).get("city")
            if answer is None:
                return InputRequiredResult(input_requests={"city": ElicitRequest(
                    params=ElicitRequestFormParams(
                        message="Which city?", requested_schema=City.model_json_schema()))})
            assert isinstance(answer, ElicitResult)
            if answer.action != "accept" or answer.content is None:
                return answer.action
            data = City.model_validate(answer.content)
            return f"{data.city} for {data.days} days"
        elicited = await ctx.elicit("Which city?", City)  # a request of the server's own
        if elicited.action == "accept":
            return f"{elicited.data.city} for {elicited.data.days} days"
        return elicited.action

    @server.tool(description="The server's working folder.")
    def cwd() -> str:
        return os.getcwd()

    @server.tool(description="The server's environment.")
    def env() -> dict[str, str]:
        return dict(os.environ)

    return server


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    if mode == "slow-start":
        time.sleep(60)
    if mode.startswith("http:"):  # Streamable HTTP on 127.0.0.1:PORT/mcp
        build("ok").run("streamable-http", host="127.0.0.1", port=int(mode[5:]))
        return
    build(mode).run("stdio")


if __name__ == "__main__":
    main()
