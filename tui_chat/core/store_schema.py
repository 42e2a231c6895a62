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

`seq` (an integer primary key) is the insertion order: children are ordered by it; `id` is the
stable public id. Timestamps are ISO 8601 text in UTC with microseconds, so they sort as text and
round-trip exactly. A message is indexed for search once it is no longer streaming: a flush
of a streaming reply updates one row and touches no index but the primary key (and
`messages_with_nul` for a reply holding a NUL).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

from tui_chat.core.models import (
    Conversation,
    ConversationSummary,
    Message,
    MessageStatus,
    Parameters,
    Role,
    usage_from_json,
)
from tui_chat.core.secrets import scrub
from tui_chat.core.store_attachments import infos_from

SCHEMA_VERSION = 5

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

# MIGRATIONS[n] takes a database at version n to version n + 1.
MIGRATIONS: dict[int, str] = {0: SCHEMA_V1, 1: MIGRATE_V1_TO_V2, 2: MIGRATE_V2_TO_V3,
                               3: MIGRATE_V3_TO_V4, 4: MIGRATE_V4_TO_V5}
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


def migrate(conn: sqlite3.Connection, version: int) -> None:
    """Register the schema's functions on `conn` and bring the schema from `version` to
    SCHEMA_VERSION, one step per transaction."""
    register_functions(conn)
    while version < SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the lock.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version < SCHEMA_VERSION:
                for statement in _statements(MIGRATIONS[version]):
                    conn.execute(statement)
                version += 1
                conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _statements(script: str) -> list[str]:
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


CONVERSATION_COLUMNS = ("id, title, created, updated, provider, model, system_prompt, "
                        "parameters, pinned, archived")
MESSAGE_COLUMNS = ("id, conversation_id, role, content, reasoning, provider, model, status, "
                   "error, finish_reason, usage, time_to_first_token, tokens_per_second, created")
# The columns of schema 3, apart: rows of the first two schemas' shape are still written
# (import), and the tree's columns are set by the store's tree operations.
FORK_COLUMNS = "forked_from, forked_from_message"
TREE_COLUMNS = "parent_id, partial_in_context"
CONVERSATION_SELECT = f"{CONVERSATION_COLUMNS}, {FORK_COLUMNS}"
CONVERSATION_READ = f"{CONVERSATION_SELECT}, context_from, context_from_set"
"""What `conversation_from` reads (schema 5's column is set on its own: `set_context_from`)."""
MESSAGE_SELECT = f"{MESSAGE_COLUMNS}, {TREE_COLUMNS}, attachments"
"""What `message_from` reads (the attachments' list is written by store_attachments.save)."""


def conversation_row(c: Conversation) -> tuple[object, ...]:
    return (c.id, c.title, to_text(c.created), to_text(c.updated), c.provider, c.model,
            c.system_prompt, c.parameters.model_dump_json(exclude_none=True), int(c.pinned),
            int(c.archived))


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


def fork_row(c: Conversation) -> tuple[object, ...]:
    return (c.forked_from, c.forked_from_message)


def summary_from(row: sqlite3.Row) -> ConversationSummary:
    return ConversationSummary.model_validate(dict(
        id=row["id"], title=row["title"], created=from_text(row["created"]),
        updated=from_text(row["updated"]), provider=row["provider"], model=row["model"],
        message_count=row["message_count"], pinned=bool(row["pinned"]),
        archived=bool(row["archived"]),
    ))


def message_row(m: Message) -> tuple[object, ...]:
    usage = m.usage.model_dump_json() if m.usage is not None else None
    # The error column is written only here: scrubbed, so no bug can record a key in it.
    error = scrub(m.error) if m.error else m.error
    return (m.id, m.conversation_id, m.role.value, m.content, m.reasoning, m.provider, m.model,
            m.status.value, error, m.finish_reason, usage, m.time_to_first_token,
            m.tokens_per_second, to_text(m.created))


_MESSAGE_FIELDS = len(MESSAGE_SELECT.split(","))
_ROLES = {role.value: role for role in Role}
_STATUSES = {status.value: status for status in MessageStatus}


def message_from(row: sqlite3.Row) -> Message:
    """The message of a row whose first columns are MESSAGE_SELECT's. Read by position, the
    enums by a dict: opening a long conversation makes one per message of its path. Every
    record read from a row is validated (`model_validate`): the file may have been written
    by another version or another program."""
    (message_id, conversation_id, role, content, reasoning, provider, model, status, error,
     finish_reason, usage, time_to_first_token, tokens_per_second, created, parent_id,
     partial_in_context, attachments) = tuple(row)[:_MESSAGE_FIELDS]
    return Message.model_validate(dict(
        id=message_id, conversation_id=conversation_id, role=_ROLES.get(role) or Role(role),
        content=content, reasoning=reasoning, provider=provider, model=model,
        # Scrubbed as read too: a store written before every write was scrubbed may hold a
        # key in an error (rows are never rewritten behind the user's back).
        status=_STATUSES.get(status) or MessageStatus(status),
        error=scrub(error) if error else error, finish_reason=finish_reason,
        usage=usage_from_json(usage),
        time_to_first_token=time_to_first_token, tokens_per_second=tokens_per_second,
        created=from_text(created), parent_id=parent_id,
        partial_in_context=bool(partial_in_context), attachments=infos_from(attachments),
    ))


