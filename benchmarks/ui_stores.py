"""Generated stores for the UI benchmarks, built once and cached in CACHE (delete it to rebuild).

Rows go in through the store's own row converters (`conversation_row`, `message_row`) and
SQL, in one transaction, with the schema's triggers filling the search index: the same file
the app would have written, much faster than one import per conversation.
"""

from __future__ import annotations

import os
import random
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.textgen import history_text
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.core.store_schema import (
    CONVERSATION_WRITTEN,
    MESSAGE_WRITTEN,
    SEARCH_TEXT_FUNCTION,
    conversation_row,
    insert_sql,
    message_row,
)

CACHE = Path(os.environ.get("TUI_CHAT_BENCH_CACHE",
                            Path(tempfile.gettempdir()) / "tui-chat-bench-cache"))
VERSION = 2  # 2: conversations are trees (schema 4): linked when built
_START = datetime(2026, 1, 1, tzinfo=UTC)


def _conversation(rng: random.Random, index: int, count: int, title: str
                  ) -> tuple[Conversation, list[Message]]:
    when = _START + timedelta(minutes=index)
    conversation = Conversation(title=title, created=when, updated=when, provider="chutes",
                                model="bench/1")
    messages = []
    for k in range(count // 2 + count % 2):
        user, answer = history_text(rng, index * count + k)
        messages.append(Message(conversation_id=conversation.id, role=Role.USER, content=user,
                                created=when + timedelta(seconds=2 * k)))
        if len(messages) < count:
            messages.append(Message(conversation_id=conversation.id, role=Role.ASSISTANT,
                                    content=answer, provider="chutes", model="bench/1",
                                    created=when + timedelta(seconds=2 * k + 1)))
    return conversation, messages


def _fill(store: Store, shapes: list[tuple[int, str]]) -> list[str]:
    """Conversations of (message count, title); their ids in order. One transaction, rows by
    executemany, each conversation linked as one path as it is built (what link_in_order
    would make of it): 100,000 conversations in well under a minute."""
    rng = random.Random(7)
    ids: list[str] = []
    conn = store._conn
    conn.execute("PRAGMA cache_size = -200000")  # the id indexes take random keys
    conn.execute("BEGIN")  # the store's connection is in autocommit mode: `with conn` is not one
    try:
        # The search index in one pass at the end, not row by row from the trigger (six
        # times faster); the trigger is put back as it was.
        trigger = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND "
                               "name = 'messages_fts_insert'").fetchone()[0]
        first_seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM messages").fetchone()[0]
        conn.execute("DROP TRIGGER messages_fts_insert")
        for start in range(0, len(shapes), 2000):
            conversations, messages = [], []
            for index in range(start, min(len(shapes), start + 2000)):
                count, title = shapes[index]
                conversation, chain = _conversation(rng, index, count, title)
                conversations.append({**conversation_row(conversation),
                                      "active_root_id": chain[0].id if chain else None,
                                      "active_leaf_id": chain[-1].id if chain else None})
                messages.extend(
                    {**message_row(m), "parent_id": chain[k - 1].id if k else None,
                     "active_child_id": chain[k + 1].id if k + 1 < len(chain) else None}
                    for k, m in enumerate(chain))
                ids.append(conversation.id)
            conn.executemany(insert_sql("conversations", (*CONVERSATION_WRITTEN,
                                                          "active_root_id", "active_leaf_id")),
                             conversations)
            conn.executemany(insert_sql("messages", (*MESSAGE_WRITTEN, "active_child_id")),
                             messages)
        conn.execute(f"INSERT INTO messages_fts(rowid, content) SELECT seq, "
                     f"{SEARCH_TEXT_FUNCTION}(content) FROM messages WHERE seq >= ? AND "
                     "status != 'streaming'", (first_seq,))
        conn.execute(trigger)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return ids


def _cached(name: str, shapes: list[tuple[int, str]]) -> tuple[Path, list[str]]:
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"{name}-v{VERSION}.sqlite3"
    ids_file = path.with_suffix(".ids")
    if not (path.exists() and ids_file.exists()):
        for stale in CACHE.glob(f"{path.name}*"):
            stale.unlink()
        with Store.open(path) as store:
            ids = _fill(store, shapes)
            store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        ids_file.write_text("\n".join(ids))
    return path, ids_file.read_text().split("\n")


def many_conversations(conversations: int = 10_000, messages: int = 50) -> Path:
    """A store of `conversations` × `messages` (about 30 MB of text)."""
    path, _ = _cached(f"many-{conversations}x{messages}",
                      [(messages, f"Conversation {i}") for i in range(conversations)])
    return path


def long_conversation(messages: int = 2_000) -> tuple[Path, str]:
    """A store holding 20 small conversations and one of `messages`; (path, its id)."""
    path, ids = _cached(f"long-{messages}",
                        [(10, f"Small {i}") for i in range(20)] + [(messages, "Long one")])
    return path, ids[-1]


SCALE_CONVERSATIONS = 100_000
SCALE_MESSAGES = 10


def hundred_thousand_conversations() -> Path:
    """The store of issue 15's scale figures: 100,000 conversations × 10 messages (a million
    messages, about 60 MB of text and its search index), built once (about a minute) and
    cached. For start-up beside an empty store (bench_ui_startup) and the sidebar's list and
    searches (bench_store_scale)."""
    return many_conversations(SCALE_CONVERSATIONS, SCALE_MESSAGES)
