"""Any text a provider can send is stored exactly (or replaced deliberately), and found in full.

Through the real SSE path (a loopback server sending raw frames) into the store, and through
the store's search: NUL and other controls, lone surrogate escapes, invalid UTF-8, bidi
overrides, joiners, very long lines.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fakeprovider import DONE, FakeProvider, Reply, chunk, sse
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.session import ChatSession
from tui_chat.core.store import Store
from tui_chat.core.store_schema import MIGRATIONS, SCHEMA_VERSION

CID = "c" * 32


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "s.db") as opened:
        opened.create_conversation(Conversation(id=CID, title="Hostile"))
        yield opened


def found(store: Store, query: str) -> list[str]:
    return [hit.message_id for hit in store.search(query)]


def check_index(store: Store) -> None:
    """Raises "database disk image is malformed" if the index disagrees with its content."""
    store._conn.execute(
        "INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")


# -- the store: NUL ---------------------------------------------------------------------------

def test_a_word_after_a_nul_is_found(store: Store) -> None:
    store.add_message(Message(id="nul", conversation_id=CID, role=Role.ASSISTANT,
                              content="before\x00after the nul, then zq"))
    assert store.get_message("nul").content == "before\x00after the nul, then zq"
    assert found(store, "before") == ["nul"]
    assert found(store, "after") == ["nul"]
    assert found(store, "then") == ["nul"]
    assert found(store, "zq") == ["nul"]  # a short term: LIKE, which stops at a NUL too
    assert found(store, "after zq") == ["nul"]
    (hit,) = store.search("after")
    assert "\x00" not in hit.snippet and hit.snippet.startswith("beforeafter")
    assert [hit.snippet[a:b] for a, b in hit.spans] == ["after"]
    check_index(store)


def test_the_index_follows_updates_and_deletes_of_text_with_nul(store: Store) -> None:
    reply = store.add_message(Message(conversation_id=CID, role=Role.ASSISTANT,
                                      content="x\x00first", status=MessageStatus.STREAMING))
    assert found(store, "first") == []  # not indexed while streaming
    reply.content, reply.status = "x\x00first\x00second", MessageStatus.COMPLETE
    store.update_message(reply)
    assert found(store, "second") == [reply.id]
    reply.content = "\x00third"
    store.update_message(reply)
    assert found(store, "second") == [] and found(store, "third") == [reply.id]
    check_index(store)
    store.delete_subtree(reply.id)
    assert found(store, "third") == []
    check_index(store)


def _v2_store(path: Path) -> None:
    """A store as the previous schema (version 2) wrote it, holding text with NUL."""
    conn = sqlite3.connect(path)
    conn.executescript(MIGRATIONS[0] + MIGRATIONS[1] + "PRAGMA user_version = 2;")
    conn.execute("INSERT INTO conversations (id, title, created, updated) VALUES (?,?,?,?)",
                 (CID, "Old", "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00+00:00"))
    for mid, content in (("old-nul", "head\x00tail words"), ("old-plain", "plain words")):
        conn.execute("INSERT INTO messages (id, conversation_id, role, content, status, created)"
                     " VALUES (?,?,?,?,?,?)", (mid, CID, "user", content, "complete",
                                                "2026-01-01T00:00:00+00:00"))
    conn.commit()
    conn.close()


def test_a_store_of_the_previous_schema_is_indexed_again(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    _v2_store(path)
    with Store.open(path) as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert found(store, "tail") == ["old-nul"]
        assert found(store, "words") == ["old-plain", "old-nul"]
        check_index(store)


_CONTROLS = st.sampled_from(["\x00", "\x01", "\x07", "\x1b", "\x7f", "\x85", "\x9b", "\u202e",
                             "\u2066", "\u200d", "\u200c", "\ufeff", "\t", "\r", "\n", " "])
_WORD = st.text(st.characters(whitelist_categories=("L", "N")), min_size=1, max_size=8)


@settings(max_examples=80, deadline=None)
@given(words=st.lists(_WORD, min_size=1, max_size=6), separators=st.data())
def test_every_word_between_any_control_characters_is_found(
        words: list[str], separators: st.DataObject) -> None:
    text = "".join(word + separators.draw(st.text(_CONTROLS, min_size=1, max_size=3))
                   for word in words)
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "s.db") as store:
        store.create_conversation(Conversation(id="c"))
        message = store.add_message(Message(conversation_id="c", role=Role.USER, content=text))
        assert store.get_message(message.id).content == text
        for word in words:
            assert found(store, word) == [message.id], (word, text)
        check_index(store)


# -- through the SSE path ---------------------------------------------------------------------

def raw_event(content_json: str) -> bytes:
    """One SSE frame whose delta content is `content_json`, written into the JSON unparsed."""
    return (b'data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,'
            b'"delta":{"content":' + content_json.encode("utf-8", "surrogatepass") +
            b'},"finish_reason":null}]}\n\n')


def finish() -> list[bytes]:
    return [sse(chunk(finish_reason="stop")), DONE]


async def reply_through(server: FakeProvider, store: Store, frames: list[bytes]) -> Message:
    server.script(Reply([*frames, *finish()]))
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": server.url})
    session = ChatSession.start(store)
    async with ProviderClient(provider, "key", max_retries=0) as client:
        async for _ in session.send("hello", client=client, model="m"):
            pass
    reply = session.messages()[-1]
    assert reply.role == Role.ASSISTANT
    return reply


@pytest.mark.parametrize(("frame", "stored"), [
    (raw_event(json.dumps("a\x00b\x01c\x1b[31md\x7f\x9b")), "a\x00b\x01c\x1b[31md\x7f\x9b"),
    (raw_event('"raw\x00nul\x1bescape\x08"'), "raw\x00nul\x1bescape\x08"),  # unescaped: lenient
    (raw_event('"lone \\ud800 high, \\udfff low, pair \\ud83d\\ude00"'),
     "lone \ufffd high, \ufffd low, pair \U0001f600"),
    (raw_event('"bad utf-8 "').replace(b"utf-8 ", b"utf-8 \xff\xfe"), "bad utf-8 \ufffd\ufffd"),
    (raw_event(json.dumps("rtl \u202eevil\u202c zwj 👩\u200d💻 bom \ufeff",
                          ensure_ascii=False)),
     "rtl \u202eevil\u202c zwj 👩\u200d💻 bom \ufeff"),
], ids=["escaped-controls", "raw-controls", "lone-surrogates", "invalid-utf-8", "bidi-joiners"])
async def test_a_reply_keeps_every_character_a_provider_sends(
        store: Store, chutes_server: FakeProvider, frame: bytes, stored: str) -> None:
    reply = await reply_through(chutes_server, store, [frame])
    assert (reply.status, reply.content) == (MessageStatus.COMPLETE, stored)


async def test_a_reply_with_nul_and_a_very_long_line_is_found_by_search(
        store: Store, chutes_server: FakeProvider) -> None:
    long_line = "x" * 300_000
    frames = [raw_event(json.dumps("start\x00hidden")), raw_event(json.dumps(long_line)),
              raw_event(json.dumps("\u0000lastword"))]
    reply = await reply_through(chutes_server, store, frames)
    assert reply.content == "start\x00hidden" + long_line + "\x00lastword"
    assert found(store, "hidden") == [reply.id]
    assert found(store, "lastword") == [reply.id]
    (hit,) = store.search("lastword")
    assert hit.snippet.endswith("xlastword") and "\x00" not in hit.snippet


async def test_a_provider_error_with_a_lone_surrogate_is_saved(
        store: Store, chutes_server: FakeProvider) -> None:
    refused = Reply(status=400, content_type="application/json",
                    body=b'{"detail": "bad \\ud800 request"}')
    chutes_server.script(refused, refused)  # a 400 is tried once more without stream_options
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": chutes_server.url})
    session = ChatSession.start(store)
    async with ProviderClient(provider, "key", max_retries=0) as client:
        async for _ in session.send("hello", client=client, model="m"):
            pass
    reply = session.messages()[-1]
    assert reply.status == MessageStatus.ERROR and "bad \ufffd request" in (reply.error or "")


def test_a_short_term_rereads_only_the_messages_holding_a_nul(store: Store) -> None:
    plan = " ".join(row[3] for row in store._conn.execute(
        "EXPLAIN QUERY PLAN SELECT m.id FROM messages m WHERE m.content LIKE 'zq' OR "
        "(m.seq IN (SELECT seq FROM messages WHERE instr(content, x'00') > 0))"))
    assert "USING INDEX messages_with_nul" in plan


def test_a_query_with_a_byte_that_is_not_utf8_looks_for_the_replacement(store: Store) -> None:
    store.add_message(Message(id="fffd", conversation_id=CID, role=Role.ASSISTANT,
                              content="bad \ufffd byte"))
    # `tui-chat search $'\xff'`: Python gives the argument a lone surrogate for the byte
    assert found(store, "\udcff") == ["fffd"]
    assert found(store, "bad \udcff byte") == ["fffd"]
