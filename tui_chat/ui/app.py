"""Placeholder until the full-screen app lands (issue 4)."""

from __future__ import annotations

import sys

from tui_chat.core.config import Settings


def run(settings: Settings, *, provider: str | None = None, model: str | None = None) -> int:
    print("tui-chat: the full-screen app is not built yet; use `tui-chat ask`.", file=sys.stderr)
    return 1
