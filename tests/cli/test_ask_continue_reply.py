"""`ask -c --continue-reply` continues the last reply of a conversation where it ends, as a new
branch, and prints only the new text (core.continuation); misuse gets one sentence."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.store import Store

KEY = "cpk_fake-continue-reply-key-0123"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "store.sqlite3"
    monkeypatch.setenv("TUI_CHAT_DB", str(path))
    return path


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tui_chat", *args], capture_output=True,
                          text=True, env={**os.environ, **env}, timeout=60, check=False)


def test_continue_reply_prints_the_rest_and_keeps_both_branches(
        db: Path, chutes_server: FakeProvider) -> None:
    env = {"CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": KEY}
    chutes_server.script(Reply(stream_of(["Once upon ", "a time"])),
                         Reply(stream_of([", a cat."])))
    assert run("ask", "tell a story", env=env).stdout == "Once upon a time"
    result = run("ask", "-c", "--continue-reply", env=env)
    assert (result.returncode, result.stdout, result.stderr) == (0, ", a cat.", "")
    body = chutes_server.requests[-1].body
    assert body["messages"][-1] == {"role": "assistant", "content": "Once upon a time"}
    assert body["continue_final_message"] is True and body["add_generation_prompt"] is False
    with Store.open(db) as store:
        latest = store.latest_conversation()
        assert latest is not None
        path = store.get_messages(latest.id)
        assert path[-1].content == "Once upon a time, a cat."
        assert store.siblings(path[-1].id).count == 2


def test_continue_reply_needs_a_conversation_and_no_prompt(
        db: Path, chutes_server: FakeProvider) -> None:
    env = {"CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": KEY}
    alone = run("ask", "--continue-reply", env=env)
    assert alone.returncode == 2 and "add -c" in alone.stderr
    assert alone.stderr.count("\n") == 1
    with_prompt = run("ask", "-c", "--continue-reply", "more", env=env)
    assert with_prompt.returncode == 2 and "takes no prompt" in with_prompt.stderr
    assert not [r for r in chutes_server.requests if r.method == "POST"]
