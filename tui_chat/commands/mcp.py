"""`tui-chat mcp list`: each tool server of config.toml, whether it starts, its protocol era
and its tools, or the one sentence that says why it cannot be used.

The servers are started together (each within its `start_timeout`) and stopped at the end.
A tool's description is the server's text: drawn sanitized, its first line only. The exit
code is 1 when an enabled server cannot be used (so a script can check a setup), else 0.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from tui_chat.commands.context import Context
from tui_chat.core.errors import ExitCode
from tui_chat.core.text import sanitize

DESCRIPTION_WIDTH = 72


def add_mcp_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = commands.add_parser("mcp", help="the tool servers (MCP) of config.toml",
                              description="Tool servers declared under [mcp.servers.NAME].")
    actions = mcp.add_subparsers(dest="mcp_command", metavar="ACTION", required=True)
    actions.add_parser("list", help="start each server and list its tools",
                       description="Start each server, show its protocol era and its tools, "
                       "or why it cannot be used.")


async def run_mcp(args: argparse.Namespace, context: Context, out: TextIO | None = None
                  ) -> int:
    from tui_chat.core.mcp.manager import ServerManager

    out = sys.stdout if out is None else out
    settings = context.settings().mcp
    if not settings.servers:
        print("No tool servers: add one under [mcp.servers.NAME] in config.toml (see the "
              "README).", file=out)
        return int(ExitCode.OK)
    manager = ServerManager(settings, env=context.env)
    try:
        reports = await manager.reports()
    finally:
        await manager.aclose()
    by_name = {report.name: report for report in reports}
    code = ExitCode.OK
    for name, server in settings.servers.items():
        where = server.url or " ".join([server.command or "", *server.args])
        print(f"{sanitize(name)}  ({server.transport}: {sanitize(where)}; "
              f"approve = {server.approve})", file=out)
        report = by_name.get(name)
        if report is None:
            print("  disabled (enabled = false)", file=out)
        elif report.failure is not None:
            code = ExitCode.FAILURE
            print(f"  fails: {sanitize(report.failure)}", file=out)
        else:
            count = len(report.tools)
            print(f"  starts; protocol {report.era}; {count} tool{'s' * (count != 1)}",
                  file=out)
            for tool in report.tools:
                print(f"    {tool.qualified}{'  (read-only)' if tool.read_only else ''}"
                      f"{_description(tool.description)}", file=out)
    return int(code)


def _description(text: str) -> str:
    line = sanitize(text).strip().split("\n", 1)[0].strip()
    if len(line) > DESCRIPTION_WIDTH:
        line = line[:DESCRIPTION_WIDTH - 1] + "…"
    return f"  {line}" if line else ""
