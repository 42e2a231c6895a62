"""Importing conversations into the store: one transaction per conversation, idempotent by id.

A conversation whose id is new is inserted with its settings and fork origin; one already in
the store keeps what it has and gains the messages it lacks. A message whose id another
conversation uses is kept under a new id (`renamed`), and the tree's links follow it (its
children's parent, its parent's active choice, the conversation's context start). The new id
is derived from the conversation's id and the old one (`derived_id`), so importing the same
file again finds it there and adds nothing. Only if every derived id is taken too (a file made
to collide) is the message skipped (`taken`), with the messages below it (`orphaned`). A
streaming message becomes interrupted: nobody is writing it here.

Imported dates never lie in the future: a conversation or message dated after the import is
dated at the import, so a file cannot make its conversation the "most recent" one that
`ask -c` continues and the list shows first, for ever.

Two shapes of input: a list in conversation order (format version 1, and callers without tree
data), whose messages form one path, each under the one before it that is in this
conversation; or a tree (format version 2) with every parent and the active choices, which a
new conversation gets exactly. A branch point whose active choice is missing or skipped takes
its newest child (and a conversation without an active root its newest root), so that the
store's invariants (store_tree) always hold.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Mapping, Sequence
from datetime import datetime

from msgspec import Struct, field

from tui_chat.core import store_attachments, store_tree
from tui_chat.core.models import Attachment, Conversation, Message, MessageStatus, utc_now
from tui_chat.core.store_schema import (
    CONVERSATION_WRITTEN,
    MESSAGE_WRITTEN,
    conversation_row,
    insert_sql,
    message_row,
    to_text,
)

_INSERT_CONVERSATION = insert_sql("conversations", CONVERSATION_WRITTEN, verb="INSERT OR IGNORE")
_INSERT_MESSAGE = insert_sql("messages", MESSAGE_WRITTEN, verb="INSERT OR IGNORE")


class ImportOutcome(Struct, frozen=True):
    """What `Store.import_conversation` and `Store.import_tree` did."""

    created: bool
    added: int
    present: int
    taken: tuple[str, ...]
    """Ids of messages skipped because another conversation uses them."""
    orphaned: tuple[str, ...] = field(default=())
    """Ids of messages skipped because a message above them was."""
    renamed: tuple[str, ...] = field(default=())
    """Ids of messages added under a new id because another conversation uses theirs."""


class ActiveChoices(Struct, frozen=True):
    """The active root and the active child of each branch point, as a file gave them."""

    root: str | None
    children: Mapping[str, str]


def import_messages(conn: sqlite3.Connection, conversation: Conversation,
                    messages: Sequence[Message], choices: ActiveChoices | None,
                    contents: Mapping[str, Sequence[Attachment]] | None = None
                    ) -> ImportOutcome:
    """Import into an open write transaction; `choices` None: `messages` form one path.
    `contents`: message id -> its attachments, with their content."""
    now = utc_now()
    conversation = conversation.model_copy(update={
        "created": _not_after(conversation.created, now),
        "updated": _not_after(conversation.updated, now)})
    created = bool(conn.execute(_INSERT_CONVERSATION, conversation_row(conversation)).rowcount)
    cid = conversation.id
    store_tree.linked_pointers(conn, cid)  # a conversation of an older tui-chat: one path
    added = present = 0
    taken: list[str] = []
    orphaned: list[str] = []
    renamed: list[str] = []
    skipped: set[str] = set()
    stored_as: dict[str, str] = {}  # the file's id -> the id in the store, where they differ
    inserted: list[tuple[str, str | None]] = []
    previous: str | None = None
    for message in messages:
        parent = previous if choices is None else message.parent_id
        if parent is not None and parent in skipped:
            skipped.add(message.id)
            orphaned.append(message.id)
            continue
        parent = stored_as.get(parent, parent) if parent is not None else None
        message = message.model_copy(update={"created": _not_after(message.created, now)})
        placed, stored_id = _place(conn, cid, message, parent)
        if placed is None:
            skipped.add(message.id)
            taken.append(message.id)
            continue
        if stored_id != message.id:
            stored_as[message.id] = stored_id
        if placed:
            store_attachments.save(conn, stored_id, (contents or {}).get(message.id, ()))
            added += 1
            inserted.append((stored_id, parent))
            if stored_id != message.id:
                renamed.append(message.id)
        else:
            present += 1
        previous = stored_id
    if created and choices is not None:
        # a choice the file left out: the newest, by the repair
        _apply(conn, cid, _followed(choices, stored_as))
    else:
        _link(conn, cid, inserted)
    repair_pointers(conn, cid)
    if created and conversation.context_from is not None:  # only a message imported with it
        # Set now: the replies in the file do not count it in their usage.
        conn.execute("UPDATE conversations SET context_from = ?1, context_from_set = ?3 "
                     "WHERE id = ?2 AND EXISTS (SELECT 1 FROM messages WHERE id = ?1 AND "
                     "conversation_id = ?2)",
                     (stored_as.get(conversation.context_from, conversation.context_from),
                      cid, to_text(now)))
    return ImportOutcome(created, added, present, tuple(taken), tuple(orphaned),
                         tuple(renamed))


_TRIES = 8
"""Derived ids tried for a message whose id another conversation uses, before it is skipped."""


def derived_id(conversation_id: str, message_id: str, attempt: int) -> str:
    """A new id for message `message_id` of an imported conversation whose id another
    conversation uses: 32 hex digits, as `new_id`, but the same on every import of the file."""
    digest = hashlib.sha256(f"{conversation_id}/{message_id}/{attempt}".encode())
    return digest.hexdigest()[:32]


def _place(conn: sqlite3.Connection, cid: str, message: Message, parent: str | None
           ) -> tuple[bool | None, str]:
    """Insert `message` under its id or, when another conversation uses that, a derived one:
    (True: inserted, False: already in this conversation, None: no id could be had; the id
    it has in the store)."""
    candidate = message
    for attempt in range(_TRIES + 1):
        if _insert(conn, candidate, parent):
            return True, candidate.id
        if _owner(conn, candidate.id) == cid:
            return False, candidate.id
        candidate = message.model_copy(update={"id": derived_id(cid, message.id, attempt)})
    return None, message.id


def _followed(choices: ActiveChoices, stored_as: Mapping[str, str]) -> ActiveChoices:
    """The file's active choices with the ids the store gave its renamed messages."""
    if not stored_as:
        return choices
    root = stored_as.get(choices.root, choices.root) if choices.root is not None else None
    return ActiveChoices(root, {stored_as.get(parent, parent): stored_as.get(child, child)
                                for parent, child in choices.children.items()})


def _not_after(moment: datetime, now: datetime) -> datetime:
    return moment if moment <= now else now


def _insert(conn: sqlite3.Connection, message: Message, parent: str | None) -> bool:
    if message.status == MessageStatus.STREAMING:
        message = message.model_copy(update={"status": MessageStatus.INTERRUPTED})
    return bool(conn.execute(_INSERT_MESSAGE,
                             {**message_row(message), "parent_id": parent}).rowcount)


def _owner(conn: sqlite3.Connection, message_id: str) -> str | None:
    row = conn.execute("SELECT conversation_id FROM messages WHERE id = ?",
                       (message_id,)).fetchone()
    return str(row[0]) if row else None


def _apply(conn: sqlite3.Connection, cid: str, choices: ActiveChoices) -> None:
    conn.executemany("UPDATE messages SET active_child_id = ? WHERE id = ? AND "
                     "conversation_id = ?",
                     [(child, parent, cid) for parent, child in choices.children.items()])
    conn.execute("UPDATE conversations SET active_root_id = ? WHERE id = ?",
                 (choices.root, cid))


def _link(conn: sqlite3.Connection, cid: str, inserted: list[tuple[str, str | None]]) -> None:
    """A new message becomes the active child of a parent that had none (the end of a path
    grows; an existing branch point keeps its choice)."""
    for message_id, parent in inserted:
        if parent is None:
            conn.execute("UPDATE conversations SET active_root_id = ? WHERE id = ? AND "
                         "active_root_id IS NULL", (message_id, cid))
        else:
            conn.execute("UPDATE messages SET active_child_id = ? WHERE id = ? AND "
                         "active_child_id IS NULL", (message_id, parent))


def repair_pointers(conn: sqlite3.Connection, cid: str) -> None:
    """Make every active choice of the conversation one of the real children (the newest when
    it is not), and the leaf where the active path ends."""
    conn.execute(
        "UPDATE messages SET active_child_id = (SELECT c.id FROM messages c WHERE "
        "c.conversation_id = ?1 AND c.parent_id = messages.id ORDER BY c.seq DESC LIMIT 1) "
        "WHERE conversation_id = ?1 AND (active_child_id IS NOT NULL OR EXISTS (SELECT 1 FROM "
        "messages c WHERE c.conversation_id = ?1 AND c.parent_id = messages.id)) AND NOT EXISTS "
        "(SELECT 1 FROM messages c WHERE c.conversation_id = ?1 AND "
        "c.id = messages.active_child_id AND c.parent_id = messages.id)", (cid,))
    roots = store_tree.children(conn, cid, None)
    row = conn.execute("SELECT active_root_id FROM conversations WHERE id = ?",
                       (cid,)).fetchone()
    root = row["active_root_id"] if row and row["active_root_id"] in roots else (
        roots[-1] if roots else None)
    leaf = store_tree.leaf_below(conn, root) if root is not None else None
    conn.execute("UPDATE conversations SET active_root_id = ?, active_leaf_id = ? WHERE id = ?",
                 (root, leaf, cid))
