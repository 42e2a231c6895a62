"""Schema 6 on a store written by tui-chat at 258099a (tests/fixtures/store-v5.sqlite3, see
make_store_v5.py.txt): the tool-call notes in `error` become `Message.tool_calls`, and every
stored text is scrubbed of the API keys an older tui-chat could leave in it."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_chat.core import secrets
from tui_chat.core.models import MessageStatus, Role, ToolCall
from tui_chat.core.store import Store
from tui_chat.core.store_schema import SCHEMA_VERSION, register_functions
from tui_chat.core.tool_calls import legacy_tool_calls

FIXTURE_V5 = Path(__file__).parent.parent / "fixtures" / "store-v5.sqlite3"
CONFIGURED = "sutra-configured-secret-77"
LEAKS = ("cpk_leaked", CONFIGURED)


@pytest.fixture(autouse=True)
def no_remembered_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts knowing no key (others in this process remember theirs)."""
    monkeypatch.setattr(secrets, "_known", set())
    monkeypatch.setattr(secrets, "_pattern", None)


@pytest.fixture
def old_store(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "v5.sqlite3"
    shutil.copy(FIXTURE_V5, path)
    yield path


def every_text(path: Path) -> str:
    """Every value of every table of the file, as text (the search index's own included)."""
    with sqlite3.connect(path) as conn:
        register_functions(conn)  # the search index's view calls it
        tables = [row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        values = [str(value) for table in tables
                  for row in conn.execute(f"SELECT * FROM \"{table}\"") for value in row]
    conn.close()
    return "\n".join(values)


def test_the_tool_call_notes_become_the_field_and_error_means_an_error(old_store: Path) -> None:
    with sqlite3.connect(old_store) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == 5
    raw.close()
    with Store.open(old_store) as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        conversations = store.list_conversations()
        by_title = {c.title: c.id for c in conversations}
        path = store.get_messages(by_title["weather in Paris, and search?"])
        failed_path = store.get_messages(next(c.id for c in conversations
                                              if c.id != by_title["weather in Paris, and "
                                                                  "search?"]))
    two, plain, one = (m for m in path if m.role is Role.ASSISTANT)
    assert two.tool_calls == [ToolCall(name="get_weather", arguments='{"city": "Paris"}'),
                              ToolCall(name="search", arguments='{"q": "नमस्ते",\n "n": 2}')]
    assert two.error is None and two.status is MessageStatus.COMPLETE
    assert two.finish_reason == "tool_calls"
    assert one.tool_calls == [ToolCall(name="lookup", arguments="{}")]
    assert one.error is None and one.content == "Let me look."
    assert plain.tool_calls == [] and plain.error is None
    failed = failed_path[-1]
    assert failed.status is MessageStatus.ERROR and failed.tool_calls == []
    assert failed.error is not None and failed.error.startswith("Chutes refused the key")
    assert "The model asked to call" not in every_text(old_store)


def test_the_migration_scrubs_every_leaked_key_and_says_how_many(old_store: Path) -> None:
    assert all(leak in every_text(old_store) for leak in LEAKS)
    with Store.open(old_store, keys=[CONFIGURED, None]) as store:
        notice = store.notice
        hits = store.search("plainly")
        gone = store.search("leaked-content")
        integrity = store._conn.execute(
            "INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")
    assert integrity is not None
    # An error, a user's message, a reasoning, a title and a system prompt held one each.
    assert notice == ("Removed what looked like an API key from 5 stored texts of your "
                      "conversations, written there by an older tui-chat; each now reads "
                      "[key hidden].")
    text = every_text(old_store)
    assert not any(leak in text for leak in LEAKS), "a key is still in a table"
    assert not any(leak.encode() in old_store.read_bytes() for leak in LEAKS), (
        "a key is still in the file's bytes")
    assert "my key is [key hidden]" in text and "cpk_ab is fine" in text  # too short: no key
    assert "use [key hidden] carefully" in text
    assert [hit.snippet for hit in hits] and not gone  # the search index follows the text
    with Store.open(old_store) as again:  # once only
        assert again.notice is None


def test_a_key_not_configured_when_the_store_opens_is_not_known(old_store: Path) -> None:
    with Store.open(old_store) as store:
        assert store.notice is not None and "from 4 stored texts" in store.notice
    text = every_text(old_store)
    assert "cpk_leaked" not in text
    # Not key-shaped, and not configured: nothing can tell it from ordinary words. The error
    # column gets the whole scrub on every read all the same.
    assert "use sutra-configured-secret-77 carefully" in text


def test_a_new_store_has_nothing_to_say(tmp_path: Path) -> None:
    with Store.open(tmp_path / "new.sqlite3", keys=["cpk_configured-00000001"]) as store:
        assert store.notice is None


@pytest.mark.parametrize(("note", "calls"), [
    ("The model asked to call a tool (f), but tools are not enabled for this conversation, "
     "so none was run.\nf()", [ToolCall(name="f")]),
    ("The model asked to call 2 tools (search, search_web), but tools are not enabled for "
     "this conversation, so none was run.\nsearch_web({\"a\":\n1})\nsearch({})",
     [ToolCall(name="search_web", arguments='{"a":\n1}'),
      ToolCall(name="search", arguments="{}")]),
    ("The model asked to call a tool ((no name)), but tools are not enabled for this "
     "conversation, so none was run.\n(no name)(x)", [ToolCall(name="", arguments="x")]),
])
def test_legacy_notes_are_read_back(note: str, calls: list[ToolCall]) -> None:
    assert legacy_tool_calls(note) == calls


@pytest.mark.parametrize("note", [
    None, "", "The connection dropped.",
    "The model asked to call a tool (f), but it failed.\nf()",
    "The model asked to call a tool (f), but tools are not enabled for this conversation, "
    "so none was run.",
])
def test_other_errors_are_not_tool_calls(note: str | None) -> None:
    assert legacy_tool_calls(note) is None
