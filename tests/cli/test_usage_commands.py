"""Tokens and cost on the command line: `history`'s column and `tui-chat usage`, as a user
runs them (subprocesses against a store written for the test)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.fakeprovider import PRICED_MODELS, FakeProvider
from tui_chat.core.models import Conversation, Message, Role, Usage
from tui_chat.core.store import Store

NOW = datetime.now(UTC)


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tui_chat", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=60,
                          check=False)


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "store.sqlite3"
    monkeypatch.setenv("TUI_CHAT_DB", str(path))
    with Store.open(path) as store:
        for cid, title, replies in (
                ("aaaa" + "0" * 28, "priced", [(0, "chutes", "m1", 0.0012), (0, "chutes", "m1",
                                                                             0.0008)]),
                ("bbbb" + "0" * 28, "mixed", [(1, "sutra", "sutra-v2", None),
                                             (1, "chutes", "m1", 0.5)]),
                ("cccc" + "0" * 28, "old", [(40, "chutes", "m1", 9.0)]),
                ("dddd" + "0" * 28, "nothing", [])):
            store.create_conversation(Conversation(id=cid, title=title))
            for days_ago, provider, model, cost in replies:
                store.add_message(Message(conversation_id=cid, role=Role.USER, content="q"))
                store.add_message(Message(
                    conversation_id=cid, role=Role.ASSISTANT, content="a", provider=provider,
                    model=model, created=NOW - timedelta(days=days_ago),
                    usage=Usage(prompt_tokens=1000, completion_tokens=200, total_tokens=1200,
                                cost_usd=cost)))
    return path


def test_history_shows_each_conversations_tokens_and_cost(db: Path) -> None:
    result = run("history")
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines()}
    assert "2.4k tok" in rows["aaaa0000"] and "0.0020 USD " in rows["aaaa0000"]
    assert "2.4k tok" in rows["bbbb0000"] and "0.5000 USD+" in rows["bbbb0000"]
    assert rows["dddd0000"].split()[4:6] == ["-", "-"]


def test_usage_prints_tokens_and_cost_per_day_and_model(db: Path) -> None:
    result = run("usage", "--days", "7")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["day", "provider/model", "replies", "input", "output", "cost"]
    today = NOW.astimezone().date().isoformat()
    yesterday = (NOW.astimezone() - timedelta(days=1)).date().isoformat()
    body = [line.split() for line in lines[1:4]]
    assert body == [[today, "chutes/m1", "2", "2,000", "400", "0.0020", "USD"],
                    [yesterday, "chutes/m1", "1", "1,000", "200", "0.5000", "USD"],
                    [yesterday, "sutra/sutra-v2", "1", "1,000", "200", "-"]]
    assert lines[4].split() == ["total", "4", "4,000", "800", "0.5020", "USD+"]
    assert "1 reply had no known price" in lines[5]
    assert "9.00 USD" not in result.stdout  # 40 days ago
    assert "9.00 USD" in run("usage", "--days", "60").stdout


def test_usage_with_nothing_to_show_and_a_bad_days(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUI_CHAT_DB", str(tmp_path / "empty.sqlite3"))
    empty = run("usage")
    assert empty.returncode == 0 and empty.stdout == ""
    assert "no reply with token usage in the last 30 days" in empty.stderr
    bad = run("usage", "--days", "0")
    assert bad.returncode == 2 and "--days must be at least 1" in bad.stderr


def test_ask_prices_the_reply_it_saves(tmp_path: Path, chutes_server: FakeProvider,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """`ask` prices with what the model list cache knows (`tui-chat models` fills it)."""
    monkeypatch.setenv("TUI_CHAT_DB", str(tmp_path / "ask.sqlite3"))
    chutes_server.models_list = PRICED_MODELS
    chutes_server.count_usage = True
    env = {"CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": "cpk_usage-test-000001"}
    assert run("models", "-p", "chutes", env=env).returncode == 0
    asked = run("ask", "-m", "fake/small", "what does this cost", env=env)
    assert asked.returncode == 0, asked.stderr
    with Store.open(tmp_path / "ask.sqlite3") as store:
        latest = store.latest_conversation()
        assert latest is not None
        reply = store.get_messages(latest.id)[-1]
    assert reply.usage is not None and reply.usage.cost_usd == pytest.approx(
        (reply.usage.prompt_tokens * 0.5 + reply.usage.completion_tokens * 2) / 1e6)
    assert "USD" in run("history").stdout


def test_ask_refuses_a_prompt_that_cannot_fit_the_window(tmp_path: Path,
                                                        chutes_server: FakeProvider,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUI_CHAT_DB", str(tmp_path / "ask.sqlite3"))
    chutes_server.models_list = PRICED_MODELS
    env = {"CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": "cpk_usage-test-000001"}
    assert run("models", "-p", "chutes", env=env).returncode == 0
    asked = run("ask", "-m", "fake/small", "word " * 3000, env=env)
    assert asked.returncode == 2 and asked.stdout == ""
    assert "window of fake/small" in asked.stderr and "pass -m with a model" in asked.stderr
    assert not any(r.method == "POST" for r in chutes_server.requests)
    with Store.open(tmp_path / "ask.sqlite3") as store:
        assert store.count_conversations() == 0


def test_usage_adds_what_is_left_of_the_quota(tmp_path: Path, chutes_server: FakeProvider,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The quota headers of the last reply `ask` received, said by `usage` afterwards."""
    from tests.fakeprovider import Reply, stream_of

    monkeypatch.setenv("TUI_CHAT_DB", str(tmp_path / "ask.sqlite3"))
    env = {"CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": "cpk_usage-test-000001"}
    assert "quota" not in run("usage").stdout
    chutes_server.script(Reply(stream_of(["fine"]), headers={
        "x-chutes-quota-total": "5000", "x-chutes-quota-used": "3766",
        "x-chutes-quota-remaining": "1234"}))
    asked = run("ask", "-m", "fake/small", "how much is left", env=env)
    assert asked.returncode == 0, asked.stderr
    assert "Chutes: quota 1,234 of 5,000 left (as of " in run("usage").stdout
