"""Where an image of a tool's result is written when the user opens it (ui/tool_file_open)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tui_chat.core.models import AttachmentInfo, Message, Role
from tui_chat.ui import tool_file_open


@pytest.fixture(autouse=True)
def own_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tool_file_open, "_folder", None)
    monkeypatch.setattr(tool_file_open.tempfile, "tempdir", str(tmp_path))


def image(name: str) -> AttachmentInfo:
    return AttachmentInfo(name=name, kind="image", mime="image/png", size=3)


def test_an_image_keeps_the_number_its_result_line_names() -> None:
    """The result's first image was too large to keep: the second is the message's only
    file, and its line says image-2.png."""
    second = image("image-2.png")
    message = Message(conversation_id="c", role=Role.TOOL, content="…",
                      attachments=[second])
    path = tool_file_open.write_image(message, second, b"png")
    assert path.name == f"{message.id}-image-2.png"
    assert path.read_bytes() == b"png"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_name_tui_chat_did_not_give_is_numbered_by_its_place() -> None:
    odd = [image("../../evil.png"), image("image-9.png.sh")]
    message = Message(conversation_id="c", role=Role.TOOL, content="…", attachments=odd)
    names = [tool_file_open.write_image(message, info, b"x").name for info in odd]
    assert names == [f"{message.id}-image-1.png", f"{message.id}-image-2.png"]
    assert all(Path(tool_file_open.image_folder(), name).is_file() for name in names)
