"""tui-chat's MCP client as the official conformance suite drives one:
`npx @modelcontextprotocol/conformance client --command "python -m
tests.mcp.conformance_client" --scenario NAME` starts the scenario's server and runs this
with the server's URL as its last argument (and the scenario in MCP_CONFORMANCE_SCENARIO).

It does what tui-chat does with a `url` server (`[mcp.servers.NAME] url = ...`): the
`ServerManager` connects (Streamable HTTP), lists the tools and calls each, with arguments
made from its input schema (a number is 2 + its place, a string "x", a boolean true), as a
model would; when the server asks for input (elicitation), it answers as a user who
accepts the form as tui-chat shows it, each field filled with the default the server gave.
Prints each outcome; exits 1 when a call did not end "ok".
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Mapping
from typing import Any

from tui_chat.core.mcp.config import McpServerConfig, McpSettings
from tui_chat.core.mcp.manager import ElicitAnswer, ElicitRequest, ServerManager

SAMPLE: dict[str, Any] = {"number": 2, "integer": 2, "string": "x", "boolean": True}


def arguments(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments for a tool's input schema: each property a sample value of its type."""
    made: dict[str, Any] = {}
    for place, (name, spec) in enumerate((schema.get("properties") or {}).items()):
        kind = spec.get("type", "string") if isinstance(spec, dict) else "string"
        value = SAMPLE.get(kind, "x")
        made[name] = value + place if kind in ("number", "integer") else value
    return made


async def elicit(request: ElicitRequest) -> ElicitAnswer:
    """Accept the form with its defaults (what the form shows before the user types)."""
    properties = (request.schema or {}).get("properties") or {}
    return "accept", {name: spec["default"] for name, spec in properties.items()
                      if isinstance(spec, dict) and "default" in spec}


async def main(url: str) -> int:
    manager = ServerManager(McpSettings(servers={"c": McpServerConfig(url=url)}),
                            env=dict(os.environ), elicit=elicit)
    failed = 0
    try:
        tools = await manager.tools()
        for name, failure in manager.failures().items():
            print(f"{name}: {failure}")
            failed += 1
        for tool in tools:
            outcome = await manager.call(tool, arguments(tool.input_schema))
            print(f"{tool.qualified}: {outcome.status}: {outcome.text}")
            failed += outcome.status != "ok"
    finally:
        await manager.aclose()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[-1])))
