"""Writes a peer's own store, run with the PEER's interpreter (it imports nothing of ours):

    VENV/bin/python peer_store.py elia|oterm < conversations.json

stdin: `[{"title": …, "model": …, "messages": [[role, content], …]}, …]`. The peer's own code
creates its database where its environment (XDG_DATA_HOME) puts it, with its schema and
version stamp, exactly as on a first start; the rows then go in with plain SQL in one
transaction, the shape the peer's own code writes them (read from its source):

- elia (`elia_chat.database`): `chat(model, title, started_at, archived)` and
  `message(chat_id, role, content, timestamp, meta, model)`; a chat starts with its system
  message, as every chat elia creates does (elia shows `messages[1:]`).
- oterm (`oterm.store.store`): `chat(name, model, system, provider, parameters, tools,
  thinking)` and `message(chat_id, author, text, images)`.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

STAMP = "%Y-%m-%d %H:%M:%S.%f"  # how SQLAlchemy writes a DateTime to SQLite


def elia(conversations: list[dict[str, Any]]) -> Path:
    import elia_chat.database.models  # type: ignore[import-not-found]  # noqa: F401 (the tables)
    from elia_chat.database.database import (  # type: ignore[import-not-found]
        create_database,
        sqlite_file_name,
    )

    asyncio.run(create_database())
    start = datetime.datetime(2026, 1, 1)
    with sqlite3.connect(sqlite_file_name) as conn:
        for index, item in enumerate(conversations):
            began = start + datetime.timedelta(hours=index)
            chat_id = conn.execute(
                "INSERT INTO chat (model, title, started_at, archived) VALUES (?, ?, ?, 0)",
                (item["model"], item["title"], began.strftime(STAMP))).lastrowid
            rows = [("system", "You are a helpful assistant named Elia."), *item["messages"]]
            conn.executemany(
                "INSERT INTO message (chat_id, role, content, timestamp, meta, model) "
                "VALUES (?, ?, ?, ?, '{}', ?)",
                [(chat_id, role, content,
                  (began + datetime.timedelta(seconds=k)).strftime(STAMP), item["model"])
                 for k, (role, content) in enumerate(rows)])
    return Path(sqlite_file_name)


def oterm(conversations: list[dict[str, Any]]) -> Path:
    from oterm.store.store import Store  # type: ignore[import-not-found]

    store = asyncio.run(Store.get_store())
    with sqlite3.connect(store.db_path) as conn:
        for item in conversations:
            chat_id = conn.execute(
                "INSERT INTO chat (name, model, system, provider, parameters, tools, thinking) "
                "VALUES (?, ?, NULL, ?, '{}', '[]', 0)",
                (item["title"], item["model"], item["provider"])).lastrowid
            conn.executemany(
                "INSERT INTO message (chat_id, author, text, images) VALUES (?, ?, ?, '[]')",
                [(chat_id, role, content) for role, content in item["messages"]])
    return Path(store.db_path)


if __name__ == "__main__":
    writers = {"elia": elia, "oterm": oterm}
    print(writers[sys.argv[1]](json.load(sys.stdin)))
