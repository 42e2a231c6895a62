"""Snapshot of attachments: a sent message with its attachments folded, and the list above
the prompt (size, estimated tokens) for the next message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.ui.conftest import AppFactory, conversation, wait_idle, wait_until
from tui_chat.ui.widgets.attachment_list import AttachmentList

PNG = b"\x89PNG\r\n\x1a\n" + bytes(24)


def test_attachment_list_and_folded_attachments_snapshot(
        snap_compare: Any, make_app: AppFactory, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("def main() -> None:\n    print('hi')\n")
    (tmp_path / "notes.md").write_text("# Notes\n\nRemember the milk.\n" * 20)
    (tmp_path / "photo.png").write_bytes(PNG)
    monkeypatch.chdir(tmp_path)
    app = make_app()

    async def attach(pilot: Pilot[Any]) -> None:
        screen = conversation(pilot.app)
        screen.prompt.cursor_blink = False
        screen.prompt.load_text("What does @src/main.py do?")
        await pilot.press("enter")
        await wait_idle(pilot)
        screen.attach_flow.attach("notes.md")
        screen.attach_flow.attach("photo.png")
        listed = screen.query_one(AttachmentList)
        await wait_until(pilot, lambda: listed.option_count == 2)
        screen.prompt.load_text("And these?")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(110, 30), run_before=attach)
