"""Full-text search: non-Latin scripts, prefixes, short terms, snippets with spans."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store

TEXTS = {
    "hindi": "नमस्ते दुनिया, आज मौसम अच्छा है",
    "tamil": "வணக்கம் உலகம், இன்று நல்ல நாள்",
    "chinese": "你好世界，今天天气很好",
    "english": "Streaming replies are saved while they arrive",
    "other": "Nothing relevant here at all",
}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "s.db") as opened:
        opened.create_conversation(Conversation(id="c" * 32, title="Languages"))
        for key, text in TEXTS.items():
            opened.add_message(Message(id=key, conversation_id="c" * 32, role=Role.USER,
                                       content=text))
        yield opened


def found(store: Store, query: str) -> list[str]:
    return [hit.message_id for hit in store.search(query)]


@pytest.mark.parametrize(("query", "expected"), [
    ("नमस्ते दुनिया", ["hindi"]),
    ("नमस्ते", ["hindi"]),
    ("दुनिया", ["hindi"]),
    ("अच्छा", ["hindi"]),
    ("வணக்கம்", ["tamil"]),
    ("உலகம்", ["tamil"]),
    ("你好世界", ["chinese"]),
    ("天气", ["chinese"]),  # two characters: below the trigram length
    ("好", ["chinese"]),
    ("stream", ["english"]),  # a prefix
    ("STREAMING", ["english"]),  # case does not matter
    ("replies saved", ["english"]),  # every word, in any order
    ("replies nothing", []),
    ("ve", ["english"]),  # a short Latin term matches inside words ("saved", "arrive")
    ("zzz", []),
])
def test_search_finds_words_in_any_script(store: Store, query: str, expected: list[str]) -> None:
    assert found(store, query) == expected


def test_blank_query_finds_nothing(store: Store) -> None:
    assert found(store, "   ") == []


def test_operators_and_quotes_are_plain_text(store: Store) -> None:
    store.add_message(Message(id="quote", conversation_id="c" * 32, role=Role.USER,
                              content='she said "AND" OR NOT, then (stopped*) 100% _done_'))
    assert found(store, '"AND"') == ["quote"]
    assert found(store, "OR NOT") == ["quote"]
    assert found(store, "(stopped*)") == ["quote"]
    assert found(store, "0%") == ["quote"]
    assert found(store, "_d") == ["quote"]


def test_hits_carry_conversation_title_role_and_a_snippet_with_spans(store: Store) -> None:
    (hit,) = store.search("मौसम")
    assert (hit.conversation_id, hit.title, hit.role) == ("c" * 32, "Languages", Role.USER)
    assert hit.snippet == TEXTS["hindi"]
    assert [hit.snippet[a:b] for a, b in hit.spans] == ["मौसम"]


def test_snippet_is_one_sanitized_line_around_the_match(store: Store) -> None:
    long_text = ("filler " * 40) + "\x1b[31mneedle\x1b[0m\nsecond line" + (" tail" * 60)
    store.add_message(Message(id="long", conversation_id="c" * 32, role=Role.ASSISTANT,
                              content=long_text))
    (hit,) = store.search("needle")
    assert "\x1b" not in hit.snippet and "\n" not in hit.snippet
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert len(hit.snippet) <= 170
    assert [hit.snippet[a:b] for a, b in hit.spans] == ["needle"]


def test_every_occurrence_is_marked(store: Store) -> None:
    store.add_message(Message(id="many", conversation_id="c" * 32, role=Role.USER,
                              content="Tea, more tea, TEA!"))
    (hit,) = store.search("tea")
    assert [hit.snippet[a:b] for a, b in hit.spans] == ["Tea", "tea", "TEA"]


def test_results_are_newest_first_and_limited(store: Store) -> None:
    for index in range(10):
        store.add_message(Message(id=f"n{index}", conversation_id="c" * 32, role=Role.USER,
                                  content=f"repeated phrase {index}"))
    assert found(store, "repeated")[:3] == ["n9", "n8", "n7"]
    assert len(store.search("repeated", limit=4)) == 4


def test_a_streaming_reply_is_indexed_once_it_is_done(store: Store) -> None:
    reply = store.add_message(Message(conversation_id="c" * 32, role=Role.ASSISTANT,
                                      content="halfway", status=MessageStatus.STREAMING))
    assert found(store, "halfway") == []
    reply.content, reply.status = "halfway and finished", MessageStatus.COMPLETE
    store.update_message(reply)
    assert found(store, "finished") == [reply.id]
    reply.content = "edited later"
    store.update_message(reply)
    assert found(store, "finished") == []
    assert found(store, "edited") == [reply.id]


def test_deleted_messages_leave_the_index(store: Store) -> None:
    store.delete_subtree("tamil")
    assert found(store, "வணக்கம்") == []
    assert found(store, "नमस्ते") == ["hindi"]
    # Raises "database disk image is malformed" if the index disagrees with the table.
    store._conn.execute(
        "INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")


# -- properties: any query is safe, and an exact piece of a message always finds it ----------

_PRINTABLE = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"),
                           blacklist_characters="\u202a\u202b\u202c\u202d\u202e"
                                                "\u2066\u2067\u2068\u2069")


@settings(max_examples=150, deadline=None)
@given(query=st.text(max_size=30))
def test_any_query_is_safe(query: str) -> None:
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "s.db") as store:
        store.create_conversation(Conversation(id="c"))
        store.add_message(Message(conversation_id="c", role=Role.USER,
                                  content='AND OR NOT NEAR( "quoted" * ^ -x col:y'))
        for hit in store.search(query):
            assert all(0 <= a < b <= len(hit.snippet) for a, b in hit.spans)


@settings(max_examples=150, deadline=None)
@given(text=st.text(_PRINTABLE, min_size=1, max_size=120), data=st.data())
def test_an_exact_piece_of_a_message_finds_it(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, min(len(text), start + 12)))
    piece = text[start:end]
    assume(piece.strip())
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "s.db") as store:
        store.create_conversation(Conversation(id="c"))
        message = store.add_message(Message(conversation_id="c", role=Role.USER, content=text))
        hits = store.search(piece)
        assert [hit.message_id for hit in hits] == [message.id]


def chatty_store(store: Store, conversations: int, messages: int, text: str) -> list[str]:
    """`conversations` conversations, oldest first, each of `messages` messages holding `text`
    (with one short-term variant for the LIKE path)."""
    ids = []
    for index in range(conversations):
        conversation = Conversation(title=f"chat {index}")
        store.import_conversation(conversation, [
            Message(conversation_id=conversation.id, role=Role.USER,
                    content=f"{text} {n} ok") for n in range(messages)])
        ids.append(conversation.id)
    return ids


@pytest.mark.parametrize("query", ["zebra", "ok", "zebra ok"])
def test_conversations_are_counted_not_hits(store: Store, query: str) -> None:
    ids = chatty_store(store, 5, 60, "zebra")  # 300 hits, more than one page of them
    found = store.search_conversations(query, limit=3)
    assert found.total == 5 and found.conversation_ids == frozenset(ids)
    # The newest hit of each of the newest three conversations, newest first.
    assert [hit.conversation_id for hit in found.hits] == ids[::-1][:3]
    assert all(hit.snippet.startswith("zebra 59") for hit in found.hits)


def test_a_conversation_search_that_finds_nothing(store: Store) -> None:
    found = store.search_conversations("quagga")
    assert found.total == 0 and found.hits == [] and found.conversation_ids == frozenset()


@pytest.mark.parametrize("query", ["zebra", "ok"])
def test_counting_stops_at_count_limit_conversations(store: Store, query: str) -> None:
    """A word in every conversation of a big store: the newest `count_limit` are counted (it
    says the count is incomplete), the newest hits still the newest conversations'."""
    ids = chatty_store(store, 8, 4, "zebra")
    found = store.search_conversations(query, limit=2, count_limit=5)
    assert not found.complete and found.total == 5
    assert found.conversation_ids == frozenset(ids[::-1][:5])
    assert [hit.conversation_id for hit in found.hits] == ids[::-1][:2]
    assert all(hit.snippet.startswith("zebra 3") for hit in found.hits)


def test_a_count_within_the_limit_is_complete(store: Store) -> None:
    ids = chatty_store(store, 4, 4, "zebra")
    found = store.search_conversations("zebra", limit=2, count_limit=4)
    assert found.complete and found.total == 4 and found.conversation_ids == frozenset(ids)
    assert store.search_conversations("quagga").complete
