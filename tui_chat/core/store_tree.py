"""The conversation tree in SQL: walks along parent and active-child links, activation,
deletion of a subtree. Every function takes a connection inside the caller's transaction.

Invariants kept by every write: a message with children has `active_child_id` set to one of
them (None without children); a conversation with messages has `active_root_id` set to one of
its roots, and `active_leaf_id` is where the active children lead from there. Paging the
active path walks up from `active_leaf_id` by parent links (an index look-up per message), so
its cost follows the page, not the conversation. Each step of a walk reads the index
`messages_links` alone (INDEXED BY: SQLite's planner prefers the unique index of ids, which
reads every row it passes). Walks are bounded by WALK_LIMIT, so that a damaged file with a
cycle in it cannot hang a query.
"""

from __future__ import annotations

import sqlite3
from itertools import pairwise

from msgspec import Struct

from tui_chat.core.store_schema import MESSAGE_SELECT

WALK_LIMIT = 10_000_000

_PATH_UP = """
WITH RECURSIVE path(seq, parent_id, depth) AS (
    SELECT seq, parent_id, 1 FROM messages WHERE id = ? AND conversation_id = ?
    UNION ALL
    SELECT m.seq, m.parent_id, path.depth + 1 FROM messages m INDEXED BY messages_links
    JOIN path ON m.id = path.parent_id
    WHERE path.depth < ?
)
"""

_DOWN_ACTIVE = """
WITH RECURSIVE down(id, child, depth) AS (
    SELECT id, active_child_id, 0 FROM messages WHERE id = ?
    UNION ALL
    SELECT m.id, m.active_child_id, down.depth + 1 FROM messages m INDEXED BY messages_links
    JOIN down ON m.id = down.child
    WHERE down.depth < ?
)
SELECT id FROM down ORDER BY depth DESC LIMIT 1
"""


class Pointers(Struct, frozen=True):
    active_root: str | None
    active_leaf: str | None
    unlinked: bool = False
    """Messages but no active root: written without tree data (an import in schema 2's
    shape, an older tui-chat still running); `link_in_order` makes them one path."""


def pointers(conn: sqlite3.Connection, conversation_id: str) -> Pointers | None:
    """The conversation's active root and leaf; None when there is no such conversation."""
    row = conn.execute("SELECT active_root_id, active_leaf_id FROM conversations WHERE id = ?",
                       (conversation_id,)).fetchone()
    if row is None:
        return None
    unlinked = row["active_root_id"] is None and _has_messages(conn, conversation_id)
    return Pointers(row["active_root_id"], row["active_leaf_id"], unlinked)


def linked_pointers(conn: sqlite3.Connection, conversation_id: str) -> Pointers | None:
    """`pointers`, linking an unlinked conversation first (inside a write transaction)."""
    found = pointers(conn, conversation_id)
    if found is not None and found.unlinked:
        link_in_order(conn, conversation_id)
        found = pointers(conn, conversation_id)
    return found


def _has_messages(conn: sqlite3.Connection, conversation_id: str) -> bool:
    return conn.execute("SELECT 1 FROM messages WHERE conversation_id = ? LIMIT 1",
                        (conversation_id,)).fetchone() is not None


def link_in_order(conn: sqlite3.Connection, conversation_id: str) -> None:
    """Make the messages of a conversation without tree data one path, in insertion order."""
    ids = [row["id"] for row in conn.execute(
        "SELECT id FROM messages WHERE conversation_id = ? ORDER BY seq", (conversation_id,))]
    conn.executemany("UPDATE messages SET parent_id = ?, active_child_id = ? WHERE id = ?",
                     [(ids[i - 1] if i else None, ids[i + 1] if i + 1 < len(ids) else None,
                       mid) for i, mid in enumerate(ids)])
    conn.execute("UPDATE conversations SET active_root_id = ?, active_leaf_id = ? WHERE id = ?",
                 (ids[0] if ids else None, ids[-1] if ids else None, conversation_id))


def path_rows(conn: sqlite3.Connection, conversation_id: str, end_id: str,
              limit: int | None = None) -> list[sqlite3.Row]:
    """The rows of the path from the root down to `end_id` (included), oldest first; with
    `limit`, only its last `limit`."""
    if limit is None:
        return _whole_path_rows(conn, conversation_id, end_id)
    cap = max(0, limit)
    columns = ", ".join(f"m.{c.strip()}" for c in MESSAGE_SELECT.split(","))
    rows = conn.execute(
        f"{_PATH_UP} SELECT {columns} FROM path JOIN messages m ON m.seq = path.seq "
        "ORDER BY path.depth DESC", (end_id, conversation_id, cap)).fetchall()
    return rows


_COLUMNS = [c.strip() for c in MESSAGE_SELECT.split(",")]
_ID, _PARENT = _COLUMNS.index("id"), _COLUMNS.index("parent_id")


def _whole_path_rows(conn: sqlite3.Connection, conversation_id: str,
                     end_id: str) -> list[sqlite3.Row]:
    """`path_rows` without a limit: the conversation's rows in one range read, linked here by
    their parents (a recursive walk looks up the index once per message: twice as long for
    a 10,000-message path). Rows off the path are read too: a conversation's branches are a
    small part of it."""
    rows = conn.execute(f"SELECT {MESSAGE_SELECT} FROM messages WHERE conversation_id = ?",
                        (conversation_id,)).fetchall()
    by_id = {row[_ID]: row for row in rows}
    path: list[sqlite3.Row] = []
    row = by_id.get(end_id)
    while row is not None and len(path) < len(rows):  # a cycle in a damaged file ends here
        path.append(row)
        parent = row[_PARENT]
        row = by_id.get(parent) if parent is not None else None
    path.reverse()
    return path


_ACTIVE_BELOW = """
WITH RECURSIVE down(id, child, depth) AS (
    SELECT id, active_child_id, 0 FROM messages WHERE id = ? AND conversation_id = ?
    UNION ALL
    SELECT m.id, m.active_child_id, down.depth + 1 FROM messages m INDEXED BY messages_links
    JOIN down ON m.id = down.child
    WHERE down.depth < ?
)
"""


def active_rows_below(conn: sqlite3.Connection, conversation_id: str,
                      start_id: str) -> list[sqlite3.Row]:
    """The rows of `start_id` and the active path below it, top first (what a view shows
    again after the path changed from `start_id` down)."""
    columns = ", ".join(f"m.{c.strip()}" for c in MESSAGE_SELECT.split(","))
    return conn.execute(
        f"{_ACTIVE_BELOW} SELECT {columns} FROM down JOIN messages m ON m.id = down.id "
        "ORDER BY down.depth", (start_id, conversation_id, WALK_LIMIT)).fetchall()


State = tuple[str, str, int]
"""(id, status, partial_in_context) of a message: what tells a message held by a view from
the stored one (a message that is not streaming changes only in those two columns)."""


def active_states_below(conn: sqlite3.Connection, conversation_id: str, start_id: str,
                        held: int = 0) -> list[State]:
    """The states of `start_id` and the active path below it, top first. `held`: how many
    messages of the conversation the caller holds. A walk looks up the index once per
    message and the row once more: past its first steps, when the caller holds a good part
    of the conversation (switching back to a long branch), the conversation's states are
    read in one range and linked here instead, twice as fast for a 1,000-message path. A
    short path, or one in a large tree, is walked: its cost follows the path."""
    first = _states_walked(conn, conversation_id, start_id, _WALKED_FIRST)
    if len(first) < _WALKED_FIRST:
        return first
    if not held or held * _RANGE_SHARE < _message_count(conn, conversation_id):
        return _states_walked(conn, conversation_id, start_id, WALK_LIMIT)
    cursor = conn.cursor()
    cursor.row_factory = None  # plain tuples: a thousand Row objects are not needed
    rows = cursor.execute("SELECT id, active_child_id, status, partial_in_context FROM "
                          "messages WHERE conversation_id = ?", (conversation_id,)).fetchall()
    by_id = {row[0]: row for row in rows}
    states: list[State] = []
    row = by_id.get(start_id)
    while row is not None and len(states) < len(rows):  # a cycle in a damaged file ends here
        states.append((row[0], row[2], row[3]))
        row = by_id.get(row[1])
    return states


_WALKED_FIRST = 64
"""Steps walked before a long path is read in one range instead (see active_states_below)."""
_RANGE_SHARE = 4
"""The range read is chosen when the messages held are at least a quarter of the
conversation's (it reads every message of the conversation, the walk only the path's)."""


def _states_walked(conn: sqlite3.Connection, conversation_id: str, start_id: str,
                   limit: int) -> list[State]:
    return [(row[0], row[1], row[2]) for row in conn.execute(
        f"{_ACTIVE_BELOW} SELECT m.id, m.status, m.partial_in_context FROM down "
        "JOIN messages m ON m.id = down.id ORDER BY down.depth",
        (start_id, conversation_id, limit - 1))]


def _message_count(conn: sqlite3.Connection, conversation_id: str) -> int:
    row = conn.execute("SELECT count(*) FROM messages WHERE conversation_id = ?",
                       (conversation_id,)).fetchone()
    return int(row[0])


def rows_by_id(conn: sqlite3.Connection, ids: list[str]) -> dict[str, sqlite3.Row]:
    found: dict[str, sqlite3.Row] = {}
    for batch in _batches(ids):
        rows = conn.execute(f"SELECT {MESSAGE_SELECT} FROM messages WHERE id IN "
                            f"({','.join('?' * len(batch))})", batch).fetchall()
        found.update({row["id"]: row for row in rows})
    return found


def message_counts(conn: sqlite3.Connection, conversation_ids: list[str]) -> dict[str, int]:
    """The messages of each conversation that has any, on every branch."""
    found: dict[str, int] = {}
    for batch in _batches(conversation_ids):
        rows = conn.execute(
            "SELECT conversation_id, count(*) AS n FROM messages WHERE conversation_id IN "
            f"({','.join('?' * len(batch))}) GROUP BY conversation_id", batch).fetchall()
        found.update({row["conversation_id"]: int(row["n"]) for row in rows})
    return found


def leaf_below(conn: sqlite3.Connection, message_id: str) -> str:
    """Where the active children lead from `message_id` (itself when it has none)."""
    row = conn.execute(_DOWN_ACTIVE, (message_id, WALK_LIMIT)).fetchone()
    return str(row["id"]) if row else message_id


def ancestry(conn: sqlite3.Connection, conversation_id: str, message_id: str,
             limit: int = WALK_LIMIT) -> list[sqlite3.Row]:
    """(id, parent_id, active_child_id) from the root (or `limit` messages up) down to
    `message_id`."""
    return conn.execute(
        """WITH RECURSIVE up(seq, parent_id, depth) AS (
               SELECT seq, parent_id, 1 FROM messages WHERE id = ? AND conversation_id = ?
               UNION ALL
               SELECT m.seq, m.parent_id, up.depth + 1 FROM messages m
               INDEXED BY messages_links JOIN up ON m.id = up.parent_id WHERE up.depth < ?)
           SELECT m.id, m.parent_id, m.active_child_id FROM up JOIN messages m
           ON m.seq = up.seq ORDER BY up.depth DESC""",
        (message_id, conversation_id, limit)).fetchall()


def near_the_end(conn: sqlite3.Connection, conversation_id: str, leaf: str | None,
                 message_id: str, steps: int = 8) -> bool:
    """Whether `message_id` is one of the last `steps` messages of the active path ending at
    `leaf`: then a reply added under it needs no walk to the root (regenerate, compare, an
    edit of the last prompt)."""
    if leaf is None:
        return False
    return any(row["id"] == message_id
               for row in ancestry(conn, conversation_id, leaf, steps))


def activate(conn: sqlite3.Connection, conversation_id: str,
             message_id: str) -> tuple[bool, str | None]:
    """Make the path to `message_id` active, and below it the active children it remembers.
    Returns (whether the active path changed, the last message the old and new paths share:
    None when they differ from the root on)."""
    current = linked_pointers(conn, conversation_id)
    chain = ancestry(conn, conversation_id, message_id)
    if not chain:
        return False, None
    changed, after = False, None
    if current is None or current.active_root != chain[0]["id"]:
        changed = True
    for upper, lower in pairwise(chain):
        if upper["active_child_id"] != lower["id"]:
            conn.execute("UPDATE messages SET active_child_id = ? WHERE id = ?",
                         (lower["id"], upper["id"]))
            if not changed:
                changed, after = True, upper["id"]
    leaf = leaf_below(conn, message_id)
    if current is not None and not changed and current.active_leaf != leaf:
        # The path went through `message_id` but ended elsewhere (a leaf pointer repaired).
        changed, after = True, message_id
    conn.execute("UPDATE conversations SET active_root_id = ?, active_leaf_id = ? WHERE id = ?",
                 (chain[0]["id"], leaf, conversation_id))
    return changed, after


def children(conn: sqlite3.Connection, conversation_id: str,
             parent_id: str | None) -> list[str]:
    """The ids of the children of `parent_id` (None: the roots), oldest first; a summary
    (role `system`, core.summaries) is no branch of its own, so it is not one of them."""
    rows = conn.execute("SELECT id FROM messages WHERE conversation_id = ? AND parent_id IS ? "
                        "AND role != 'system' ORDER BY seq",
                        (conversation_id, parent_id)).fetchall()
    return [row["id"] for row in rows]


def subtree(conn: sqlite3.Connection, conversation_id: str, message_id: str) -> list[str]:
    """`message_id` and every message below it, oldest first."""
    rows = conn.execute(
        """WITH RECURSIVE sub(id, seq, depth) AS (
               SELECT id, seq, 0 FROM messages WHERE id = ? AND conversation_id = ?
               UNION ALL
               SELECT m.id, m.seq, sub.depth + 1 FROM messages m JOIN sub
               ON m.conversation_id = ? AND m.parent_id = sub.id WHERE sub.depth < ?)
           SELECT id FROM sub ORDER BY seq""",
        (message_id, conversation_id, conversation_id, WALK_LIMIT)).fetchall()
    return [row["id"] for row in rows]


def delete_subtree(conn: sqlite3.Connection, conversation_id: str,
                   message_id: str) -> tuple[list[str], str | None, bool]:
    """Delete `message_id` and its descendants. The branch point then chooses the sibling
    before it (else the one after it). Returns (ids deleted oldest first, the parent,
    whether the active path went through the deleted message)."""
    current = linked_pointers(conn, conversation_id)
    ids = subtree(conn, conversation_id, message_id)
    if not ids:
        return [], None, False
    row = conn.execute("SELECT parent_id FROM messages WHERE id = ?", (message_id,)).fetchone()
    parent = row["parent_id"]
    on_path = current is not None and current.active_leaf in set(ids)
    siblings = children(conn, conversation_id, parent)
    index = siblings.index(message_id)
    rest = siblings[:index] + siblings[index + 1:]
    replacement = (siblings[index - 1] if index > 0 else rest[0]) if rest else None
    conn.executemany("DELETE FROM messages WHERE id = ?", [(mid,) for mid in ids])
    if parent is None:
        if current is not None and current.active_root == message_id:
            conn.execute("UPDATE conversations SET active_root_id = ? WHERE id = ?",
                         (replacement, conversation_id))
    else:
        conn.execute("UPDATE messages SET active_child_id = ? WHERE id = ? AND "
                     "active_child_id = ?", (replacement, parent, message_id))
    if on_path:
        leaf = (leaf_below(conn, replacement) if replacement is not None else parent)
        conn.execute("UPDATE conversations SET active_leaf_id = ? WHERE id = ?",
                     (leaf, conversation_id))
    return ids, parent, on_path


def positions(conn: sqlite3.Connection, conversation_id: str,
              message_ids: list[str]) -> dict[str, tuple[int, int]]:
    """For each message, (its position among its siblings from 1, how many there are)."""
    parents: dict[str, str | None] = {}
    for batch in _batches(message_ids):
        # `+conversation_id`: the look-up goes by id (unique), never through the index of
        # the conversation's rows (the planner took it, reading every row of it).
        rows = conn.execute(f"SELECT id, parent_id FROM messages WHERE +conversation_id = ? "
                            f"AND id IN ({','.join('?' * len(batch))})",
                            (conversation_id, *batch)).fetchall()
        parents.update({row["id"]: row["parent_id"] for row in rows})
    families: dict[str | None, list[str]] = {}
    wanted = [p for p in dict.fromkeys(parents.values()) if p is not None]
    for batch in _batches(wanted):
        # Sorted here: ORDER BY seq made the planner read every row of the conversation in
        # seq order rather than use the index of children.
        rows = conn.execute(f"SELECT parent_id, id, seq FROM messages WHERE conversation_id = ? "
                            f"AND role != 'system' AND parent_id IN ({','.join('?' * len(batch))})",
                            (conversation_id, *batch)).fetchall()
        for row in sorted(rows, key=lambda r: int(r["seq"])):
            families.setdefault(row["parent_id"], []).append(row["id"])
    if None in parents.values():
        families[None] = children(conn, conversation_id, None)
    return {mid: (families[parent].index(mid) + 1, len(families[parent]))
            for mid, parent in parents.items()}


def _batches(items: list[str], size: int = 500) -> list[list[str]]:
    """Pieces small enough for SQLite's limit on parameters."""
    return [items[start:start + size] for start in range(0, len(items), size)]
