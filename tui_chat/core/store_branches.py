"""The store's operations on branches: the tree of a conversation, siblings, switching and
activating paths, deleting a subtree, forks. A part of `Store` (its base class), kept apart
so that each file says one thing; the SQL is in store_tree.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from tui_chat.core import store_import, store_tree
from tui_chat.core.errors import ExitCode, StoreError
from tui_chat.core.models import (
    ActivePathChanged,
    Attachment,
    Conversation,
    ConversationTree,
    Message,
    MessageStatus,
    Siblings,
    new_id,
    utc_now,
)
from tui_chat.core.store_schema import MESSAGE_SELECT, message_from
from tui_chat.core.text import one_line


class NotFoundError(StoreError):
    """No conversation or message with that id (or prefix)."""

    exit_code = ExitCode.USAGE


class Branches:
    """Branch operations; `Store` provides the connection and the look-ups below."""

    if TYPE_CHECKING:
        def _read(self) -> contextlib.AbstractContextManager[sqlite3.Connection]: ...
        def _write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]: ...
        def _pointers_in(self, conn: sqlite3.Connection, cid: str
                         ) -> store_tree.Pointers: ...
        def get_message(self, message_id: str) -> Message: ...
        def get_conversation(self, conversation_id: str) -> Conversation: ...
        def get_messages(self, conversation_id: str, *, limit: int | None = None,
                         before_id: str | None = None) -> list[Message]: ...
        def attachments_of(self, message_ids: Iterable[str]
                           ) -> dict[str, list[Attachment]]: ...

    def path_to(self, message_id: str) -> list[Message]:
        """The messages from the root down to `message_id` (included), on any branch."""
        message = self.get_message(message_id)
        with self._read() as conn:
            rows = store_tree.path_rows(conn, message.conversation_id, message_id)
        return [message_from(row) for row in rows]

    def path_below(self, conversation_id: str, after_id: str | None,
                   known: Mapping[str, Message] | None = None) -> list[Message]:
        """The active path below message `after_id` (None: all of it), oldest first: what a
        view that keeps the messages up to `after_id` shows after an ActivePathChanged. The
        cost follows the part below, not the whole path. `known`: messages the caller holds
        (a branch it showed before), used as they are when the store has them unchanged, so
        that switching back to a long branch reads only its ids."""
        if after_id is None:
            return self.get_messages(conversation_id)
        with self._read() as conn:
            row = conn.execute("SELECT active_child_id FROM messages WHERE id = ? AND "
                               "conversation_id = ?", (after_id, conversation_id)).fetchone()
            start = row["active_child_id"] if row else None
            if start is None:
                return []
            if not known:
                rows = store_tree.active_rows_below(conn, conversation_id, start)
                return [message_from(row) for row in rows]
            states = store_tree.active_states_below(conn, conversation_id, start, len(known))
            reused: dict[str, Message] = {}
            for message_id, status, partial_in_context in states:
                held = known.get(message_id)
                if (held is not None and held.status == status  # a StrEnum: its value
                        and status != MessageStatus.STREAMING
                        and held.partial_in_context == bool(partial_in_context)):
                    reused[message_id] = held
            fetched = store_tree.rows_by_id(
                conn, [state[0] for state in states if state[0] not in reused])
        path: list[Message] = []
        for message_id, _, _ in states:
            message = reused.get(message_id)
            if message is not None:
                path.append(message)
            elif message_id in fetched:  # else deleted meanwhile
                path.append(message_from(fetched[message_id]))
        return path

    def get_tree(self, conversation_id: str) -> ConversationTree:
        """Every message on every branch (creation order) and the active choices."""
        conversation = self.get_conversation(conversation_id)
        with self._write() as conn:
            current = self._pointers_in(conn, conversation_id)
            rows = conn.execute(f"SELECT {MESSAGE_SELECT}, active_child_id FROM messages "
                                "WHERE conversation_id = ? ORDER BY seq",
                                (conversation_id,)).fetchall()
        return ConversationTree(
            conversation, [message_from(row) for row in rows], current.active_root,
            {row["id"]: row["active_child_id"] for row in rows if row["active_child_id"]})

    def children(self, conversation_id: str, parent_id: str | None) -> list[str]:
        """The ids of the messages right below `parent_id` (None: the roots), oldest first."""
        with self._read() as conn:
            return store_tree.children(conn, conversation_id, parent_id)

    def siblings(self, message_id: str) -> Siblings:
        """The alternatives at `message_id`'s branch point, itself included."""
        message = self.get_message(message_id)
        with self._read() as conn:
            ids = store_tree.children(conn, message.conversation_id, message.parent_id)
        return Siblings(tuple(ids), ids.index(message_id) + 1)

    def positions(self, conversation_id: str,
                  message_ids: list[str]) -> dict[str, tuple[int, int]]:
        """(position from 1, number of siblings) of each message: one query for a page."""
        with self._read() as conn:
            return store_tree.positions(conn, conversation_id, message_ids)

    def activate(self, message_id: str) -> ActivePathChanged | None:
        """Make the path to `message_id` the active one (below it, the branches chosen there
        before); None when it already was. For switching branches and for a search hit on
        another branch."""
        message = self.get_message(message_id)
        with self._write() as conn:
            changed, after = store_tree.activate(conn, message.conversation_id, message_id)
        return ActivePathChanged(message.conversation_id, after) if changed else None

    def switch_sibling(self, message_id: str, step: int) -> ActivePathChanged | None:
        """Activate the sibling `step` places after `message_id` (-1: the one before); None
        at either end."""
        message = self.get_message(message_id)
        cid, parent = message.conversation_id, message.parent_id
        with self._read() as conn:
            ids = store_tree.children(conn, cid, parent)
        index = ids.index(message_id) + step
        if step == 0 or not 0 <= index < len(ids):
            return None
        if parent is not None:
            with self._write() as conn:
                current = self._pointers_in(conn, cid)
                if store_tree.near_the_end(conn, cid, current.active_leaf, parent):
                    # The common case (replies at the end): no walk to the root.
                    conn.execute("UPDATE messages SET active_child_id = ? WHERE id = ?",
                                 (ids[index], parent))
                    conn.execute("UPDATE conversations SET active_leaf_id = ? WHERE id = ?",
                                 (store_tree.leaf_below(conn, ids[index]), cid))
                    return ActivePathChanged(cid, parent)
        return self.activate(ids[index])

    def delete_subtree(self, message_id: str) -> tuple[list[str], ActivePathChanged | None]:
        """Delete `message_id` and every message below it (ask the user first). Returns the
        ids deleted (oldest first) and, when the active path went through it, the change:
        the path then goes through the sibling before it, else the one after, else ends at
        its parent."""
        message = self.get_message(message_id)
        cid = message.conversation_id
        with self._write() as conn:
            ids, parent, on_path = store_tree.delete_subtree(conn, cid, message_id)
        return ids, ActivePathChanged(cid, parent) if on_path else None

    def fork(self, message_id: str) -> Conversation:
        """A new conversation holding a copy of the path from the root to `message_id` (new
        ids, same texts and details), with the original's settings, recording where it came
        from."""
        path = self.path_to(message_id)
        source = self.get_conversation(path[-1].conversation_id)
        now = utc_now()
        copy = source.model_copy(update={
            "id": new_id(), "title": one_line(f"{source.title} (fork)", 200), "created": now,
            "updated": now, "pinned": False, "archived": False, "forked_from": source.id,
            "forked_from_message": message_id})
        # A new conversation whose messages, in order, form one path: what an import does
        # (a reply still streaming there is copied as interrupted).
        copies = [m.model_copy(update={"id": new_id(), "conversation_id": copy.id,
                                       "parent_id": None}) for m in path]
        files = self.attachments_of(m.id for m in path if m.attachments)
        contents = {new.id: files[old.id] for old, new in zip(path, copies, strict=True)
                    if old.id in files}
        with self._write() as conn:
            store_import.import_messages(conn, copy, copies, None, contents)
        return copy

