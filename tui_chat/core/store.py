"""The conversation store: one SQLite file (WAL, busy timeout, versioned schema, FTS5 search).

Usage::

    store = Store.open(paths.store_file())     # or Store.open() for the default path
    if store.notice: tell_the_user(store.notice)
    store.create_conversation(conversation)
    store.add_message(message); store.update_message(message)   # a streaming flush
    store.list_conversations(limit=100)  ->  list[ConversationSummary], newest first
    store.message_counts(ids)  ->  {id: messages}  # for a list read with counted=False
    store.get_messages(conversation_id, limit=50, before_id=oldest_shown_id)  # active path
    store.search("नमस्ते")  ->  list[SearchHit]     # every branch

Conversations are trees (see models.py and store_tree.py): `add_message` appends to the active
path unless the message names its parent; `siblings`, `activate`, `switch_sibling`,
`delete_subtree`, `get_tree` and `fork` work on branches. Nothing is deleted but by
`delete_conversation` and `delete_subtree`.

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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from tui_chat.core import (
    paths,
    secrets,
    store_attachments,
    store_import,
    store_search,
    store_tree,
)
from tui_chat.core.errors import StoreError
from tui_chat.core.files import make_private_dir, os_error_advice, os_error_reason
from tui_chat.core.models import (
    Attachment,
    Conversation,
    ConversationSummary,
    ConversationTree,
    Message,
    MessageStatus,
    Parameters,
    Role,
    SearchHit,
    utc_now,
)
from tui_chat.core.store_attachments import AttachmentQueries
from tui_chat.core.store_branches import Branches
from tui_chat.core.store_branches import NotFoundError as NotFoundError  # part of the API
from tui_chat.core.store_file import Unusable, connect, translate_errors
from tui_chat.core.store_import import ActiveChoices, ImportOutcome
from tui_chat.core.store_schema import (
    CONVERSATION_COLUMNS,
    CONVERSATION_READ,
    CONVERSATION_WRITTEN,
    MESSAGE_CHANGING,
    MESSAGE_SELECT,
    MESSAGE_WRITTEN,
    conversation_from,
    conversation_row,
    insert_sql,
    message_from,
    message_row,
    summary_from,
    to_text,
    update_sql,
)
from tui_chat.core.store_usage import UsageQueries
from tui_chat.core.text import one_line, without_lone_surrogates

LEASE_SECONDS = 3600.0
LEASE = ("writer_pid", "writer_host", "heartbeat")
_INSERT_CONVERSATION = insert_sql("conversations", CONVERSATION_WRITTEN)
_UPDATE_CONVERSATION = update_sql("conversations", CONVERSATION_WRITTEN[1:])
_INSERT_MESSAGE = insert_sql("messages", (*MESSAGE_WRITTEN, *LEASE))
_UPDATE_MESSAGE = update_sql("messages", (*MESSAGE_CHANGING, *LEASE))
INTERRUPTED_NOTE = "The reply was cut off when tui-chat stopped; the text received so far is kept."


class ConversationGoneError(NotFoundError):
    """The conversation being written was deleted meanwhile (another tui-chat, `tui-chat rm`).
    Front-ends start a new conversation for the next message."""

    def __init__(self, conversation_id: str) -> None:
        super().__init__("This conversation was deleted outside this window (by another "
                         "tui-chat or tui-chat rm) while it was open, so nothing more can be "
                         "saved in it.")
        self.conversation_id = conversation_id


class Store(Branches, UsageQueries, AttachmentQueries):
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
    def open(cls, path: Path | None = None, *, keys: Iterable[str | None] = ()) -> Store:
        """Open (creating if needed) the store at `path`, default `paths.store_file()`.
        `keys`: the API keys configured (they are scrubbed from an old store's texts by the
        migration to schema 6, which `notice` then reports)."""
        path = path or paths.store_file()
        for key in keys:
            secrets.remember(key)
        try:
            make_private_dir(path.parent)
        except OSError as error:
            raise StoreError(f"Cannot create the folder for the conversation store "
                             f"{path.parent}: {os_error_reason(error)}; "
                             f"{os_error_advice(error)}.") from None
        try:
            conn, notices = connect(path)
            store = cls(conn, path)
            store.notice = " ".join(notices) or None
        except Unusable as problem:
            store = cls(connect(path)[0], path)
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
        store = cls(connect(path)[0], path)
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
            conn.execute(_INSERT_CONVERSATION, conversation_row(conversation))
        return conversation

    def get_conversation(self, conversation_id: str) -> Conversation:
        """The conversation with exactly this id; NotFoundError otherwise."""
        with self._read() as conn:
            row = conn.execute(f"SELECT {CONVERSATION_READ} FROM conversations WHERE id = ?",
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

    def list_conversations(self, limit: int = 100, offset: int = 0, *,
                           counted: bool = True) -> list[ConversationSummary]:
        """Summaries, most recently updated first, without message bodies. Without `counted`
        their `message_count` is None: counting is one index seek per conversation, most of
        the cost of a long list; a list that draws few of its rows counts those
        (`message_counts`)."""
        count = ("(SELECT count(*) FROM messages m WHERE m.conversation_id = c.id)"
                 if counted else "NULL")
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {CONVERSATION_COLUMNS}, {count} AS message_count FROM conversations c "
                "ORDER BY updated DESC LIMIT ? OFFSET ?", (limit, offset)).fetchall()
        return [summary_from(row) for row in rows]

    def message_counts(self, conversation_ids: Sequence[str]) -> dict[str, int]:
        """`count_messages` of each of `conversation_ids` (every branch), in one grouped
        query per batch; an id without messages (or unknown) counts 0."""
        counts = dict.fromkeys(conversation_ids, 0)
        with self._read() as conn:
            counts.update(store_tree.message_counts(conn, list(counts)))
        return counts

    def count_conversations(self) -> int:
        with self._read() as conn:
            return int(conn.execute("SELECT count(*) FROM conversations").fetchone()[0])

    def latest_conversation(self) -> Conversation | None:
        """The most recently updated conversation, or None in an empty store."""
        with self._read() as conn:
            row = conn.execute(f"SELECT {CONVERSATION_READ} FROM conversations "
                               "ORDER BY updated DESC LIMIT 1").fetchone()
        return conversation_from(row) if row else None

    def rename_conversation(self, conversation_id: str, title: str) -> Conversation:
        """Set the title (made one line, trimmed); returns the updated conversation."""
        clean = one_line(without_lone_surrogates(title), 200)
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
        prompt, parameters, flags, updated, fork origin)."""
        with self._write() as conn:
            cursor = conn.execute(_UPDATE_CONVERSATION, conversation_row(conversation))
        if cursor.rowcount == 0:
            raise ConversationGoneError(conversation.id)

    def set_system_prompt(self, conversation_id: str, text: str | None) -> None:
        """The conversation's own system prompt (None or blank: none), for its next requests."""
        self._set_setting(conversation_id, "system_prompt", text if text and text.strip()
                          else None)

    def set_parameters(self, conversation_id: str, parameters: Parameters) -> None:
        """The conversation's own sampling parameters, for its next requests."""
        self._set_setting(conversation_id, "parameters",
                          parameters.model_dump_json(exclude_none=True))

    def set_context_from(self, conversation_id: str, message_id: str | None) -> None:
        """The first message of the active path sent as context (None: all of it), changed
        now."""
        with self._write() as conn:
            cursor = conn.execute("UPDATE conversations SET context_from = ?, "
                                  "context_from_set = ? WHERE id = ?",
                                  (message_id, to_text(utc_now()), conversation_id))
        if cursor.rowcount == 0:
            raise ConversationGoneError(conversation_id)

    def _set_setting(self, conversation_id: str, column: str, value: object) -> None:
        # One column: a title renamed meanwhile by another tui-chat is not written back.
        with self._write() as conn:
            cursor = conn.execute(f"UPDATE conversations SET {column} = ? WHERE id = ?",
                                  (value, conversation_id))
        if cursor.rowcount == 0:
            raise ConversationGoneError(conversation_id)

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete the conversation and all its messages."""
        with self._write() as conn:
            conn.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,))
            cursor = conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
        if cursor.rowcount == 0:
            raise NotFoundError(f"No conversation with id {conversation_id}.")

    # -- messages ------------------------------------------------------------------------

    def add_message(self, message: Message, *, activate: bool = True,
                    as_root: bool = False, attachments: Sequence[Attachment] = ()) -> Message:
        """Add `message` under `message.parent_id`; when that is None, at the end of the active
        path (`as_root`: as a new root, the sibling of the first message). Fills in
        `message.parent_id`. With `activate` the message becomes part of the active path (a
        parent's first child always does). Marks the conversation updated (and, for an
        assistant message, remembers its provider and model as the ones last used).
        `attachments`: the files attached to it, with their content (`message.attachments`
        becomes their list)."""
        with self._write() as conn:
            self._add(conn, message, activate=activate, as_root=as_root)
            self._attach(conn, message, attachments)
        return message

    def _attach(self, conn: sqlite3.Connection, message: Message,
                attachments: Sequence[Attachment]) -> None:
        if attachments:
            store_attachments.save(conn, message.id, attachments)
            message.attachments = [a.info() for a in attachments]

    def attach(self, message: Message, attachments: Sequence[Attachment]) -> None:
        """Keep `attachments` with `message`, already stored (a tool's images, which come
        with its result); `message.attachments` becomes their list."""
        with self._write() as conn:
            self._attach(conn, message, attachments)

    def add_exchange(self, prompt: Message, reply: Message,
                     attachments: Sequence[Attachment] = ()) -> None:
        """`prompt` at the end of the active path and `reply` under it, in one transaction: a
        message another tui-chat appends meanwhile comes after both, not between them (which
        would make the reply a branch of its own)."""
        with self._write() as conn:
            self._add(conn, prompt, activate=True, as_root=False)
            self._attach(conn, prompt, attachments)
            reply.parent_id = prompt.id
            self._add(conn, reply, activate=True, as_root=False)

    def _add(self, conn: sqlite3.Connection, message: Message, *, activate: bool,
             as_root: bool) -> None:
        cid = message.conversation_id
        current = self._pointers_in(conn, cid)
        parent = message.parent_id
        if parent is None and not as_root:
            parent = current.active_leaf
        if parent is not None and conn.execute(
                "SELECT 1 FROM messages WHERE id = ? AND conversation_id = ?",
                (parent, cid)).fetchone() is None:
            raise NotFoundError(f"No message with id {parent} in that conversation.")
        message.parent_id = parent
        conn.execute(_INSERT_MESSAGE, {**message_row(message), **self._lease(message)})
        self._link_new(conn, message, current, activate)
        conn.execute(
            "UPDATE conversations SET updated = ?, provider = coalesce(?, provider), "
            "model = coalesce(?, model) WHERE id = ?",
            (to_text(utc_now()), message.provider, message.model, cid))

    def _link_new(self, conn: sqlite3.Connection, message: Message,
                  current: store_tree.Pointers, activate: bool) -> None:
        parent, cid = message.parent_id, message.conversation_id
        if message.role is Role.SYSTEM and parent is not None:
            return  # a summary (core.summaries) is on no path, even under the path's end
        if parent is None:
            conn.execute("UPDATE conversations SET active_root_id = ? WHERE id = ? AND "
                         "(? OR active_root_id IS NULL)", (message.id, cid, activate))
        else:
            conn.execute("UPDATE messages SET active_child_id = ? WHERE id = ? AND "
                         "(? OR active_child_id IS NULL)", (message.id, parent, activate))
        if parent == current.active_leaf:  # appended (or the first message): the new end
            conn.execute("UPDATE conversations SET active_leaf_id = ? WHERE id = ?",
                         (message.id, cid))
        elif activate and parent is not None and store_tree.near_the_end(
                conn, cid, current.active_leaf, parent):
            # The parent is on the active path: the path now ends at the new message.
            conn.execute("UPDATE conversations SET active_leaf_id = ? WHERE id = ?",
                         (message.id, cid))
        elif activate:
            store_tree.activate(conn, cid, message.id)

    def _pointers_in(self, conn: sqlite3.Connection, cid: str) -> store_tree.Pointers:
        current = store_tree.linked_pointers(conn, cid)
        if current is None:
            raise ConversationGoneError(cid)
        return current

    def update_message(self, message: Message) -> None:
        """Save the message's mutable fields: one UPDATE by id, whose cost does not depend on
        the conversation's length (a streaming reply is not indexed for search until done).
        Its place in the tree does not change."""
        with self._write() as conn:
            cursor = conn.execute(_UPDATE_MESSAGE,
                                  {**message_row(message), **self._lease(message)})
        if cursor.rowcount == 0:
            with self._read() as conn:
                gone = conn.execute("SELECT 1 FROM conversations WHERE id = ?",
                                    (message.conversation_id,)).fetchone() is None
            if gone:
                raise ConversationGoneError(message.conversation_id)
            raise NotFoundError(f"No message with id {message.id}.")

    def _lease(self, message: Message) -> dict[str, object]:
        """The LEASE columns: who writes a streaming message, and when it last did."""
        if message.status != MessageStatus.STREAMING:
            return dict.fromkeys(LEASE)
        return {"writer_pid": os.getpid(), "writer_host": self._host, "heartbeat": time.time()}

    def get_message(self, message_id: str) -> Message:
        with self._read() as conn:
            row = conn.execute(f"SELECT {MESSAGE_SELECT} FROM messages WHERE id = ?",
                               (message_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"No message with id {message_id}.")
        return message_from(row)

    def get_messages(self, conversation_id: str, *, limit: int | None = None,
                     before_id: str | None = None) -> list[Message]:
        """The active path, oldest first. With `limit`, its last `limit` messages; with
        `before_id`, only those above that message (page upwards from the bottom). The cost
        follows the page, not the size of the conversation."""
        with self._read() as conn:
            current = store_tree.pointers(conn, conversation_id)
        if current is not None and current.unlinked:
            with self._write() as conn:
                current = store_tree.linked_pointers(conn, conversation_id)
        if current is None or current.active_leaf is None:
            return []
        end: str | None = current.active_leaf
        with self._read() as conn:
            if before_id is not None:
                row = conn.execute("SELECT parent_id FROM messages WHERE id = ? AND "
                                   "conversation_id = ?", (before_id, conversation_id)
                                   ).fetchone()
                end = row["parent_id"] if row else None
            if end is None:
                return []
            rows = store_tree.path_rows(conn, conversation_id, end, limit)
        return [message_from(row) for row in rows]

    def count_messages(self, conversation_id: str) -> int:
        """Every message of the conversation, on every branch."""
        with self._read() as conn:
            return int(conn.execute("SELECT count(*) FROM messages WHERE conversation_id = ?",
                                    (conversation_id,)).fetchone()[0])

    # -- search, recovery, import -------------------------------------------------------

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Messages containing every word of `query` (any script; substrings match), newest
        first, each with a plain-text snippet and the match spans in it."""
        with self._read() as conn:
            return store_search.run(conn, query, limit)

    def search_conversations(self, query: str, limit: int = 50,
                             count_limit: int = store_search.COUNT_LIMIT
                             ) -> store_search.ConversationMatches:
        """The conversations holding a message that matches `query` (counted, not its hits;
        `count_limit` at most, the count then marked incomplete), with the newest matching
        message of each of the newest `limit` of them."""
        with self._read() as conn:
            return store_search.run_by_conversation(conn, query, limit, count_limit)

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

    def import_conversation(self, conversation: Conversation, messages: list[Message],
                            contents: Mapping[str, Sequence[Attachment]] | None = None
                            ) -> ImportOutcome:
        """Import a conversation whose messages, in order, form one path (format version 1),
        in one transaction; importing twice adds nothing (see store_import)."""
        with self._write() as conn:
            return store_import.import_messages(conn, conversation, messages, None, contents)

    def import_tree(self, tree: ConversationTree,
                    contents: Mapping[str, Sequence[Attachment]] | None = None
                    ) -> ImportOutcome:
        """Import a conversation with its tree and active choices (format version 2), in one
        transaction; a new conversation gets them exactly (see store_import). `contents`:
        message id -> its attachments, with their content."""
        with self._write() as conn:
            return store_import.import_messages(
                conn, tree.conversation, tree.messages,
                ActiveChoices(tree.active_root, tree.active_child), contents)


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
