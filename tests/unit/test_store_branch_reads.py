"""The store's read of a path below a branch point when the caller holds a long branch (the
app switching back to it): one range of the conversation linked in Python, which must give
what the walk gives, reuse only what is unchanged, and stop on a damaged file's cycle."""

from __future__ import annotations

from tui_chat.core import store_tree
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store

LONG = 3 * store_tree._WALKED_FIRST


def two_branches(store: Store, long: int = LONG, aside: int = 0
                 ) -> tuple[str, list[Message], list[Message]]:
    """q ─ a1 ─ `long` messages (active) and q ─ a2 ─ 2 messages, and `aside` messages in a
    third branch under q: (the conversation's id, the long path, the short path)."""
    chat = store.create_conversation(Conversation(title="reads")).id

    def add(content: str, parent: str | None, role: Role = Role.ASSISTANT) -> Message:
        return store.add_message(Message(conversation_id=chat, role=role, content=content,
                                         parent_id=parent), activate=False)

    q = store.add_message(Message(conversation_id=chat, role=Role.USER, content="q"))
    first, second, third = [q, add("a1", q.id)], [q, add("a2", q.id)], [q, add("a3", q.id)]
    for path, count in ((first, long), (second, 2), (third, aside)):
        for index in range(count):
            path.append(add(f"m{index}", path[-1].id,
                            Role.USER if index % 2 == 0 else Role.ASSISTANT))
    store.activate(first[-1].id)
    return chat, first, second


def ids(messages: list[Message]) -> list[str]:
    return [m.id for m in messages]


def test_switching_back_to_a_long_branch_reuses_what_is_held(store: Store) -> None:
    chat, first, second = two_branches(store)
    held = {m.id: m for m in first[1:]}
    store.switch_sibling(first[1].id, 1)
    assert ids(store.path_below(chat, first[0].id, held)) == ids(second[1:])
    store.switch_sibling(second[1].id, -1)
    below = store.path_below(chat, first[0].id, held)
    assert ids(below) == ids(first[1:]) == ids(store.path_below(chat, first[0].id))
    assert all(message is held[message.id] for message in below)


def test_a_message_changed_meanwhile_is_read_again(store: Store) -> None:
    chat, first, _ = two_branches(store)
    held = {m.id: m for m in first[1:]}
    changed = first[LONG // 2]
    stale = first[LONG // 2 + 1].model_copy(update={"status": MessageStatus.STREAMING})
    with store._write() as conn:
        conn.execute("UPDATE messages SET status = 'interrupted' WHERE id = ?", (changed.id,))
    below = store.path_below(chat, first[0].id, {**held, stale.id: stale})
    assert ids(below) == ids(first[1:])
    by_id = {m.id: m for m in below}
    assert by_id[changed.id].status is MessageStatus.INTERRUPTED
    assert by_id[changed.id] is not held[changed.id]
    assert by_id[stale.id] is not stale and by_id[stale.id].status is MessageStatus.COMPLETE
    assert by_id[first[-1].id] is held[first[-1].id]


def test_a_long_path_in_a_larger_tree_gives_the_same_path(store: Store) -> None:
    chat, first, _ = two_branches(store, aside=10 * LONG)  # the messages held: a small part
    held = {m.id: m for m in first[1:]}
    assert ids(store.path_below(chat, first[0].id, held)) == ids(first[1:])


def test_a_cycle_in_a_damaged_file_ends_the_read(store: Store) -> None:
    chat, first, _ = two_branches(store)
    held = {m.id: m for m in first[1:]}
    with store._write() as conn:  # the last message's active child: one above it
        conn.execute("UPDATE messages SET active_child_id = ? WHERE id = ?",
                     (first[-10].id, first[-1].id))
    below = store.path_below(chat, first[0].id, held)
    assert len(below) <= store.message_counts([chat])[chat]  # at most the conversation
    assert ids(below[:LONG + 1]) == ids(first[1:])
