"""Generated stores for the UI benchmarks, built once and cached in CACHE (delete it to rebuild).

Rows go in through the store's own row converters (`conversation_row`, `message_row`) and
SQL, one transaction per 500 conversations, with the schema's triggers filling the search
index: the same file the app would have written, much faster than one import per conversation.
"""

from __future__ import annotations

import os
import random
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.textgen import history_text
from tui_chat.core import store_tree
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.core.store_schema import (
    CONVERSATION_COLUMNS,
    MESSAGE_COLUMNS,
    conversation_row,
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
    """Conversations of (message count, title); their ids in order."""
    rng = random.Random(7)
    ids: list[str] = []
    conn = store._conn
    for start in range(0, len(shapes), 500):
        with conn:
            for index in range(start, min(len(shapes), start + 500)):
                count, title = shapes[index]
                conversation, messages = _conversation(rng, index, count, title)
                conn.execute(f"INSERT INTO conversations ({CONVERSATION_COLUMNS}) "
                             "VALUES (?,?,?,?,?,?,?,?,?,?)", conversation_row(conversation))
                conn.executemany(f"INSERT INTO messages ({MESSAGE_COLUMNS}) "
                                 "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                                 [message_row(m) for m in messages])
                # Linked now, not on the first read of the benchmark.
                store_tree.link_in_order(conn, conversation.id)
                ids.append(conversation.id)
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
