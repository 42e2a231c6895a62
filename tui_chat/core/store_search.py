"""Full-text search over stored messages: query planning and plain-text snippets.

The FTS5 index uses the trigram tokenizer: it matches any substring of three characters or
more, in any script (Hindi and Tamil keep their combining vowel signs, Chinese needs no word
breaks) and a prefix such as "stream" finds "streaming". The unicode61 tokenizer was rejected:
it splits Devanagari and Tamil words at their vowel signs and treats a run of Chinese as one
word. Terms of one or two characters cannot use a trigram index; they are matched with LIKE.
All terms must match (AND). Results are newest first.

What is searched is `store_schema.search_text(content)`: the content without NUL characters,
at which the trigram tokenizer (and SQLite's LIKE) stop reading. Every other character a
provider can send is indexed as stored, so a word after any control character is found; the
query is sanitized like the text shown, and the snippet is cut from the searched text read
as plain text (`plain_markdown`: no `##`, `**` or link targets in a one-line snippet).
"""

from __future__ import annotations

import re
import sqlite3

from msgspec import Struct

from tui_chat.core.models import Role, SearchHit
from tui_chat.core.plain_markdown import plain_markdown
from tui_chat.core.store_schema import SEARCH_TEXT_FUNCTION, from_text, search_text
from tui_chat.core.text import sanitize, without_lone_surrogates

SNIPPET_BEFORE = 40
SNIPPET_LENGTH = 160


class SearchPlan(Struct, frozen=True):
    terms: tuple[str, ...]
    match: str | None  # an FTS5 MATCH expression for the terms of three characters or more
    like: tuple[str, ...]  # LIKE patterns for the shorter terms


def plan(query: str) -> SearchPlan:
    # A byte that is not UTF-8 in a command-line argument arrives as a lone surrogate; such
    # bytes from a provider were stored as U+FFFD, so that is what the query looks for.
    terms = tuple(dict.fromkeys(without_lone_surrogates(sanitize(query)).split()))
    long_terms = [t for t in terms if len(t) >= 3]
    match = " AND ".join('"' + t.replace('"', '""') + '"' for t in long_terms) or None
    like = tuple("%" + _escape_like(t) + "%" for t in terms if len(t) < 3)
    return SearchPlan(terms, match, like)


def _escape_like(term: str) -> str:
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


COUNT_LIMIT = 1000
"""Conversations a search by conversation counts at most (a common word is in every one of
a big store: counting them all reads every match, seconds for 100,000 conversations)."""


class ConversationMatches(Struct, frozen=True):
    """A search counted by conversation: the conversations with a matching message (all of
    them when `complete`, else the `count_limit` whose newest match is newest), and the
    newest matching message of each of the newest `limit` of them (newest first)."""

    hits: list[SearchHit]
    conversation_ids: frozenset[str]
    complete: bool = True

    @property
    def total(self) -> int:
        """How many conversations match (at least, when not `complete`)."""
        return len(self.conversation_ids)


def _matching(search: SearchPlan) -> tuple[str, str, list[object]]:
    """The tables (`m` the message, `f` its FTS row if any) and the condition of the messages
    matching `search`, and the condition's parameters."""
    # LIKE stops at a NUL too: the few messages holding one (a partial index lists them) are
    # matched again on their search text.
    likes = "".join(f" AND (m.content LIKE ? ESCAPE '\\' OR (m.seq IN (SELECT seq FROM messages "
                    f"WHERE instr(content, x'00') > 0) AND {SEARCH_TEXT_FUNCTION}(m.content) "
                    f"LIKE ? ESCAPE '\\'))" for _ in search.like)
    like_params: list[object] = [pattern for pattern in search.like for _ in range(2)]
    if search.match is not None:
        return ("messages_fts f JOIN messages m ON m.seq = f.rowid",
                f"messages_fts MATCH ?{likes}", [search.match, *like_params])
    return "messages m", f"m.status != 'streaming'{likes}", like_params


def run(conn: sqlite3.Connection, query: str, limit: int) -> list[SearchHit]:
    search = plan(query)
    if not search.terms:
        return []
    tables, where, params = _matching(search)
    # The FTS table drives the loop in descending rowid order (= seq), so the LIMIT stops it
    # early instead of sorting every match of a common word.
    order = "f.rowid" if search.match is not None else "m.seq"
    rows = conn.execute(
        "SELECT m.id, m.conversation_id, m.role, m.content, m.created, c.title "
        f"FROM {tables} JOIN conversations c ON c.id = m.conversation_id "
        f"WHERE {where} ORDER BY {order} DESC LIMIT ?", (*params, limit)).fetchall()
    return _hits(rows, search)


def run_by_conversation(conn: sqlite3.Connection, query: str, limit: int,
                        count_limit: int = COUNT_LIMIT) -> ConversationMatches:
    """The conversations matching `query` (up to `count_limit`), and the newest hit of the
    newest `limit`: one walk over the matches newest first (no message text read), which
    stops at the first match of a conversation beyond `count_limit`; then the text of
    `limit` rows."""
    search = plan(query)
    if not search.terms:
        return ConversationMatches([], frozenset())
    tables, where, params = _matching(search)
    order = "f.rowid" if search.match is not None else "m.seq"
    cursor = conn.execute(f"SELECT m.conversation_id, m.seq FROM {tables} WHERE {where} "
                          f"ORDER BY {order} DESC", params)
    newest: dict[str, int] = {}  # conversation -> its newest match, in the order found
    complete = True
    while complete and (rows := cursor.fetchmany(500)):
        for conversation_id, seq in rows:
            if conversation_id in newest:
                continue
            if len(newest) == count_limit:
                complete = False
                break
            newest[conversation_id] = seq
    cursor.close()
    chosen = list(newest.values())[:limit]
    rows = conn.execute(
        "SELECT m.id, m.conversation_id, m.role, m.content, m.created, c.title FROM messages m "
        "JOIN conversations c ON c.id = m.conversation_id "
        f"WHERE m.seq IN ({','.join('?' * len(chosen))}) ORDER BY m.seq DESC",
        chosen).fetchall() if chosen else []
    return ConversationMatches(_hits(rows, search), frozenset(newest), complete)


def _hits(rows: list[sqlite3.Row], search: SearchPlan) -> list[SearchHit]:
    pattern = _pattern(search.terms)
    return [
        SearchHit.model_validate({
            "conversation_id": row["conversation_id"], "message_id": row["id"],
            "title": row["title"], "role": Role(row["role"]), "created": from_text(row["created"]),
            **_snippet(plain_markdown(search_text(row["content"])), pattern)})
        for row in rows
    ]


def _pattern(terms: tuple[str, ...]) -> re.Pattern[str]:
    ordered = sorted(terms, key=len, reverse=True)
    return re.compile("|".join(re.escape(t) for t in ordered), re.IGNORECASE)


def _snippet(content: str, pattern: re.Pattern[str]) -> dict[str, object]:
    """A one-line window of `content` around its first match, with the match spans in it."""
    first = pattern.search(content)
    start = max(0, first.start() - SNIPPET_BEFORE) if first else 0
    end = min(len(content), start + SNIPPET_LENGTH)
    window = " ".join(sanitize(content[start:end]).split())
    text = ("…" if start > 0 else "") + window + ("…" if end < len(content) else "")
    spans = [(m.start(), m.end()) for m in pattern.finditer(text)]
    return {"snippet": text, "spans": spans}
