"""The README's two example tool servers (issue 23: "the README says how to add a server,
with the two real servers as examples") are valid config.toml, and the first one, as
written but for the Python it names, starts and lists its tools through `tui-chat mcp list`.
The docs page's examples are valid config too."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from tui_chat import cli
from tui_chat.core.config import load_settings

ROOT = Path(__file__).resolve().parents[2]
TOML = re.compile(r"```toml\n(.*?)```", re.S)


def server_blocks(page: str) -> list[str]:
    text = (ROOT / page).read_text(encoding="utf-8")
    return [block for block in TOML.findall(text) if "[mcp.servers." in block]


@pytest.mark.parametrize("page", ["README.md", "docs/tools.md"])
def test_the_examples_are_valid_config(page: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEARCH_TOKEN", "not-a-real-token")
    [block] = server_blocks(page)
    config = tmp_path / "config.toml"
    config.write_text(block, encoding="utf-8")
    servers = load_settings(config).mcp.servers
    assert {"time", "everything"} <= set(servers)
    assert servers["time"].args[:2] == ["-m", "mcp_server_time"]
    assert servers["everything"].args == ["-y", "@modelcontextprotocol/server-everything",
                                          "stdio"]


def test_the_readmes_time_server_starts_as_written(capsys: pytest.CaptureFixture[str]
                                                   ) -> None:
    [block] = server_blocks("README.md")
    time_only = block.split("[mcp.servers.everything]")[0]
    assert 'command = "python3"' in time_only
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "tui-chat"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(
        time_only.replace('"python3"', json.dumps(sys.executable)), encoding="utf-8")
    assert cli.main(["mcp", "list"]) == 0
    out = capsys.readouterr().out
    assert "  starts; protocol 2026-07-28 (stateless); 2 tools" in out
    assert "time__get_current_time  (read-only)" in out
