"""Whether a tool call may run without asking, and what the user's answers grant.

The server's policy (`approve` in config.toml) comes first: "always" runs every call,
"read-only" runs the tools the server marks read-only (`readOnlyHint`) and asks for the
rest, "ask" asks for every call. Then the grants of this conversation: "always for this
tool" or "always for this server", given in an answer, run later calls without asking.
A denial is never remembered: the next call asks again.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from tui_chat.core.mcp.config import Approval
from tui_chat.core.mcp.tools import ToolSpec


class Answer(enum.Enum):
    """What the user said to one call."""

    ONCE = "once"
    ALWAYS_TOOL = "always-tool"
    ALWAYS_SERVER = "always-server"
    DENY = "deny"


@dataclass
class Grants:
    """The "always" answers of one conversation."""

    tools: set[tuple[str, str]] = field(default_factory=set)
    servers: set[str] = field(default_factory=set)

    def record(self, tool: ToolSpec, answer: Answer) -> None:
        if answer is Answer.ALWAYS_TOOL:
            self.tools.add((tool.server, tool.name))
        elif answer is Answer.ALWAYS_SERVER:
            self.servers.add(tool.server)

    def covers(self, tool: ToolSpec) -> bool:
        return tool.server in self.servers or (tool.server, tool.name) in self.tools


def needs_asking(tool: ToolSpec, policy: Approval, grants: Grants) -> bool:
    """Whether a call of `tool` must be put to the user before it runs."""
    if policy == "always" or grants.covers(tool):
        return False
    return not (policy == "read-only" and tool.read_only)


def runs(answer: Answer) -> bool:
    return answer is not Answer.DENY
