"""Tool servers for the MCP tests: real ones, run from this interpreter."""

from __future__ import annotations

import os
import shutil
import subprocess
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


NPM = {"npm_config_prefer_offline": "true", "npm_config_fetch_retries": "1",
       "npm_config_fetch_timeout": "30000"}
"""npm uses what it has cached as it is, and with no registry gives up in about a minute."""


def _everything_installed(tmp: Path) -> Path | None:
    """server-everything installed with npm into `tmp`, or None (no npx, no registry)."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        return None
    try:
        subprocess.run(["npm", "install", "--silent", "--prefix", str(tmp),
                        "@modelcontextprotocol/server-everything"],
                       check=True, capture_output=True, timeout=300,
                       env={**os.environ, **NPM})
    except (subprocess.SubprocessError, OSError):
        return None
    entry = tmp / "node_modules" / ".bin" / "mcp-server-everything"
    return entry if entry.exists() else None


@pytest.fixture(scope="session")
def everything(tmp_path_factory: pytest.TempPathFactory) -> Path:
    found = _everything_installed(tmp_path_factory.mktemp("npm"))
    if found is None:
        pytest.skip("@modelcontextprotocol/server-everything cannot be installed here (no "
                    "node/npm, or no npm registry)")
    return found
