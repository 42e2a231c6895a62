"""Usage is advisory, and figures that make no sense are no facts: a provider's odd usage never
turns a complete reply into an interrupted one, and nonsense counts or costs (from a provider,
an older store, another program, an import) are neither stored nor shown as figures. Run as a
user runs them: `ask` and `history`/`usage` are subprocesses against a loopback provider and a
real store file."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakeprovider import DONE, FakeProvider, Reply, chunk, sse
from tests.unit.test_export import conversation_dict, document, message_dict
from tui_chat.core import export
from tui_chat.core.costs import cost_text, reply_cost
from tui_chat.core.models import (
    Conversation,
    Message,
    MessageStatus,
    ModelInfo,
    Role,
    Usage,
)
from tui_chat.core.store import Store

KEY = "cpk_fake-test-key-not-real-0123.SECRET"


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tui_chat", *args], capture_output=True,
                          text=True, env={**os.environ, **env}, timeout=60, check=False)


ODD_USAGE: list[Any] = [
    {"prompt_tokens": "twelve", "completion_tokens": 3},
    {"prompt_tokens": 1.5, "completion_tokens": 3},
    {"prompt_tokens": {"n": 1}},
    {"prompt_tokens": -3, "completion_tokens": -5, "total_tokens": -8},
    {"completion_tokens": 10**30},
    "NaN",
]


@pytest.mark.parametrize("usage", ODD_USAGE, ids=lambda usage: json.dumps(usage)[:30])
def test_odd_usage_after_a_complete_reply_is_dropped_with_a_note(
        chutes_server: FakeProvider, tmp_path: Path, usage: Any) -> None:
    last = {"id": "x", "object": "chat.completion.chunk", "model": "m", "choices": [],
            "usage": usage}
    chutes_server.script(Reply([sse(chunk("Hello")), sse(chunk(finish_reason="stop")),
                                sse(last), DONE]))
    db = tmp_path / "store.sqlite3"
    result = run("ask", "hi", env={"CHUTES_BASE_URL": chutes_server.url,
                                   "CHUTES_API_KEY": KEY, "TUI_CHAT_DB": str(db)})
    assert (result.returncode, result.stdout) == (0, "Hello"), result.stderr
    assert "made no sense, so this reply has no token counts or cost." in result.stderr
    with Store.open(db) as store:
        reply = store.get_messages(store.list_conversations()[0].id)[-1]
    assert reply.status == MessageStatus.COMPLETE and reply.content == "Hello"
    assert reply.usage is None and not reply.failed


NONSENSE_ROWS = [
    '{"prompt_tokens": -1000, "completion_tokens": -200, "total_tokens": -1200, '
    '"cost_usd": -0.5}',
    '{"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30, "cost_usd": 1e300}',
    '{"prompt_tokens": 9000000000000000000, "completion_tokens": 1, "total_tokens": 1}',
    '{"prompt_tokens": "many"}',
    "not json at all",
]


@pytest.fixture
def odd_store(tmp_path: Path) -> Path:
    """A store whose replies hold one sane usage and nonsense written by another program."""
    path = tmp_path / "store.sqlite3"
    with Store.open(path) as store:
        store.create_conversation(Conversation(id="c" * 32, title="odd"))
        store.add_message(Message(conversation_id="c" * 32, role=Role.USER, content="q"))
        store.add_message(Message(
            id="sane", conversation_id="c" * 32, role=Role.ASSISTANT, content="a",
            provider="chutes", model="m1",
            usage=Usage(prompt_tokens=100, completion_tokens=20, total_tokens=120,
                        cost_usd=0.25)))
        for index in range(len(NONSENSE_ROWS)):
            store.add_message(Message(id=f"odd{index}", conversation_id="c" * 32,
                                      role=Role.ASSISTANT, content="b", provider="chutes",
                                      model="m1", usage=Usage(prompt_tokens=1)))
    with sqlite3.connect(path) as conn:
        for index, text in enumerate(NONSENSE_ROWS):
            conn.execute("UPDATE messages SET usage = ? WHERE id = ?", (text, f"odd{index}"))
    return path


def test_history_and_usage_show_only_sane_figures(odd_store: Path) -> None:
    env = {"TUI_CHAT_DB": str(odd_store)}
    history = run("history", env=env)
    assert history.returncode == 0, history.stderr
    assert "120 tok" in history.stdout and "0.2500 USD" in history.stdout
    usage = run("usage", env=env)
    assert usage.returncode == 0, usage.stderr
    assert usage.stdout.splitlines()[-1].split() == ["total", "1", "100", "20", "0.2500", "USD"]
    for result in (history, usage):
        assert "bug" not in result.stderr and "-" + "0.5" not in result.stdout


def test_a_store_with_nonsense_figures_opens_sanely(odd_store: Path) -> None:
    """What opening the conversation reads: every message, and the conversation's cost."""
    with Store.open(odd_store) as store:
        messages = {m.id: m for m in store.get_messages("c" * 32)}
        assert messages["sane"].usage == Usage(prompt_tokens=100, completion_tokens=20,
                                                   total_tokens=120, cost_usd=0.25)
        assert [messages[f"odd{i}"].usage for i in range(len(NONSENSE_ROWS))] == [None] * 5
        assert store.conversation_cost("c" * 32) == (0.25, 0)
        show = run("show", "c" * 8, env={"TUI_CHAT_DB": str(odd_store)})
        assert show.returncode == 0, show.stderr


def test_nonsense_costs_are_never_figures() -> None:
    priced = ModelInfo(id="m", provider="p", input_price=1e300, output_price=1e300)
    assert reply_cost(Usage(prompt_tokens=10**9, completion_tokens=10**9), priced) is None
    assert cost_text(-0.5) == cost_text(float("nan")) == "unknown cost"
    assert cost_text(0.25) == "0.2500 USD"


def test_an_import_with_nonsense_counts_keeps_the_message_without_them(tmp_path: Path) -> None:
    text = document(conversation_dict(messages=[message_dict(
        id="m", role="assistant", content="hi",
        usage={"prompt_tokens": -5, "completion_tokens": 10**12, "total_tokens": 3})]))
    (tmp_path / "f.json").write_text(text, encoding="utf-8")
    with Store.open(tmp_path / "s.db") as store:
        export.import_file(store, tmp_path / "f.json")
        message = store.get_message("m")
        assert message.usage is None and message.content == "hi"
