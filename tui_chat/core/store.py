"""The conversation store: one SQLite file (WAL, busy timeout, versioned schema, FTS5 search).

Usage::

    store = Store.open(paths.store_file())     # or Store.open() for the default path
    if store.notice: tell_the_user(store.notice)
    store.create_conversation(conversation)
    store.add_message(message); store.update_message(message)   # a streaming flush
    store.list_conversations(limit=100)  ->  list[ConversationSummary], newest first
    store.get_messages(conversation_id, limit=50, before_id=oldest_shown_id)
    store.search("नमस्ते")  ->  list[SearchHit]

Opening: a file that is not a database, or is corrupt (PRAGMA quick_check, for files up to
store_file.QUICK_CHECK_MAX_BYTES), is moved aside (NAME.broken-TIMESTAMP,
with its -wal/-shm) and a fresh store started; `store.notice` then holds the sentence to show.
A store written by a newer tui-chat is never touched: `open` raises StoreError. A store that
is busy or unreadable (permissions) raises StoreError too; the app then runs on
`Store.open_temporary(reason)`, deleted on close, whose notice says nothing will be saved.

Crash safety: a message is saved with status "streaming" together with the writer's pid and
host. On open, a streaming message whose writer is gone (same host and pid not alive, or no
heartbeat for LEASE_SECONDS) is marked interrupted; a reply another live process is writing is
left alone. All methods are safe to call from several threads (one lock per Store); several
processes may share one file.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from tui_chat.core import paths, store_search
from tui_chat.core.errors import ExitCode, StoreError
from tui_chat.core.files import make_private_dir, os_error_advice, os_error_reason
from tui_chat.core.models import (
    Conversation,
    ConversationSummary,
    Message,
    MessageStatus,
    SearchHit,
    utc_now,
)
from tui_chat.core.store_file import Unusable, connect, translate_errors
from tui_chat.core.store_schema import (
    CONVERSATION_COLUMNS,
    MESSAGE_COLUMNS,
    conversation_from,
    conversation_row,
    message_from,
    message_row,
    summary_from,
    to_text,
)
from tui_chat.core.text import one_line

LEASE_SECONDS = 3600.0
INTERRUPTED_NOTE = "The reply was cut off when tui-chat stopped; the text received so far is kept."


class NotFoundError(StoreError):
    """No conversation or message with that id (or prefix)."""

    exit_code = ExitCode.USAGE


class Store:
    """A connection to the store file. Open with `Store.open(path)`; close with `close()`."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self._lock = threading.RLock()
        self.path = path
        self.notice: str | None = None
        """One sentence for the user when the store had to be moved aside, else None."""
        self._host = socket.gethostname()
        self._temporary: Path | None = None

    # -- opening -------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | None = None) -> Store:
        """Open (creating if needed) the store at `path`, default `paths.store_file()`."""
        path = path or paths.store_file()
        try:
            make_private_dir(path.parent)
        except OSError as error:
            raise StoreError(f"Cannot create the folder for the conversation store "
                             f"{path.parent}: {os_error_reason(error)}; "
                             f"{os_error_advice(error)}.") from None
        try:
            store = cls(connect(path), path)
        except Unusable as problem:
            store = cls(connect(path), path)
            where = (f"it was moved to {problem.moved}" if problem.moved else
                     "another tui-chat process moved it aside")
            store.notice = (f"The conversation store {path} could not be read ({problem}); "
                            f"{where} and a new, empty one was started.")
        store.recover_interrupted()
        return store

    @classmethod
    def open_temporary(cls, reason: str) -> Store:
        """A store in a new temporary folder, deleted on close, for a session whose real store
        cannot be used (`reason` says why); `notice` tells the user nothing will be kept."""
        folder = Path(tempfile.mkdtemp(prefix="tui-chat-"))
        path = folder / "conversations.sqlite3"
        store = cls(connect(path), path)
        store._temporary = folder
        store.notice = (f"{reason} Until then tui-chat runs on a temporary store: what you "
                        "write in this session will not be saved.")
        return store

    def close(self) -> None:
        with self._lock:
            self._conn.close()
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taking the write lock at once (no upgrade deadlocks)."""
        with self._lock, translate_errors(self.path):
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock, translate_errors(self.path):
            yield self._conn

    # -- conversations -------------------------------------------------------------------

    def create_conversation(self, conversation: Conversation) -> Conversation:
        """Insert `conversation` (its id must be new) and return it."""
        with self._write() as conn:
            conn.execute(f"INSERT INTO conversations ({CONVERSATION_COLUMNS}) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?)", conversation_row(conversation))
        return conversation

    def get_conversation(self, conversation_id: str) -> Conversation:
        """The conversation with exactly this id; NotFoundError otherwise."""
        with self._read() as conn:
            row = conn.execute(f"SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE id = ?",
                               (conversation_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"No conversation with id {conversation_id}; "
                                "list them with: tui-chat history.")
        return conversation_from(row)

    def resolve_id(self, prefix: str) -> str:
        """The full id of the one conversation whose id starts with `prefix`.

        Raises NotFoundError when none or several match (the sentence says which)."""
        prefix = prefix.strip()
        if not prefix:
            raise NotFoundError("No conversation id given; list them with: tui-chat history.")
        with self._read() as conn:
            rows = conn.execute("SELECT id FROM conversations WHERE id >= ? AND id < ? "
                                "ORDER BY id LIMIT 6", (prefix, prefix + "\U0010ffff")
                                ).fetchall()
        if any(row["id"] == prefix for row in rows):
            return prefix
        if not rows:
            raise NotFoundError(f"No conversation id starts with {one_line(prefix, 40)}; "
                                "list them with: tui-chat history.")
        if len(rows) > 1:
            shown = ", ".join(row["id"][:12] for row in rows[:5])
            count = len(rows) if len(rows) < 6 else "Several"
            raise NotFoundError(f"{count} conversations start with {one_line(prefix, 40)} "
                                f"({shown}); give more characters.")
        return str(rows[0]["id"])

    def list_conversations(self, limit: int = 100, offset: int = 0) -> list[ConversationSummary]:
        """Summaries, most recently updated first, without message bodies."""
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {CONVERSATION_COLUMNS}, (SELECT count(*) FROM messages m "
                "WHERE m.conversation_id = c.id) AS message_count FROM conversations c "
                "ORDER BY updated DESC LIMIT ? OFFSET ?", (limit, offset)).fetchall()
        return [summary_from(row) for row in rows]

    def count_conversations(self) -> int:
        with self._read() as conn:
            return int(conn.execute("SELECT count(*) FROM conversations").fetchone()[0])

    def latest_conversation(self) -> Conversation | None:
        """The most recently updated conversation, or None in an empty store."""
        with self._read() as conn:
            row = conn.execute(f"SELECT {CONVERSATION_COLUMNS} FROM conversations "
                               "ORDER BY updated DESC LIMIT 1").fetchone()
        return conversation_from(row) if row else None

    def rename_conversation(self, conversation_id: str, title: str) -> Conversation:
        """Set the title (made one line, trimmed); returns the updated conversation."""
        clean = one_line(title, 200)
        if not clean:
            raise StoreError("The new title is empty: give a title with some text.")
        with self._write() as conn:
            cursor = conn.execute("UPDATE conversations SET title = ? WHERE id = ?",
                                  (clean, conversation_id))
        if cursor.rowcount == 0:
            raise NotFoundError(f"No conversation with id {conversation_id}.")
        return self.get_conversation(conversation_id)

    def update_conversation(self, conversation: Conversation) -> None:
        """Save every field of `conversation` (title, model and provider last used, system
        prompt, parameters, flags, updated)."""
        row = conversation_row(conversation)
        with self._write() as conn:
            cursor = conn.execute(
                "UPDATE conversations SET title=?, created=?, updated=?, provider=?, model=?, "
                "system_prompt=?, parameters=?, pinned=?, archived=? WHERE id=?",
                (*row[1:], row[0]))
        if cursor.rowcount == 0:
            raise NotFoundError(f"No conversation with id {conversation.id}.")

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete the conversation and all its messages."""
        with self._write() as conn:
            conn.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,))
            cursor = conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
        if cursor.rowcount == 0:
            raise NotFoundError(f"No conversation with id {conversation_id}.")

    # -- messages ------------------------------------------------------------------------

    def add_message(self, message: Message) -> Message:
        """Append `message` to its conversation and mark the conversation updated (and, for an
        assistant message, remember its provider and model as the ones last used)."""
        with self._write() as conn:
            conn.execute(
                f"INSERT INTO messages ({MESSAGE_COLUMNS}, writer_pid, writer_host, heartbeat) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (*message_row(message), *self._lease(message)))
            conn.execute(
                "UPDATE conversations SET updated = ?, provider = coalesce(?, provider), "
                "model = coalesce(?, model) WHERE id = ?",
                (to_text(utc_now()), message.provider, message.model,
                 message.conversation_id))
        return message

    def update_message(self, message: Message) -> None:
        """Save the message's mutable fields: one UPDATE by id, whose cost does not depend on
        the conversation's length (a streaming reply is not indexed for search until done)."""
        row = message_row(message)
        with self._write() as conn:
            cursor = conn.execute(
                "UPDATE messages SET content=?, reasoning=?, provider=?, model=?, status=?, "
                "error=?, finish_reason=?, usage=?, time_to_first_token=?, "
                "tokens_per_second=?, writer_pid=?, writer_host=?, heartbeat=? WHERE id=?",
                (*row[3:13], *self._lease(message), message.id))
        if cursor.rowcount == 0:
            raise NotFoundError(f"No message with id {message.id}.")

    def _lease(self, message: Message) -> tuple[int | None, str | None, float | None]:
        if message.status != MessageStatus.STREAMING:
            return None, None, None
        return os.getpid(), self._host, time.time()

    def get_message(self, message_id: str) -> Message:
        with self._read() as conn:
            row = conn.execute(f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?",
                               (message_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"No message with id {message_id}.")
        return message_from(row)

    def get_messages(self, conversation_id: str, *, limit: int | None = None,
                     before_id: str | None = None) -> list[Message]:
        """Messages in order, oldest first. With `limit`, the last `limit` of them; with
        `before_id`, only those before that message (page upwards from the bottom)."""
        where, params = "conversation_id = ?", [conversation_id]
        if before_id is not None:
            where += " AND seq < (SELECT seq FROM messages WHERE id = ?)"
            params.append(before_id)
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE {where} ORDER BY seq DESC "
                "LIMIT ?", (*params, -1 if limit is None else limit)).fetchall()
        return [message_from(row) for row in reversed(rows)]

    def count_messages(self, conversation_id: str) -> int:
        with self._read() as conn:
            return int(conn.execute("SELECT count(*) FROM messages WHERE conversation_id = ?",
                                    (conversation_id,)).fetchone()[0])

    def delete_messages_from(self, conversation_id: str, message_id: str) -> list[str]:
        """Delete `message_id` and every later message of the conversation (regenerate, edit
        and resend); returns the ids deleted, oldest first."""
        with self._write() as conn:
            row = conn.execute("SELECT seq FROM messages WHERE id = ? AND conversation_id = ?",
                               (message_id, conversation_id)).fetchone()
            if row is None:
                raise NotFoundError(f"No message with id {message_id} in that conversation.")
            ids = [r["id"] for r in conn.execute(
                "SELECT id FROM messages WHERE conversation_id = ? AND seq >= ? ORDER BY seq",
                (conversation_id, row["seq"]))]
            conn.execute("DELETE FROM messages WHERE conversation_id = ? AND seq >= ?",
                         (conversation_id, row["seq"]))
        return ids

    # -- search, recovery, import -------------------------------------------------------

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Messages containing every word of `query` (any script; substrings match), newest
        first, each with a plain-text snippet and the match spans in it."""
        with self._read() as conn:
            return store_search.run(conn, query, limit)

    def recover_interrupted(self) -> int:
        """Mark streaming messages whose writer is gone as interrupted; returns how many.
        Takes the write lock only when there is something to mark."""
        with self._read() as conn:
            rows = conn.execute("SELECT seq, writer_pid, writer_host, heartbeat FROM messages "
                                "WHERE status = 'streaming'").fetchall()
        stale = [row["seq"] for row in rows if self._is_stale(row)]
        if not stale:
            return 0
        with self._write() as conn:
            conn.executemany(
                "UPDATE messages SET status = 'interrupted', error = coalesce(error, ?), "
                "writer_pid = NULL, writer_host = NULL, heartbeat = NULL "
                "WHERE seq = ? AND status = 'streaming'",
                [(INTERRUPTED_NOTE, seq) for seq in stale])
        return len(stale)

    def _is_stale(self, row: sqlite3.Row) -> bool:
        heartbeat, pid = row["heartbeat"], row["writer_pid"]
        if heartbeat is None or pid is None or time.time() - heartbeat > LEASE_SECONDS:
            return True
        return bool(row["writer_host"] == self._host and not _pid_alive(int(pid)))

    def import_conversation(self, conversation: Conversation,
                            messages: list[Message]) -> tuple[bool, int]:
        """Insert a conversation and its messages unless already present (by id): returns
        (conversation was new, number of messages added). Importing twice adds nothing."""
        with self._write() as conn:
            created = conn.execute(
                f"INSERT OR IGNORE INTO conversations ({CONVERSATION_COLUMNS}) "
                "VALUES (?,?,?,?,?,?,?,?,?,?)", conversation_row(conversation)).rowcount
            added = 0
            for message in messages:
                if message.status == MessageStatus.STREAMING:
                    message = message.model_copy(update={"status": MessageStatus.INTERRUPTED})
                added += conn.execute(
                    f"INSERT OR IGNORE INTO messages ({MESSAGE_COLUMNS}) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", message_row(message)).rowcount
        return bool(created), added


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
