"""Tool servers for the MCP tests: real ones, run from this interpreter."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tui_chat.core.mcp.config import McpServerConfig, McpSettings

ROOT = str(Path(__file__).resolve().parents[2])


def fault_server(mode: str = "ok", **options: object) -> McpServerConfig:
    """The SDK-built fault server (tests/mcp/fault_server.py) in `mode`."""
    env = {"PYTHONPATH": ROOT, "FAULT_MARKER": "${FAULT_MARKER}", "FAULT_STATE": "${FAULT_STATE}"}
    return McpServerConfig(command=sys.executable, args=["-m", "tests.mcp.fault_server", mode],
                           env=env, **options)  # type: ignore[arg-type]


def time_server(**options: object) -> McpServerConfig:
    """mcp-server-time from PyPI (the test extra)."""
    return McpServerConfig(command=sys.executable,
                           args=["-m", "mcp_server_time", "--local-timezone", "UTC"],
                           **options)  # type: ignore[arg-type]


@pytest.fixture
def markers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """FAULT_MARKER and FAULT_STATE point into `tmp_path`."""
    monkeypatch.setenv("FAULT_MARKER", str(tmp_path / "marker"))
    monkeypatch.setenv("FAULT_STATE", str(tmp_path / "state"))
    return tmp_path


@pytest.fixture
async def manager_of() -> AsyncIterator[object]:
    """Builds ServerManagers from {name: config}, and closes them after the test."""
    from tui_chat.core.mcp.manager import ServerManager

    made: list[ServerManager] = []

    def make(servers: dict[str, McpServerConfig], roots: list[Path] | None = None,
             **options: object) -> ServerManager:
        manager = ServerManager(McpSettings(servers=servers, **options),  # type: ignore[arg-type]
                                env=dict(os.environ), roots=roots)
        made.append(manager)
        return manager

    yield make
    for manager in made:
        await manager.aclose()
