"""The store's step from schema 5 to 6: tool calls become data; old key leaks are scrubbed.

1. `messages.tool_calls` (JSON: a list of {id, name, arguments}) and `messages.tool_call_id`
   are added. A complete reply whose `error` holds schema 5's tool-call note ("The model asked
   to call …, but tools are not enabled…" and a `name(arguments)` line per call) gets its
   calls in the column and no error: `error` means an error again.
2. Every stored text is scrubbed of API keys that a tui-chat from before round 2's key fix
   could have written (into an error, mostly): Chutes keys (`cpk_…`) and every key this
   process knows when it opens the store (`secrets.remember`: the keys of config.toml and
   the environment, which `Store.open(keys=…)` hands over). The error column gets the full
   `secrets.scrub` that every write of it gets; the texts people and models wrote get
   `secrets.scrub_keys`, which leaves "Bearer …"-like examples alone. JSON columns are
   scrubbed value by value, so they stay valid JSON.

The step runs inside the migration's transaction (`store_schema.migrate`): a crash leaves the
store at schema 5, untouched. It returns the sentence that says how many texts it cleaned.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

from tui_chat.core.secrets import KEY_HIDDEN, scrub, scrub_keys
from tui_chat.core.tool_calls import legacy_tool_calls

_ADD_COLUMNS = ("ALTER TABLE messages ADD COLUMN tool_calls TEXT",
                "ALTER TABLE messages ADD COLUMN tool_call_id TEXT",
                "ALTER TABLE messages ADD COLUMN sent_as TEXT")

# (table, its key, its plain text columns, its JSON columns)
_TEXTS: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("messages", "seq", ("content", "reasoning", "error", "provider", "model",
                         "finish_reason", "tool_call_id"), ("tool_calls", "attachments")),
    ("conversations", "id", ("title", "system_prompt", "provider", "model"), ("parameters",)),
    ("attachments", "rowid", ("text",), ()),
)


def migrate_v5_to_v6(conn: sqlite3.Connection) -> str | None:
    for statement in _ADD_COLUMNS:
        conn.execute(statement)
    move_tool_calls(conn)
    cleaned = scrub_stored_keys(conn)
    if not cleaned:
        return None
    texts = f"{cleaned} stored text{'' if cleaned == 1 else 's'}"
    return (f"Removed what looked like an API key from {texts} of your conversations, "
            f"written there by an older tui-chat; each now reads {KEY_HIDDEN}.")


def move_tool_calls(conn: sqlite3.Connection) -> int:
    """Move schema 5's tool-call notes from `error` to `tool_calls`; how many moved."""
    rows = conn.execute("SELECT seq, error FROM messages WHERE status = 'complete' AND "
                        "role = 'assistant' AND error LIKE 'The model asked to call %'"
                        ).fetchall()
    moved = []
    for seq, note in rows:
        calls = legacy_tool_calls(note)
        if calls:
            moved.append((json.dumps([call.model_dump() for call in calls],
                                     ensure_ascii=False), seq))
    conn.executemany("UPDATE messages SET tool_calls = ?, error = NULL WHERE seq = ?", moved)
    return len(moved)


def scrub_stored_keys(conn: sqlite3.Connection) -> int:
    """Hide every key in the store's texts (see the module's docstring); how many texts (a
    column of a row) changed. What is overwritten is gone from the file too: SQLite's
    `secure_delete` zeroes the old cells, and the search index is merged afresh (a deleted
    entry stays in its old segment until a merge)."""
    secure = conn.execute("PRAGMA secure_delete").fetchone()[0]
    conn.execute("PRAGMA secure_delete = ON")
    try:
        cleaned = _scrub_tables(conn)
    finally:
        conn.execute(f"PRAGMA secure_delete = {int(secure)}")
    return cleaned


def _scrub_tables(conn: sqlite3.Connection) -> int:
    cleaned = 0
    for table, key, plain, json_columns in _TEXTS:
        columns = (*plain, *json_columns)
        changes: list[tuple[str, str, object]] = []  # (column, new text, row's key)
        for row in conn.execute(f"SELECT {key}, {', '.join(columns)} FROM {table}"):
            for column, value in zip(columns, tuple(row)[1:], strict=True):
                if not isinstance(value, str) or not value:
                    continue
                new = (_scrubbed_json(value) if column in json_columns
                       else (scrub if column == "error" else scrub_keys)(value))
                if new != value:
                    changes.append((column, new, row[0]))
        for changed, text, where in changes:
            conn.execute(f"UPDATE {table} SET {changed} = ? WHERE {key} = ?", (text, where))
        cleaned += len(changes)
        if table == "messages" and any(column == "content" for column, _, _ in changes):
            conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('optimize')")
    return cleaned


def _scrubbed_json(text: str) -> str:
    try:
        value = json.loads(text)
    except ValueError:  # not JSON after all (another program's row): as plain text
        return scrub_keys(text)
    new = _each_string(value, scrub_keys)
    return text if new == value else json.dumps(new, ensure_ascii=False)


def _each_string(value: object, change: Callable[[str], str]) -> object:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_each_string(item, change) for item in value]
    if isinstance(value, dict):
        return {name: _each_string(item, change) for name, item in value.items()}
    return value
