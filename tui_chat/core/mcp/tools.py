"""The tools the servers offer, as the model sees them: qualified names and OpenAI's `tools`.

Two servers may both have a `search` tool, and a tool's own name may hold characters that
OpenAI-compatible APIs refuse, so each tool gets a name of its own for the model,
`SERVER__TOOL`, within `^[a-zA-Z0-9_-]{1,64}$`: characters outside the set become `_`, a
name too long is cut and given a short hash of the whole, and a name already taken gets
`_2`, `_3`, ... A clash is resolved, never dropped: every tool stays callable.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_OUTSIDE = re.compile(r"[^a-zA-Z0-9_-]")
MAX_NAME = 64
SEPARATOR = "__"


@dataclass(frozen=True)
class ToolSpec:
    """One tool of one server, with the name the model calls it by."""

    server: str
    name: str
    """The tool's name on its server (what `tools/call` sends)."""
    qualified: str
    """The name the model sees and calls."""
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object"})
    read_only: bool = False
    """The server's `readOnlyHint`: the tool does not change its environment."""

    @property
    def label(self) -> str:
        """`server.tool`, as the user reads it."""
        return f"{self.server}.{self.name}"


def _clean(text: str) -> str:
    return _OUTSIDE.sub("_", text) or "_"


def _fitted(name: str, suffix: str = "") -> str:
    """`name` + `suffix` within MAX_NAME: a name too long is cut and keeps a hash of itself."""
    if len(name) + len(suffix) <= MAX_NAME:
        return name + suffix
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return name[:MAX_NAME - len(suffix) - 9] + "_" + digest + suffix


def qualified_names(tools: Iterable[tuple[str, str]]) -> list[str]:
    """For each (server, tool) in order, its unique name for the model."""
    taken: set[str] = set()
    names = []
    for server, tool in tools:
        base = f"{_clean(server)}{SEPARATOR}{_clean(tool)}"
        name, count = _fitted(base), 1
        while name in taken:
            count += 1
            name = _fitted(base, f"_{count}")
        taken.add(name)
        names.append(name)
    return names


def openai_tools(tools: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """The request's `tools`: one function per tool, its JSON Schema as `parameters`."""
    return [{"type": "function", "function": {
        "name": tool.qualified, "description": tool.description,
        "parameters": _object_schema(tool.input_schema)}} for tool in tools]


def _object_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """An object schema, as function parameters must be (some servers leave `type` out, and
    some APIs refuse an object without `properties`)."""
    result = dict(schema)
    result.setdefault("type", "object")
    if result.get("type") == "object":
        result.setdefault("properties", {})
    return result
