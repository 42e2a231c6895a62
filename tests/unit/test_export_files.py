"""The one export-writing policy: mode 0600 whatever the umask, never overwriting unless forced,
suggested names that stay inside the export folder and stay readable."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_chat.core import export_files
from tui_chat.core.export_files import (
    export_file_name,
    suggested_export_path,
    write_export,
    write_new_export,
)
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.ui.widgets.conversation_list import export_conversation


@pytest.fixture(params=[0o000, 0o022], ids=["umask-000", "umask-022"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    previous = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_an_export_is_private_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    path = tmp_path / "out.md"
    write_export(path, "text")
    assert (path.read_text(encoding="utf-8"), mode(path)) == ("text", 0o600)
    forced = tmp_path / "forced.md"
    forced.write_text("old")
    forced.chmod(0o644)
    write_export(forced, "new", force=True)
    assert (forced.read_text(encoding="utf-8"), mode(forced)) == ("new", 0o600)


def test_an_existing_file_is_never_overwritten_without_force(tmp_path: Path) -> None:
    path = tmp_path / "mine.md"
    path.write_text("precious")
    with pytest.raises(FileExistsError):
        write_export(path, "export")
    assert path.read_text() == "precious"
    dangling = tmp_path / "link.md"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(FileExistsError):
        write_export(dangling, "export")
    assert not (tmp_path / "nowhere").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.md", "mine.md"]


def test_a_file_created_meanwhile_is_not_overwritten(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "raced.md"
    real = export_files.write_private_file

    def write_then_race(target: Path, text: str) -> None:
        real(target, text)
        path.write_text("theirs")  # another program takes the name while we write

    monkeypatch.setattr(export_files, "write_private_file", write_then_race)
    with pytest.raises(FileExistsError):
        write_export(path, "ours")
    assert path.read_text() == "theirs"
    assert [p.name for p in tmp_path.iterdir()] == ["raced.md"]  # no staging file left


def test_write_new_export_takes_the_next_free_name(tmp_path: Path) -> None:
    first = write_new_export(tmp_path / "notes.md", "one")
    second = write_new_export(tmp_path / "notes.md", "two")
    third = write_new_export(tmp_path / "notes.md", "three")
    assert [p.name for p in (first, second, third)] == ["notes.md", "notes-2.md", "notes-3.md"]
    assert [p.read_text() for p in (first, second, third)] == ["one", "two", "three"]


@pytest.mark.parametrize(("title", "conversation_id", "name"), [
    ("Trip planning", "abcdef1234567890", "trip-planning-abcdef12.md"),
    ("../../etc/passwd [x]", "abcdef1234", "etc-passwd-x-abcdef12.md"),
    ("Plain", "/../../x", "plain-x.md"),
    ("Plain", "../..", "plain.md"),
    ("a\x00b\x1b]0;t\x07", "c\x00d/e", "a-b-0-t-cde.md"),
    ("नमस्ते दुनिया", "1" * 32, "नमस्ते-दुनिया-11111111.md"),
    ("வணக்கம் உலகம்", "2" * 32, "வணக்கம்-உலகம்-22222222.md"),
    ("你好世界", "3" * 32, "你好世界-33333333.md"),
    ("Ünïcode «title»", "4" * 32, "ünïcode-title-44444444.md"),
    ("🙂 ✨", "5" * 32, "conversation-55555555.md"),
    ("", "", "conversation.md"),
])
def test_suggested_names_are_safe_and_readable(tmp_path: Path, title: str,
                                               conversation_id: str, name: str) -> None:
    assert export_file_name(title, conversation_id) == name
    path = suggested_export_path(tmp_path, title, conversation_id)
    assert path.parent == tmp_path and path.name == name
    write_export(path, "ok")
    assert path.read_text() == "ok"


@pytest.mark.parametrize("title", ["x" * 5000, "न" * 5000, "你" * 5000, "-/" * 5000])
def test_a_very_long_title_gives_a_name_every_file_system_takes(tmp_path: Path,
                                                                title: str) -> None:
    path = suggested_export_path(tmp_path, title, "f" * 200)
    assert path.parent == tmp_path and len(path.name.encode("utf-8")) <= 200
    write_export(path, "ok")
    assert path.exists()


def test_the_sidebar_export_goes_through_the_policy(tmp_path: Path, umask: int) -> None:
    with Store.open(tmp_path / "s.db") as store:
        store.create_conversation(Conversation(id="/../../x", title="नमस्ते"))
        store.add_message(Message(conversation_id="/../../x", role=Role.USER, content="hi"))
        exports = tmp_path / "exports"
        exports.mkdir()
        suggested = suggested_export_path(exports, "नमस्ते", "/../../x")
        first = export_conversation(store, "/../../x", suggested)
        second = export_conversation(store, "/../../x", suggested)
        into_folder = export_conversation(store, "/../../x", exports)
    assert [p.name for p in (first, second, into_folder)] == [
        "नमस्ते-x.md", "नमस्ते-x-2.md", "नमस्ते-x-3.md"]
    assert all(p.parent == exports and mode(p) == 0o600 for p in (first, second, into_folder))
    assert first.read_text(encoding="utf-8").startswith("# नमस्ते")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exports", "s.db"]  # nothing else
