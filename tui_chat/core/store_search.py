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
query is sanitized like the text shown, and the snippet is cut from the searched text.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from tui_chat.core.models import Role, SearchHit
from tui_chat.core.store_schema import SEARCH_TEXT_FUNCTION, from_text, search_text
from tui_chat.core.text import sanitize, without_lone_surrogates

SNIPPET_BEFORE = 40
SNIPPET_LENGTH = 160


@dataclass(frozen=True)
class SearchPlan:
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


_SELECT = ("SELECT m.id, m.conversation_id, m.role, m.content, m.created, c.title "
           "FROM messages m JOIN conversations c ON c.id = m.conversation_id ")


def run(conn: sqlite3.Connection, query: str, limit: int) -> list[SearchHit]:
    search = plan(query)
    if not search.terms:
        return []
    # LIKE stops at a NUL too: the few messages holding one (a partial index lists them) are
    # matched again on their search text.
    likes = "".join(f" AND (m.content LIKE ? ESCAPE '\\' OR (m.seq IN (SELECT seq FROM messages "
                    f"WHERE instr(content, x'00') > 0) AND {SEARCH_TEXT_FUNCTION}(m.content) "
                    f"LIKE ? ESCAPE '\\'))" for _ in search.like)
    like_params = [pattern for pattern in search.like for _ in range(2)]
    if search.match is not None:
        # The FTS table drives the loop in descending rowid order, so the LIMIT stops it early
        # instead of sorting every match of a common word.
        sql = ("SELECT m.id, m.conversation_id, m.role, m.content, m.created, c.title "
               "FROM messages_fts f JOIN messages m ON m.seq = f.rowid "
               "JOIN conversations c ON c.id = m.conversation_id "
               f"WHERE messages_fts MATCH ?{likes} ORDER BY f.rowid DESC LIMIT ?")
        params: tuple[object, ...] = (search.match, *like_params, limit)
    else:
        sql = (_SELECT + f"WHERE m.status != 'streaming'{likes} ORDER BY m.seq DESC LIMIT ?")
        params = (*like_params, limit)
    rows = conn.execute(sql, params).fetchall()
    pattern = _pattern(search.terms)
    return [
        SearchHit(conversation_id=row["conversation_id"], message_id=row["id"],
                  title=row["title"], role=Role(row["role"]), created=from_text(row["created"]),
                  **_snippet(search_text(row["content"]), pattern))
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
