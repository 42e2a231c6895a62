"""The tool approval dialog's picture, with hostile arguments drawn as characters."""

from __future__ import annotations

from typing import Any

from tests.ui.test_screens_snapshots import Host, no_blink
from tests.ui.test_tool_approval import HOSTILE
from tui_chat.ui.screens.tool_approval import ToolApprovalScreen


def test_tool_approval_snapshot(snap_compare: Any) -> None:
    arguments = {"timezone": "Asia/Kolkata", **HOSTILE}
    app = Host(lambda: ToolApprovalScreen("time", "get_current_time", arguments,
                                          description="Get current time in a specific "
                                                      "timezone [b]really[/b]"))
    assert snap_compare(app, terminal_size=(100, 32), run_before=no_blink)
