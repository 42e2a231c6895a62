"""`tui-chat show`: the active path as Markdown, `--tree` every branch as an outline; search
finds messages on every branch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store

CID = "abcd" + "0" * 28


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "store.sqlite3"
    monkeypatch.setenv("TUI_CHAT_DB", str(path))
    with Store.open(path) as store:
        store.create_conversation(Conversation(id=CID, title="RFCs \x1b[31mred"))

        def add(mid: str, text: str, parent: str | None = None, **fields: object) -> None:
            role = Role.USER if mid.startswith("q") else Role.ASSISTANT
            model = {} if role is Role.USER else {"provider": "chutes", "model": "m1"}
            store.add_message(Message.model_validate({
                "id": mid + "0" * (8 - len(mid)) + "ffff", "conversation_id": CID,
                "role": role, "content": text, **model, **fields,
                "parent_id": None if parent is None else parent + "0" * (8 - len(parent))
                + "ffff"}))

        add("q1", "Summarise RFC 9110\nin three lines")
        add("a1", "HTTP semantics:\n1. methods")
        add("q2", "and RFC 9112?")
        add("a2", "first try", status=MessageStatus.INTERRUPTED)
        add("a2b", "HTTP/1.1 \x07syntax", parent="q2", provider="sutra", model="sutra-v2")
        add("q3", "and RFC 9113?", parent="a1")
        add("a3", "")
        add("q4", "needle on the active path")
        store.activate("a2b" + "00000ffff")  # the q2 branch, with its second reply
    return path


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tui_chat", *args], capture_output=True,
                          text=True, env=dict(os.environ), timeout=60, check=False)


def test_show_prints_the_active_path(db: Path) -> None:
    result = run("show", "abcd")
    assert result.returncode == 0, result.stderr
    text = result.stdout
    for shown in ("Summarise RFC 9110", "HTTP semantics", "and RFC 9112?", "HTTP/1.1 syntax"):
        assert shown in text
    for hidden in ("first try", "and RFC 9113?", "needle"):
        assert hidden not in text


def test_show_tree_prints_every_branch_as_an_outline(db: Path) -> None:
    result = run("show", "abcd", "--tree")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "RFCs [31mred  (abcd0000, 8 messages)",
        "* q1000000  user       Summarise RFC 9110",
        "* a1000000  assistant  chutes/m1  HTTP semantics:",
        "*   [1/2] q2000000  user       and RFC 9112?",
        "            [1/2] a2000000  assistant [interrupted]  chutes/m1  first try",
        "*           [2/2] a2b00000  assistant  sutra/sutra-v2  HTTP/1.1 syntax",
        "    [2/2] q3000000  user       and RFC 9113?",
        "          a3000000  assistant  chutes/m1  (no text)",
        "          q4000000  user       needle on the active path",
    ]


def test_search_finds_messages_on_an_inactive_branch(db: Path) -> None:
    result = run("search", "needle")
    assert result.returncode == 0, result.stderr
    assert "needle on the active path" in result.stdout


def test_export_markdown_with_all_branches(db: Path) -> None:
    active = run("export", "abcd")
    every = run("export", "abcd", "--all-branches")
    assert active.returncode == every.returncode == 0, every.stderr
    assert "first try" not in active.stdout and "needle" not in active.stdout
    assert "first try" in every.stdout and "needle on the active path" in every.stdout
    assert "## Branch 2, after “and RFC 9112?” (`q2000000ffff`)" in every.stdout
