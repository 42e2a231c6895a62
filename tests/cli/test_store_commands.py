"""The store's commands as a user runs them: subprocesses, exit codes, stdout and stderr."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.cli.terminal import run_on_terminal
from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.session import CANCELLED_NOTE
from tui_chat.core.store import Store

KEY = "cpk_0123456789abcdef.SECRET"
T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "store.sqlite3"
    monkeypatch.setenv("TUI_CHAT_DB", str(path))
    return path


@pytest.fixture
def filled(db: Path) -> Iterator[Path]:
    """Three conversations: ids aaaa1…, aaaa2…, bbbb…; bbbb is the newest."""
    with Store.open(db) as store:
        for index, (cid, title) in enumerate([("aaaa1" + "0" * 27, "Greetings in Hindi"),
                                              ("aaaa2" + "0" * 27, "Tamil \x1b]0;evil\x07 talk"),
                                              ("bbbb" + "0" * 28, "Chinese")]):
            when = T0 + timedelta(hours=index)
            store.create_conversation(Conversation(id=cid, title=title, created=when,
                                                   updated=when, provider="sutra",
                                                   model="sutra-v2"))
        store.import_conversation(store.get_conversation("aaaa1" + "0" * 27), [
            Message(id="h1", conversation_id="aaaa1" + "0" * 27, role=Role.USER,
                    content="नमस्ते दुनिया", created=T0),
            Message(id="h2", conversation_id="aaaa1" + "0" * 27, role=Role.ASSISTANT,
                    content="नमस्ते! \x1b]52;c;ZXZpbA==\x07needle here", provider="sutra",
                    model="sutra-v2", created=T0)])
        store.import_conversation(store.get_conversation("bbbb" + "0" * 28), [
            Message(id="c1", conversation_id="bbbb" + "0" * 28, role=Role.USER,
                    content="你好世界", created=T0)])
    yield db


def run(*args: str, env: dict[str, str] | None = None, stdin: str | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tui_chat", *args], input=stdin,
                          capture_output=True, text=True, env={**os.environ, **(env or {})},
                          timeout=60, check=False)


def chutes_env(server: FakeProvider) -> dict[str, str]:
    return {"CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": KEY}


# -- ask saves, and continues --------------------------------------------------------------

def test_ask_saves_and_continue_sends_the_history(db: Path, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["First answer"])), Reply(stream_of(["Second"])),
                         Reply(stream_of(["Third"])))
    env = chutes_env(chutes_server)
    first = run("ask", "-m", "model-a", "-s", "Be terse.", "First question\nmore", env=env)
    assert (first.returncode, first.stdout, first.stderr) == (0, "First answer", "")
    second = run("ask", "-c", "Second question", env=env)
    assert second.returncode == 0 and second.stdout == "Second"
    body = chutes_server.requests[-1].body
    assert body["model"] == "model-a"  # a continued conversation keeps its model
    assert body["messages"] == [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "First question\nmore"},
        {"role": "assistant", "content": "First answer"},
        {"role": "user", "content": "Second question"}]
    with Store.open(db) as store:
        (summary,) = store.list_conversations()
        assert summary.title == "First question" and summary.message_count == 4
    third = run("--conversation", summary.id[:6], "ask", "-m", "model-b", "Third", env=env)
    assert third.returncode == 0, third.stderr
    assert len(chutes_server.requests[-1].body["messages"]) == 6
    assert chutes_server.requests[-1].body["model"] == "model-b"
    assert KEY not in db.read_bytes().decode("utf-8", "replace")


def test_ask_no_save_saves_nothing(db: Path, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["ok"])))
    result = run("ask", "--no-save", "hi", env=chutes_env(chutes_server))
    assert result.returncode == 0 and result.stdout == "ok"
    with Store.open(db) as store:
        assert store.count_conversations() == 0


def test_ask_continue_with_no_save_sends_history_but_saves_nothing(
        filled: Path, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["ok"])))
    result = run("ask", "--no-save", "--conversation", "aaaa1", "-p", "chutes", "-m", "m",
                 "again", env=chutes_env(chutes_server))
    assert result.returncode == 0, result.stderr
    assert [m["content"] for m in chutes_server.requests[-1].body["messages"]] == [
        "नमस्ते दुनिया", "नमस्ते! \x1b]52;c;ZXZpbA==\x07needle here", "again"]
    with Store.open(filled) as store:
        assert store.count_messages("aaaa1" + "0" * 27) == 2


def test_ask_failure_is_saved_and_reported(db: Path, chutes_server: FakeProvider) -> None:
    result = run("ask", "-m", "fault/drop", "q", env=chutes_env(chutes_server))
    assert result.returncode == 6 and result.stdout.startswith("word0 word1")
    assert result.stderr.count("\n") == 1 and "kept" in result.stderr
    with Store.open(db) as store:
        latest = store.latest_conversation()
        assert latest is not None
        reply = store.get_messages(latest.id)[-1]
        assert reply.status == MessageStatus.INTERRUPTED and reply.content.startswith("word0")


def test_continue_without_conversations_is_a_usage_error(db: Path) -> None:
    result = run("ask", "-c", "hello", env={"CHUTES_API_KEY": KEY})
    assert result.returncode == 2
    assert "no saved conversation to continue" in result.stderr


# -- history, show, search -------------------------------------------------------------------

def test_history_lists_newest_first(filled: Path) -> None:
    result = run("history")
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["bbbb0000", "aaaa2000", "aaaa1000"]
    assert "sutra/sutra-v2" in lines[0] and lines[0].endswith("Chinese")
    assert run("history", "-n", "1").stdout.count("\n") == 1
    assert run("history", "-n", "0").returncode == 2


def test_history_of_an_empty_store(db: Path) -> None:
    result = run("history")
    assert result.returncode == 0 and result.stdout == ""
    assert "no saved conversations yet" in result.stderr


def test_show_by_prefix_and_prefix_errors(filled: Path) -> None:
    result = run("show", "aaaa1")
    assert result.returncode == 0
    assert result.stdout.startswith("# Greetings in Hindi\n")
    assert "नमस्ते दुनिया" in result.stdout and "## Assistant · sutra/sutra-v2" in result.stdout
    ambiguous = run("show", "aaaa")
    assert ambiguous.returncode == 2
    assert "2 conversations start with aaaa" in ambiguous.stderr
    assert "give more characters" in ambiguous.stderr
    missing = run("show", "ffff")
    assert missing.returncode == 2 and "No conversation id starts with ffff" in missing.stderr


def test_show_drops_control_characters_json_export_keeps_them(filled: Path) -> None:
    code, text, _ = run_on_terminal("show", "aaaa1")
    assert code == 0 and "needle here" in text
    assert "\x1b" not in text and "\x07" not in text
    piped = run("show", "aaaa1")  # Markdown is for reading: safe even when cat'ed later
    assert "]52;c;ZXZpbA==needle" in piped.stdout and "\x1b" not in piped.stdout
    exported = json.loads(run("export", "aaaa1", "--format", "json").stdout)
    reply = exported["conversations"][0]["messages"][1]["content"]
    assert reply == "नमस्ते! \x1b]52;c;ZXZpbA==\x07needle here"  # JSON keeps it exactly


def test_search_finds_hindi_and_chinese(filled: Path) -> None:
    result = run("search", "नमस्ते")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 4 and lines[0].startswith("aaaa1000")
    assert "Greetings in Hindi" in lines[0] and lines[1].startswith("    ")
    assert run("search", "你好").stdout.startswith("bbbb0000")


def test_search_without_results(filled: Path) -> None:
    result = run("search", "zebra")
    assert result.returncode == 1 and result.stdout == ""
    assert "no saved message contains 'zebra'" in result.stderr


def test_search_on_a_terminal_highlights_and_sanitizes(filled: Path) -> None:
    code, text, _ = run_on_terminal("search", "needle")
    assert code == 0
    assert "\x1b[1mneedle\x1b[0m" in text
    assert "\x1b]" not in text and "\x07" not in text


# -- export and import -----------------------------------------------------------------------

def test_export_to_stdout_and_files(filled: Path, tmp_path: Path) -> None:
    markdown = run("export", "aaaa1")
    assert markdown.returncode == 0 and markdown.stdout.startswith("# Greetings in Hindi")
    out = tmp_path / "all.json"
    result = run("export", "--all", "-o", str(out))  # .json picks the JSON format
    assert result.returncode == 0 and result.stdout == ""
    assert "wrote 3 conversations to" in result.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["format"] == "tui-chat-conversations" and len(document["conversations"]) == 3
    assert out.stat().st_mode & 0o077 == 0


def test_export_never_overwrites_without_force(filled: Path, tmp_path: Path) -> None:
    out = tmp_path / "mine.md"
    out.write_text("precious")
    refused = run("export", "aaaa1", "-o", str(out))
    assert refused.returncode == 2
    assert "already exists; pass --force to overwrite it" in refused.stderr
    assert out.read_text() == "precious"
    forced = run("export", "aaaa1", "-o", str(out), "--force", "--format", "markdown")
    assert forced.returncode == 0 and out.read_text().startswith("# Greetings")


def test_export_needs_an_id_or_all(filled: Path) -> None:
    result = run("export")
    assert result.returncode == 2 and "one of the arguments id --all is required" in result.stderr


def test_import_is_idempotent(filled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                              ) -> None:
    out = tmp_path / "all.json"
    assert run("export", "--all", "-o", str(out)).returncode == 0
    monkeypatch.setenv("TUI_CHAT_DB", str(tmp_path / "other.sqlite3"))
    first = run("import", str(out))
    assert (first.returncode, first.stdout) == (0, "Imported 3 conversations and 3 messages.\n")
    second = run("import", str(out))
    assert second.returncode == 0
    assert second.stdout == ("Imported 0 conversations and 0 messages; "
                             "3 conversations and 3 messages were already there.\n")
    assert run("history").stdout.count("\n") == 3


def test_import_of_a_bad_file_is_one_sentence(db: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "tui-chat-conversations", "version": 1, "conversations": 5}')
    result = run("import", str(bad))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "nothing was imported" in result.stderr


# -- rm and rename ---------------------------------------------------------------------------

def test_rm_needs_yes_in_scripts(filled: Path) -> None:
    refused = run("rm", "bbbb", stdin="y\n")
    assert refused.returncode == 2 and "pass --yes" in refused.stderr
    done = run("rm", "bbbb", "--yes")
    assert done.returncode == 0 and done.stdout == 'Deleted bbbb0000 "Chinese".\n'
    assert "bbbb" not in run("history").stdout


def test_rm_asks_on_a_terminal(filled: Path) -> None:
    code, _, err = run_on_terminal("rm", "bbbb", answer="n\n")
    assert code == 1 and 'Delete "Chinese" (1 message)? [y/N]' in err
    assert "nothing deleted" in err
    assert "bbbb" in run("history").stdout
    code, text, _ = run_on_terminal("rm", "bbbb", answer="y\n")
    assert code == 0 and "Deleted bbbb0000" in text
    assert "bbbb" not in run("history").stdout


def test_rename(filled: Path) -> None:
    result = run("rename", "aaaa2", "Tamil", "greetings")
    assert result.returncode == 0 and result.stdout == 'Renamed aaaa2000 to "Tamil greetings".\n'
    assert "Tamil greetings" in run("history").stdout


# -- a store that cannot be used -------------------------------------------------------------

def test_a_corrupt_store_is_moved_aside_and_reported(db: Path) -> None:
    db.write_bytes(b"garbage " * 100)
    result = run("history")
    assert result.returncode == 0
    assert f"The conversation store {db} could not be read" in result.stderr
    assert len(list(db.parent.glob("store.sqlite3.broken-*"))) == 1


def test_a_newer_store_is_refused(filled: Path) -> None:
    with sqlite3.connect(filled) as conn:
        conn.execute("PRAGMA user_version = 99")
    conn.close()
    result = run("history")
    assert result.returncode == 8
    assert "newer tui-chat" in result.stderr and "upgrade tui-chat" in result.stderr
    assert result.stderr.count("\n") == 1


# -- a reply stopped from outside is saved as interrupted ------------------------------------

def _wait_for_partial_reply(db: Path, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60  # a bound for a broken build, not a timing
    while time.monotonic() < deadline and process.poll() is None:
        if db.exists():
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
            try:
                row = conn.execute("SELECT content FROM messages WHERE role = 'assistant'"
                                   ).fetchone()
            except sqlite3.OperationalError:
                row = None
            finally:
                conn.close()
            if row and row[0]:
                return
        time.sleep(0.05)
    raise AssertionError("no partial reply appeared in the store")


def _only_reply(db: Path) -> Message:
    with Store.open(db) as store:
        conversation = store.latest_conversation()
        assert conversation is not None
        return store.get_messages(conversation.id)[-1]


def test_ctrl_c_saves_the_partial_reply(db: Path, chutes_server: FakeProvider) -> None:
    # The reply is held back after 100 frames until the test ends, so that it cannot finish
    # before the signal however slow the machine is (it used to, under load: exit 0).
    chutes_server.script(Reply(stream_of([f"w{i} " for i in range(300)]), delay=0.02,
                               gate=threading.Event(), gate_after=100))
    process = subprocess.Popen([sys.executable, "-m", "tui_chat", "ask", "-m", "m", "q"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, **chutes_env(chutes_server)})
    _wait_for_partial_reply(db, process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130 and err.decode() == "tui-chat: interrupted.\n"
    reply = _only_reply(db)
    assert reply.status == MessageStatus.INTERRUPTED and reply.error == CANCELLED_NOTE
    assert out.decode().startswith(reply.content[:10]) and reply.content.startswith("w0 w1")


def test_a_closed_stdout_saves_the_reply_without_a_traceback(
        db: Path, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of([f"w{i} " for i in range(50)]), delay=0.01))
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone away, as with `| head -c0`
    try:
        result = subprocess.run([sys.executable, "-m", "tui_chat", "ask", "-m", "m", "q"],
                                stdout=write_end, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, **chutes_env(chutes_server)}, timeout=30,
                                check=False)
    finally:
        os.close(write_end)
    assert (result.returncode, result.stderr) == (141, "")  # quiet, as SIGPIPE would be
    reply = _only_reply(db)
    assert reply.status == MessageStatus.INTERRUPTED and reply.error == CANCELLED_NOTE


# -- the app receives the conversation options ------------------------------------------------

def test_app_gets_continue_and_a_resolved_conversation_id(
        filled: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tui_chat import cli
    from tui_chat.ui import app

    calls: list[dict[str, object]] = []

    def fake_run(settings: object, **options: object) -> int:
        calls.append(options)
        return 0

    monkeypatch.setattr(app, "run", fake_run)
    assert cli.main(["-c"]) == 0
    assert cli.main(["--conversation", "aaaa2", "-m", "x"]) == 0
    assert cli.main([]) == 0
    assert calls == [
        {"provider": None, "model": None, "conversation": None, "continue_last": True},
        {"provider": None, "model": "x", "conversation": "aaaa2" + "0" * 27,
         "continue_last": False},
        {"provider": None, "model": None, "conversation": None, "continue_last": False}]
    assert cli.main(["--conversation", "aaaa"]) == 2  # ambiguous: one sentence, no app
    assert len(calls) == 3
