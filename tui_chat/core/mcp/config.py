"""`[mcp]` in config.toml: the tool servers, how far each is trusted, and the limits.

    [mcp.servers.time]
    command = "uvx"
    args = ["mcp-server-time"]
    approve = "read-only"       # "ask" (default) | "read-only" | "always"

    [mcp.servers.search]
    url = "https://example.com/mcp"
    headers = { Authorization = "Bearer ${SEARCH_TOKEN}" }

A server is either a command (stdio: `command`, `args`, `env`, `cwd`) or a `url` (Streamable
HTTP: `url`, `headers`), never both. `${VAR}` in `args`, `env`, `cwd`, `url` and `headers` is
replaced by the environment variable VAR when the server starts (never written back), so a
token can stay out of the file. A server's environment is built from a minimal base
(`server_environment`): PATH, HOME and the like, plus the section's `env`; the providers' API
keys never reach it unless the user writes them into `env`.

No SDK here: this module is imported with the settings, on the start-up path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import field
from typing import Annotated, Any, ClassVar, Literal

from tui_chat.core.config_checks import headers_problem
from tui_chat.core.records import After, Bounds, Record

Approval = Literal["ask", "read-only", "always"]

_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

BASE_ENVIRONMENT = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL",
                    "LC_CTYPE", "TMPDIR", "TZ", "SYSTEMROOT", "APPDATA", "LOCALAPPDATA",
                    "USERPROFILE", "TEMP")
"""What a server inherits from tui-chat's environment: enough to find programs, a home, a
locale and a temporary folder; nothing that holds a secret."""


class UnsetVariableError(ValueError):
    """A `${VAR}` whose variable is not set."""


def variables_problem(text: str) -> str | None:
    """Why the `${...}` references in `text` cannot be expanded, else None."""
    for match in _VARIABLE.finditer(text):
        if not _NAME.fullmatch(match.group(1)):
            return f"${{{match.group(1)}}} is not a variable name (letters, digits and _)"
    rest = _VARIABLE.sub("", text)
    if "${" in rest:
        return "has a ${ without its closing }"
    return None


def expand(text: str, env: Mapping[str, str], where: str) -> str:
    """`text` with each `${VAR}` replaced by `env[VAR]`; UnsetVariableError naming `where`
    (e.g. `env.TOKEN of [mcp.servers.x]`) when one is not set."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            raise UnsetVariableError(
                f"{where} uses ${{{name}}}, but the environment variable {name} is not set")
        return env[name]

    return _VARIABLE.sub(value, text)


def _checked_texts(value: Any) -> Any:
    texts = value.values() if isinstance(value, dict) else value if isinstance(
        value, list) else [value]
    for text in texts:
        if isinstance(text, str):
            problem = variables_problem(text)
            if problem is not None:
                raise ValueError(problem)
    return value


def _checked_headers(value: dict[str, str]) -> dict[str, str]:
    # A header's value may hold ${VAR}: its characters are checked as written (a variable's
    # value is checked when the server starts, by the HTTP client).
    problem = headers_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return _checked_texts(value)  # type: ignore[no-any-return]


def checked_server_fields(fields: Mapping[str, Any]) -> bool:
    """Whether a server section's values pass the checks its fields add to their types
    (for `config_checks.plainly_valid`, which reads a plain file without pydantic)."""
    try:
        for name in ("command", "args", "env", "cwd", "url"):
            if name in fields:
                _checked_texts(fields[name])
        if "headers" in fields:
            _checked_headers(fields["headers"])
    except ValueError:
        return False
    return True


class McpServerConfig(Record):
    """`[mcp.servers.NAME]`: one tool server."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    command: Annotated[str | None, After(_checked_texts)] = None
    """The program that runs the server over stdio (looked up on PATH)."""
    args: Annotated[list[str], After(_checked_texts)] = field(default_factory=list)
    env: Annotated[dict[str, str], After(_checked_texts)] = field(default_factory=dict)
    """Variables added to the server's minimal environment."""
    cwd: Annotated[str | None, After(_checked_texts)] = None
    url: Annotated[str | None, After(_checked_texts)] = None
    """A Streamable HTTP endpoint, instead of a command."""
    headers: Annotated[dict[str, str], After(_checked_headers)] = field(default_factory=dict)
    enabled: bool = True
    approve: Approval = "ask"
    """"ask": every call; "read-only": tools the server marks read-only run alone;
    "always": no call asks."""
    timeout: Annotated[float, Bounds(gt=0, le=86400)] = 60.0
    """Seconds a call may take before it is cancelled (the time the user takes to answer a
    form the server asks for is not counted)."""
    start_timeout: Annotated[float, Bounds(gt=0, le=3600)] = 30.0
    """Seconds the server may take to start and answer its handshake."""

    def problem(self) -> str | None:
        if (self.command is None) == (self.url is None):
            return "needs either a command (a program run over stdio) or a url, not both"
        if self.url is not None:
            if self.args or self.env or self.cwd is not None:
                return "args, env and cwd go with a command, not with a url"
            scheme = self.url.partition("://")[0].lower() if "://" in self.url else ""
            if scheme not in ("http", "https") and not self.url.startswith("${"):
                return "url must start with http:// or https://"
        elif self.headers:
            return "headers go with a url, not with a command"
        elif not self.command or not self.command.strip():
            return "command is empty"
        return None

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "http" if self.url is not None else "stdio"


class McpSettings(Record):
    """`[mcp]`: the servers, and the limits of every call."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    servers: dict[str, McpServerConfig] = field(default_factory=dict)
    max_result_chars: Annotated[int, Bounds(ge=1000, le=10_000_000)] = 100_000
    """A result longer than this (in characters, as text) is cut, with a marker that says so."""
    max_steps: Annotated[int, Bounds(ge=1, le=100)] = 10
    """Replies in one exchange that may call tools before tui-chat stops with a sentence."""

    def enabled_servers(self) -> dict[str, McpServerConfig]:
        return {name: server for name, server in self.servers.items() if server.enabled}


def server_environment(server: McpServerConfig, name: str,
                       env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a stdio server: `BASE_ENVIRONMENT` taken from `env` (default:
    tui-chat's own), then the section's `env` with `${VAR}` expanded from `env`.
    UnsetVariableError when a variable is not set."""
    env = os.environ if env is None else env
    base = {key: env[key] for key in BASE_ENVIRONMENT
            if key in env and not env[key].startswith("()")}  # no exported shell functions
    for key, value in server.env.items():
        base[key] = expand(value, env, f"env.{key} of [mcp.servers.{name}]")
    return base
