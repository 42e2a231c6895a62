"""Import, export, show and search as a user runs them, on hostile files and hostile text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.terminal import run_on_terminal
from tests.unit.test_export import conversation_dict, document, message_dict
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store

HOSTILE_TEXT = ("first\x00second \x1b]52;c;ZXZpbA==\x07 \x9b31m csi \u202eevil\u202c "
                "\u2066iso\u2069 👩\u200d💻 [bold]markup[/] " + "y" * 5000 + " lastword")
UNSAFE = ("\x00", "\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\u2066", "\u2069")


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "store.sqlite3"
    monkeypatch.setenv("TUI_CHAT_DB", str(path))
    return path


def run(*args: str, umask: int | None = None) -> subprocess.CompletedProcess[str]:
    def set_umask() -> None:
        if umask is not None:
            os.umask(umask)
    return subprocess.run([sys.executable, "-m", "tui_chat", *args], capture_output=True,
                          text=True, env=dict(os.environ), timeout=60, check=False,
                          preexec_fn=set_umask)


def one_sentence(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    return result.stderr


@pytest.mark.parametrize(("content", "expected"), [
    ("[" * 200_000 + "]" * 200_000, "is nested too deeply to be a tui-chat export"),
    (document(conversation_dict(id="/../../x")), "'conversations.0.id': not an id tui-chat"),
    (document(conversation_dict(), conversation_dict()), "holds the conversation id c twice"),
    (document(conversation_dict(messages=[message_dict(tokens_per_second=float("nan"))])),
     "is not standard JSON (NaN is not a JSON number)"),
], ids=["deep-nesting", "path-id", "id-twice", "nan"])
def test_a_hostile_import_is_one_sentence_and_writes_nothing(
        db: Path, tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "hostile.json"
    path.write_text(content, encoding="utf-8")
    result = run("import", str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert expected in one_sentence(result)
    with Store.open(db) as store:
        assert store.count_conversations() == 0


def test_import_says_what_it_skipped_and_why(db: Path, tmp_path: Path) -> None:
    with Store.open(db) as store:
        store.create_conversation(Conversation(id="mine"))
        store.add_message(Message(id="shared", conversation_id="mine", role=Role.USER))
    path = tmp_path / "f.json"
    path.write_text(document(conversation_dict(id="theirs", messages=[
        message_dict(id="shared"), message_dict(id="new")])), encoding="utf-8")
    result = run("import", str(path))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == ("Imported 1 conversation and 2 messages; gave 1 message a new id, "
                             "as another conversation in the store already uses its old one "
                             "(shared).\n")


@pytest.fixture
def hostile(db: Path) -> str:
    with Store.open(db) as store:
        store.create_conversation(Conversation(id="h" * 32, title="Title \x00\x1b[2J\u202egone"))
        store.add_message(Message(id="m1", conversation_id="h" * 32, role=Role.ASSISTANT,
                                  content=HOSTILE_TEXT, reasoning="think \x00\x9b hard"))
    return "h" * 32


def test_hostile_text_is_stored_exactly_and_exported_exactly_in_json(
        hostile: str, tmp_path: Path) -> None:
    result = run("export", hostile, "--format", "json")
    assert result.returncode == 0
    (message,) = json.loads(result.stdout)["conversations"][0]["messages"]
    assert message["content"] == HOSTILE_TEXT and message["reasoning"] == "think \x00\x9b hard"
    out = tmp_path / "copy.json"
    assert run("export", hostile, "-o", str(out)).returncode == 0
    assert json.loads(out.read_text(encoding="utf-8"))["conversations"][0]["messages"][0][
        "content"] == HOSTILE_TEXT


@pytest.mark.parametrize("where", ["pipe", "terminal"])
def test_show_and_markdown_export_are_inert(hostile: str, where: str) -> None:
    outputs = []
    for args in (("show", hostile), ("export", hostile)):
        if where == "pipe":
            result = run(*args)
            outputs.append((result.returncode, result.stdout))
        else:
            code, text, _ = run_on_terminal(*args)
            outputs.append((code, text))
    for code, text in outputs:
        assert code == 0 and "lastword" in text and "firstsecond" in text
        assert not any(char in text for char in UNSAFE), [c for c in UNSAFE if c in text]
        assert "[bold]markup[/]" in text and "👩\u200d💻" in text


def test_search_finds_a_word_after_a_nul_and_prints_it_inertly(hostile: str) -> None:
    for word in ("second", "lastword", "csi", "iso", "evil"):
        result = run("search", word)
        assert result.returncode == 0, (word, result.stderr)
        assert result.stdout.startswith("hhhhhhhh")
        assert not any(char in result.stdout for char in UNSAFE)
    code, text, _ = run_on_terminal("search", "lastword")
    assert code == 0 and "\x1b[1mlastword\x1b[0m" in text
    assert not any(char in text.replace("\x1b[1m", "").replace("\x1b[0m", "") for char in UNSAFE)


def test_an_export_file_is_private_under_any_umask_and_never_overwritten(
        hostile: str, tmp_path: Path) -> None:
    out = tmp_path / "private.md"
    assert run("export", hostile, "-o", str(out), umask=0).returncode == 0
    assert out.stat().st_mode & 0o777 == 0o600
    again = run("export", hostile, "-o", str(out))
    assert again.returncode == 2
    assert "already exists; pass --force to overwrite it" in one_sentence(again)


def test_search_for_a_byte_that_is_not_utf8_is_not_a_traceback(hostile: str, db: Path) -> None:
    with Store.open(db) as store:
        store.add_message(Message(id="bad", conversation_id=hostile, role=Role.ASSISTANT,
                                  content="bytes \ufffd here"))
    result = subprocess.run([sys.executable, "-m", "tui_chat", "search", b"\xff"],
                            capture_output=True, env=dict(os.environ), timeout=60, check=False)
    assert result.returncode == 0 and b"Traceback" not in result.stderr
    assert b"bytes \xef\xbf\xbd here" in result.stdout
