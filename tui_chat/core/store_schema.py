"""The store's SQL schema, its forward migrations, and row <-> model conversion.

Schema history (`PRAGMA user_version`):
- 1: conversations and messages.
- 2: full-text search (FTS5, trigram tokenizer) kept in sync by triggers, and the streaming
  lease columns (writer pid/host, heartbeat) that let the next start tell a reply cut off by a
  crash from one another process is still writing.
- 3: the search index holds `search_text(content)`, the content without NUL characters (FTS5's
  trigram tokenizer stops reading at a NUL, so a word after one was never found). The index's
  external content is the view `messages_search`, so 'rebuild' and 'integrity-check' see the
  same text as the triggers; every connection registers the SQL function `tui_chat_search_text`
  (done by `migrate`, which every connection runs). Changing `search_text` needs a migration
  that rebuilds the index. The partial index `messages_with_nul` lists the messages holding a
  NUL, so that a LIKE scan (short search terms) re-reads only those. The step rebuilds the whole
  index once (the README says how long that takes).
- 4: conversations are trees. `messages.parent_id` (NULL for a root) and
  `messages.active_child_id` (the child on the active path below it, remembered even while
  the message itself is on another branch); `conversations.active_root_id` and
  `conversations.active_leaf_id` (the end of the active path: paging it walks parent links
  up from there, one index look-up per message, whatever the size of the tree);
  `messages.partial_in_context` (an interrupted reply sent as context all the same); the
  fork's origin (`conversations.forked_from`, `forked_from_message`). The migration links
  each conversation's messages in `seq` order: a single path, nothing else changed; a reply
  stopped by the user (the one interruption that was sent as context) keeps being sent.
  `messages_links` holds the links of each message, so that a walk along the tree reads the
  index alone, not the rows.
- 5: `conversations.context_from`, the first message of the active path sent as context (the
  oldest turns the user chose to leave out come before it; NULL: none is left out), and
  `context_from_set`, when it last changed. What a reply cost is part of its `usage` JSON
  (`cost_usd`), which needs no column. Attachments: `messages.attachments`, the list of a
  message's files (name, kind, type, size, language, tokens: JSON, NULL when none), read with
  the message; their content in the table `attachments` (text, or an image's bytes), one row
  each, read only for a request or an export (store_attachments).
- 6: a reply's tool calls are data: `messages.tool_calls` (JSON, a list of {id, name,
  arguments}; NULL when none) and `messages.tool_call_id` (a `tool` message: the call it
  answers). The migration moves the calls out of the note schema 5 kept in `error` (whose
  first line said tools were not enabled), so that `error` means an error again; and it
  scrubs every stored text of API keys that an older tui-chat may have written (store_v6).
  `messages.sent_as`: how a reply was sent ("end-to-end", "TEE", both; NULL: neither), which
  a reopened conversation and an export show (core/protection).
- 7: `messages.tool_run` (JSON: a `tool` message's status, tool, server and seconds; NULL
  for every other message): what became of a tool call, kept as it happens (core/tool_turns).
- 8: `messages.note`, an advisory note on a reply that is complete all the same (today: the
  provider's usage made no sense and was dropped); shown as a note, never as an error. Until
  7 the note was kept in `error`, so that a complete reply seemed to carry an error: the
  migration moves every such note (a complete message whose `error` is exactly the usage
  note's sentence, `chunks.usage_event`) into `note`, so that `error` means an error again.
- 9: what a reply was sent with, which its header shows (issue 25): `messages.streamed` (0:
  the provider sent the reply whole, a JSON body; NULL: streamed, or not a reply) and
  `messages.reasoning_sent` (the reasoning setting the request carried, "off", "low", …;
  NULL: none was sent). Up to 8 neither was kept, and a reopened conversation's header
  forgot them: the migration only adds the columns, so an older reply reads back as it did
  (streamed, no setting known).

`seq` (an integer primary key) is the insertion order: children are ordered by it; `id` is the
stable public id. Timestamps are ISO 8601 text in UTC with microseconds, so they sort as text and
round-trip exactly. A message is indexed for search once it is no longer streaming: a flush
of a streaming reply updates one row and touches no index but the primary key (and
`messages_with_nul` for a reply holding a NUL).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from tui_chat.core.models import (
    Conversation,
    ConversationSummary,
    Message,
    MessageStatus,
    Parameters,
    Role,
    ToolRun,
    usage_from_json,
)
from tui_chat.core.secrets import scrub
from tui_chat.core.store_attachments import infos_from
from tui_chat.core.store_v6 import migrate_v5_to_v6

SCHEMA_VERSION = 9

SCHEMA_V1 = """
CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    provider TEXT,
    model TEXT,
    system_prompt TEXT,
    parameters TEXT NOT NULL DEFAULT '{}',
    pinned INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX conversations_updated ON conversations(updated);
CREATE TABLE messages (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    content TEXT NOT NULL DEFAULT '',
    reasoning TEXT NOT NULL DEFAULT '',
    provider TEXT,
    model TEXT,
    status TEXT NOT NULL,
    error TEXT,
    finish_reason TEXT,
    usage TEXT,
    time_to_first_token REAL,
    tokens_per_second REAL,
    created TEXT NOT NULL
);
CREATE INDEX messages_conversation ON messages(conversation_id, seq);
"""

MIGRATE_V1_TO_V2 = """
ALTER TABLE messages ADD COLUMN writer_pid INTEGER;
ALTER TABLE messages ADD COLUMN writer_host TEXT;
ALTER TABLE messages ADD COLUMN heartbeat REAL;
CREATE INDEX messages_streaming ON messages(status) WHERE status = 'streaming';
CREATE VIRTUAL TABLE messages_fts USING fts5(
    content, content='messages', content_rowid='seq', tokenize='trigram'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.status != 'streaming'
BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.seq, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.status != 'streaming'
BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, status ON messages
WHEN old.status != 'streaming' OR new.status != 'streaming'
BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content)
        SELECT 'delete', old.seq, old.content WHERE old.status != 'streaming';
    INSERT INTO messages_fts(rowid, content)
        SELECT new.seq, new.content WHERE new.status != 'streaming';
END;
INSERT INTO messages_fts(rowid, content) SELECT seq, content FROM messages
    WHERE status != 'streaming';
"""

SEARCH_TEXT_FUNCTION = "tui_chat_search_text"

MIGRATE_V2_TO_V3 = f"""
DROP TRIGGER messages_fts_insert;
DROP TRIGGER messages_fts_delete;
DROP TRIGGER messages_fts_update;
DROP TABLE messages_fts;
CREATE VIEW messages_search AS
    SELECT seq, {SEARCH_TEXT_FUNCTION}(content) AS content FROM messages
    WHERE status != 'streaming';
CREATE VIRTUAL TABLE messages_fts USING fts5(
    content, content='messages_search', content_rowid='seq', tokenize='trigram'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.status != 'streaming'
BEGIN
    INSERT INTO messages_fts(rowid, content)
        VALUES (new.seq, {SEARCH_TEXT_FUNCTION}(new.content));
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.status != 'streaming'
BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content)
        VALUES ('delete', old.seq, {SEARCH_TEXT_FUNCTION}(old.content));
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, status ON messages
WHEN old.status != 'streaming' OR new.status != 'streaming'
BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content)
        SELECT 'delete', old.seq, {SEARCH_TEXT_FUNCTION}(old.content)
        WHERE old.status != 'streaming';
    INSERT INTO messages_fts(rowid, content)
        SELECT new.seq, {SEARCH_TEXT_FUNCTION}(new.content) WHERE new.status != 'streaming';
END;
INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
CREATE INDEX messages_with_nul ON messages(seq) WHERE instr(content, x'00') > 0;
"""

# Kept literally (not imported from session.py): a migration must not change with the code.
_STOPPED_BY_THE_USER = ("The reply was stopped before it finished; the text received so far "
                        "is kept.")

MIGRATE_V3_TO_V4 = f"""
ALTER TABLE messages ADD COLUMN parent_id TEXT;
ALTER TABLE messages ADD COLUMN active_child_id TEXT;
ALTER TABLE messages ADD COLUMN partial_in_context INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN active_root_id TEXT;
ALTER TABLE conversations ADD COLUMN active_leaf_id TEXT;
ALTER TABLE conversations ADD COLUMN forked_from TEXT;
ALTER TABLE conversations ADD COLUMN forked_from_message TEXT;
CREATE TEMP TABLE chain AS
    SELECT seq, lag(id) OVER w AS parent, lead(id) OVER w AS child FROM messages
    WINDOW w AS (PARTITION BY conversation_id ORDER BY seq);
UPDATE messages SET parent_id = chain.parent, active_child_id = chain.child
    FROM chain WHERE chain.seq = messages.seq;
DROP TABLE temp.chain;
UPDATE conversations SET
    active_root_id = (SELECT id FROM messages m WHERE m.conversation_id = conversations.id
                      ORDER BY seq LIMIT 1),
    active_leaf_id = (SELECT id FROM messages m WHERE m.conversation_id = conversations.id
                      ORDER BY seq DESC LIMIT 1);
UPDATE messages SET partial_in_context = 1
    WHERE status = 'interrupted' AND error = '{_STOPPED_BY_THE_USER}';
CREATE INDEX messages_children ON messages(conversation_id, parent_id, seq);
CREATE INDEX messages_links ON messages(id, parent_id, active_child_id);
"""

MIGRATE_V4_TO_V5 = """
ALTER TABLE conversations ADD COLUMN context_from TEXT;
ALTER TABLE conversations ADD COLUMN context_from_set TEXT;
ALTER TABLE messages ADD COLUMN attachments TEXT;
CREATE TABLE attachments (
    message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    text TEXT,
    data BLOB,
    PRIMARY KEY (message_id, position)
);
"""

MIGRATE_V6_TO_V7 = """
ALTER TABLE messages ADD COLUMN tool_run TEXT;
"""

# Kept literally (not built from chunks.py's sentence): a migration must not change with the
# code. A complete reply whose error is exactly the usage note (one line, its two ends).
MIGRATE_V7_TO_V8 = """
ALTER TABLE messages ADD COLUMN note TEXT;
UPDATE messages SET note = error, error = NULL
    WHERE status = 'complete' AND error IS NOT NULL
    AND substr(error, 1, 28) = 'The provider''s token usage ('
    AND substr(error, -59) = ') made no sense, so this reply has no token counts or cost.'
    AND instr(error, char(10)) = 0;
"""

MIGRATE_V8_TO_V9 = """
ALTER TABLE messages ADD COLUMN streamed INTEGER;
ALTER TABLE messages ADD COLUMN reasoning_sent TEXT;
"""

Step = str | Callable[[sqlite3.Connection], "str | None"]
"""A migration step: an SQL script, or a function that changes the database (inside the
step's transaction) and returns a sentence for the user, or None."""

# MIGRATIONS[n] takes a database at version n to version n + 1.
MIGRATIONS: dict[int, Step] = {0: SCHEMA_V1, 1: MIGRATE_V1_TO_V2, 2: MIGRATE_V2_TO_V3,
                               3: MIGRATE_V3_TO_V4, 4: MIGRATE_V4_TO_V5, 5: migrate_v5_to_v6,
                               6: MIGRATE_V6_TO_V7, 7: MIGRATE_V7_TO_V8,
                               8: MIGRATE_V8_TO_V9}
OUR_TABLES = frozenset({"conversations", "messages"})


def search_text(text: str) -> str:
    """The text the search index holds for a message's content: NUL removed (the trigram
    tokenizer stops at it; a terminal never shows it either). Everything else is indexed as
    stored, so a word after any other control character is found too."""
    return text.replace("\0", "")


def _sql_search_text(value: str | None) -> str | None:
    return search_text(value) if isinstance(value, str) else value


def register_functions(conn: sqlite3.Connection) -> None:
    """The SQL functions the schema's triggers and views call."""
    conn.create_function(SEARCH_TEXT_FUNCTION, 1, _sql_search_text, deterministic=True)


def migrate(conn: sqlite3.Connection, version: int) -> list[str]:
    """Register the schema's functions on `conn` and bring the schema from `version` to
    SCHEMA_VERSION, one step per transaction; the sentences the steps have for the user."""
    register_functions(conn)
    notices: list[str] = []
    while version < SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the lock.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version < SCHEMA_VERSION:
                step = MIGRATIONS[version]
                if isinstance(step, str):
                    for statement in statements(step):
                        conn.execute(statement)
                elif (notice := step(conn)) is not None:
                    notices.append(notice)
                version += 1
                conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return notices


def statements(script: str) -> list[str]:
    """Split a script into statements, keeping trigger bodies whole."""
    statements: list[str] = []
    current = ""
    for line in script.strip().splitlines():
        current += line + "\n"
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return statements


def to_text(moment: datetime) -> str:
    """A datetime as sortable UTC text; a naive one is taken to be UTC already."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def from_text(text: str) -> datetime:
    return datetime.fromisoformat(text)


CONVERSATION_WRITTEN = ("id", "title", "created", "updated", "provider", "model",
                        "system_prompt", "parameters", "pinned", "archived", "forked_from",
                        "forked_from_message")
"""The columns `conversation_row` gives, which create, update and import write (schema 5's
`context_from` is set on its own: `set_context_from`; the tree's pointers by the tree's
operations)."""
CONVERSATION_COLUMNS = ", ".join(CONVERSATION_WRITTEN[:10])
"""What a conversation list reads (`summary_from`)."""
CONVERSATION_SELECT = ", ".join(CONVERSATION_WRITTEN)
CONVERSATION_READ = f"{CONVERSATION_SELECT}, context_from, context_from_set"
"""What `conversation_from` reads."""
MESSAGE_WRITTEN = ("id", "conversation_id", "parent_id", "role", "content", "reasoning",
                   "provider", "model", "status", "error", "finish_reason", "usage",
                   "time_to_first_token", "tokens_per_second", "created",
                   "partial_in_context", "tool_calls", "tool_call_id", "sent_as", "tool_run",
                   "note", "streamed", "reasoning_sent")
"""The columns `message_row` gives, which adding and importing a message write."""
MESSAGE_CHANGING = ("content", "reasoning", "provider", "model", "status", "error",
                    "finish_reason", "usage", "time_to_first_token", "tokens_per_second",
                    "partial_in_context", "tool_calls", "sent_as", "tool_run", "note",
                    "streamed", "reasoning_sent")
"""The columns `Store.update_message` writes: a message's place, role, id and date never
change."""
MESSAGE_SELECT = ", ".join((*MESSAGE_WRITTEN, "attachments"))
"""What `message_from` reads (the attachments' list is written by store_attachments.save)."""


def insert_sql(table: str, columns: Sequence[str], *, verb: str = "INSERT") -> str:
    """`verb INTO table (columns) VALUES (:column, ...)`: its values are a row's dict."""
    return (f"{verb} INTO {table} ({', '.join(columns)}) "
            f"VALUES ({', '.join(':' + column for column in columns)})")


def update_sql(table: str, columns: Sequence[str], key: str = "id") -> str:
    """`UPDATE table SET column = :column, ... WHERE key = :key`: its values are a row's
    dict."""
    assignments = ", ".join(f"{column} = :{column}" for column in columns)
    return f"UPDATE {table} SET {assignments} WHERE {key} = :{key}"


def conversation_row(c: Conversation) -> dict[str, object]:
    """The conversation's CONVERSATION_WRITTEN columns, by name."""
    return {"id": c.id, "title": c.title, "created": to_text(c.created),
            "updated": to_text(c.updated), "provider": c.provider, "model": c.model,
            "system_prompt": c.system_prompt,
            "parameters": c.parameters.model_dump_json(exclude_none=True),
            "pinned": int(c.pinned), "archived": int(c.archived),
            "forked_from": c.forked_from, "forked_from_message": c.forked_from_message}


def conversation_from(row: sqlite3.Row) -> Conversation:
    return Conversation.model_validate(dict(
        id=row["id"], title=row["title"], created=from_text(row["created"]),
        updated=from_text(row["updated"]), provider=row["provider"], model=row["model"],
        system_prompt=row["system_prompt"],
        parameters=Parameters.model_validate(json.loads(row["parameters"] or "{}")),
        pinned=bool(row["pinned"]), archived=bool(row["archived"]),
        forked_from=row["forked_from"], forked_from_message=row["forked_from_message"],
        context_from=row["context_from"],
        context_from_set=(from_text(row["context_from_set"]) if row["context_from_set"]
                          else None),
    ))


def summary_from(row: sqlite3.Row) -> ConversationSummary:
    return ConversationSummary.model_validate(dict(
        id=row["id"], title=row["title"], created=from_text(row["created"]),
        updated=from_text(row["updated"]), provider=row["provider"], model=row["model"],
        message_count=row["message_count"], pinned=bool(row["pinned"]),
        archived=bool(row["archived"]),
    ))


def message_row(m: Message) -> dict[str, object]:
    """The message's MESSAGE_WRITTEN columns, by name."""
    usage = m.usage.model_dump_json() if m.usage is not None else None
    # The error column is written only here: scrubbed, so no bug can record a key in it.
    error = scrub(m.error) if m.error else m.error
    tool_calls = (json.dumps([call.model_dump() for call in m.tool_calls], ensure_ascii=False)
                  if m.tool_calls else None)
    return {"id": m.id, "conversation_id": m.conversation_id, "parent_id": m.parent_id,
            "role": m.role.value, "content": m.content, "reasoning": m.reasoning,
            "provider": m.provider, "model": m.model, "status": m.status.value, "error": error,
            "finish_reason": m.finish_reason, "usage": usage,
            "time_to_first_token": m.time_to_first_token,
            "tokens_per_second": m.tokens_per_second, "created": to_text(m.created),
            "partial_in_context": int(m.partial_in_context), "tool_calls": tool_calls,
            "tool_call_id": m.tool_call_id, "sent_as": m.sent_as,
            "tool_run": m.tool_run.model_dump_json() if m.tool_run is not None else None,
            "note": scrub(m.note) if m.note else m.note,
            # NULL unless sent whole: a row from before schema 9 reads as streamed too.
            "streamed": None if m.streamed else 0, "reasoning_sent": m.reasoning_sent}


_ROLES = {role.value: role for role in Role}
_STATUSES = {status.value: status for status in MessageStatus}


def message_from(row: sqlite3.Row) -> Message:
    """The message of a row holding MESSAGE_SELECT's columns, read by name (the row made a
    dict once: a Row looks a name up along its columns), the enums by a dict: opening a long
    conversation makes one per message of its path. Every record read from a row is
    validated (`model_validate`): the file may have been written by another version or
    another program."""
    value = dict(zip(row.keys(), row, strict=True))
    role, status, error = value["role"], value["status"], value["error"]
    usage, tool_calls, tool_call_id = value["usage"], value["tool_calls"], value["tool_call_id"]
    # Fields at their default are left out: validating them is most of what reading costs.
    rare = {"tool_calls": json.loads(tool_calls)} if tool_calls else {}
    if tool_call_id is not None:
        rare["tool_call_id"] = tool_call_id
    if isinstance(sent_as := value.get("sent_as"), str):
        rare["sent_as"] = sent_as
    if isinstance(tool_run := value.get("tool_run"), str):
        rare["tool_run"] = ToolRun.model_validate_json(tool_run)
    if isinstance(note := value.get("note"), str):
        rare["note"] = scrub(note)
    if value.get("streamed") == 0:
        rare["streamed"] = False
    if isinstance(reasoning_sent := value.get("reasoning_sent"), str):
        rare["reasoning_sent"] = reasoning_sent
    return Message.model_validate(dict(
        id=value["id"], conversation_id=value["conversation_id"],
        role=_ROLES.get(role) or Role(role), content=value["content"],
        reasoning=value["reasoning"], provider=value["provider"], model=value["model"],
        status=_STATUSES.get(status) or MessageStatus(status),
        # Scrubbed as read too: no bug, old or new, shows a key from the error column.
        error=scrub(error) if error else error, finish_reason=value["finish_reason"],
        usage=usage_from_json(usage),
        time_to_first_token=value["time_to_first_token"],
        tokens_per_second=value["tokens_per_second"],
        created=from_text(value["created"]), parent_id=value["parent_id"],
        partial_in_context=bool(value["partial_in_context"]),
        attachments=infos_from(value["attachments"]), **rare,
    ))
