"""`tui-chat mcp list` through the command line, against real servers."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tui_chat import cli


def _config(text: str) -> None:
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "tui-chat"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text, encoding="utf-8")


def test_each_server_its_era_and_tools_or_its_failure(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    _config(f"""
[mcp.servers.time]
command = {str(sys.executable)!r}
args = ["-m", "mcp_server_time"]
approve = "read-only"
[mcp.servers.broken]
command = "sh"
args = ["-c", "echo 'no such module' >&2; exit 2"]
[mcp.servers.off]
url = "http://127.0.0.1:9/mcp"
enabled = false
""")
    assert cli.main(["mcp", "list"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "  starts; protocol 2026-07-28 (stateless); 2 tools"
    assert lines[2].startswith("    time__get_current_time  (read-only)  Get current time")
    assert lines[5] == ("  fails: The tool server broken exited with status 2 before it "
                        "answered; its last line on stderr: 'no such module'.")
    assert lines[6].startswith("off  (http: http://127.0.0.1:9/mcp")
    assert lines[7] == "  disabled (enabled = false)"


def test_no_servers_says_how_to_add_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["mcp", "list"]) == 0
    assert "[mcp.servers.NAME]" in capsys.readouterr().out


def test_a_bad_section_stops_with_the_config_sentence(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    _config('[mcp.servers.x]\ncommand = "a"\nurl = "http://h"\n')
    assert cli.main(["mcp", "list"]) != 0
    assert "'mcp.servers.x'" in capsys.readouterr().err


def test_names_that_clash_across_servers_are_listed_resolved(
        capsys: pytest.CaptureFixture[str]) -> None:
    server = f'command = {str(sys.executable)!r}\nargs = ["-m", "mcp_server_time"]\n'
    _config(f'[mcp.servers."a.b"]\n{server}[mcp.servers.a_b]\n{server}')
    assert cli.main(["mcp", "list"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()
             if line.startswith("    ")]
    assert names == ["a_b__get_current_time", "a_b__convert_time",
                     "a_b__get_current_time_2", "a_b__convert_time_2"]
