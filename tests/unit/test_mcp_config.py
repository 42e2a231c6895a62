"""`[mcp.servers.NAME]` in config.toml: validated with the rest, `${VAR}` expanded at start,
and a server's environment built from a minimal base (no provider keys)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_chat.core.config import load_settings
from tui_chat.core.errors import ConfigError
from tui_chat.core.mcp.config import (
    McpServerConfig,
    UnsetVariableError,
    expand,
    server_environment,
)


def _load(tmp_path: Path, text: str) -> object:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return load_settings(path)


def test_servers_of_both_kinds_are_read(tmp_path: Path) -> None:
    settings = _load(tmp_path, """
[mcp]
max_result_chars = 5000
[mcp.servers.time]
command = "python"
args = ["-m", "mcp_server_time"]
approve = "read-only"
timeout = 5
[mcp.servers.web]
url = "https://example.com/mcp"
headers = { Authorization = "Bearer ${TOKEN}" }
enabled = false
""")
    mcp = settings.mcp  # type: ignore[attr-defined]
    assert mcp.max_result_chars == 5000
    assert mcp.servers["time"].approve == "read-only"
    assert mcp.servers["time"].transport == "stdio"
    assert mcp.servers["web"].transport == "http"
    assert list(mcp.enabled_servers()) == ["time"]


@pytest.mark.parametrize(("section", "key", "problem"), [
    ('command = "x"\nurl = "http://h/mcp"', "mcp.servers.s", "not both"),
    ('args = ["x"]', "mcp.servers.s", "needs either a command"),
    ('url = "ftp://h"', "mcp.servers.s", "http:// or https://"),
    ('url = "http://h"\nenv = { A = "b" }', "mcp.servers.s", "go with a command"),
    ('command = "x"\nheaders = { A = "b" }', "mcp.servers.s", "go with a url"),
    ('command = "x"\napprove = "sometimes"', "mcp.servers.s.approve", "'ask'"),
    ('command = "x"\ntimeout = 0', "mcp.servers.s.timeout", "greater than 0"),
    ('command = "x"\nenv = { A = "${B" }', "mcp.servers.s.env", "closing }"),
    ('command = "x"\nargs = ["${1X}"]', "mcp.servers.s.args", "not a variable name"),
    ('command = "x"\nshell = true', "mcp.servers.s.shell", ""),
])
def test_a_bad_server_names_the_file_the_key_and_the_problem(
        tmp_path: Path, section: str, key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, f"[mcp.servers.s]\n{section}\n")
    message = caught.value.message
    assert str(tmp_path / "config.toml") in message
    assert f"'{key}'" in message
    assert problem in message


def test_variables_are_expanded_from_the_environment() -> None:
    assert expand("Bearer ${TOKEN}!", {"TOKEN": "abc"}, "here") == "Bearer abc!"
    with pytest.raises(UnsetVariableError, match=r"env.X of \[mcp.servers.s\] uses \$\{NOPE\}"):
        expand("${NOPE}", {}, "env.X of [mcp.servers.s]")


def test_a_servers_environment_holds_no_provider_key() -> None:
    parent = {"PATH": "/bin", "HOME": "/home/u", "CHUTES_API_KEY": "cpk_secret",
              "SUTRA_API_KEY": "sk_secret", "OPENAI_API_KEY": "sk-x", "TOKEN": "t0k",
              "BASH_FUNC_x%%": "() { :; }"}
    server = McpServerConfig(command="x", env={"GITHUB_TOKEN": "${TOKEN}", "MODE": "1"})
    env = server_environment(server, "s", parent)
    assert env == {"PATH": "/bin", "HOME": "/home/u", "GITHUB_TOKEN": "t0k", "MODE": "1"}


def test_a_key_the_user_writes_into_env_is_passed() -> None:
    server = McpServerConfig(command="x", env={"CHUTES_API_KEY": "${CHUTES_API_KEY}"})
    env = server_environment(server, "s", {"CHUTES_API_KEY": "cpk_mine"})
    assert env["CHUTES_API_KEY"] == "cpk_mine"


def test_saving_settings_keeps_the_servers_as_written(tmp_path: Path) -> None:
    from tui_chat.core.config import save_settings

    path = tmp_path / "config.toml"
    text = ('[mcp.servers.time]  # the clock\ncommand = "uvx"\nargs = ["mcp-server-time"]\n'
            'env = { TZ = "${TZ}" }\n')
    path.write_text('theme = "nord"\n\n' + text, encoding="utf-8")
    settings = load_settings(path)
    save_settings(settings.model_copy(update={"theme": "tui-chat-dusk"}), path)
    assert path.read_text(encoding="utf-8") == 'theme = "tui-chat-dusk"\n\n' + text
