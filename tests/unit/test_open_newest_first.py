"""The core's part of opening a long conversation newest first: `Workspace.open_conversation`
with `newest`, then `ChatSession.messages_above` the first message read (the UI runs that in a
thread after the first frame; tests/ui/test_open_newest_first.py)."""

from __future__ import annotations

from tui_chat.core.config import Settings
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.core.workspace import Workspace


def branched(store: Store, count: int) -> tuple[Conversation, list[Message]]:
    """`count` messages in one path, and a second reply to the first prompt (not active)."""
    chat = store.create_conversation(Conversation(title="Long"))
    path = [store.add_message(Message(conversation_id=chat.id,
                                      role=Role.USER if i % 2 == 0 else Role.ASSISTANT,
                                      content=f"m{i}")) for i in range(count)]
    store.add_message(Message(conversation_id=chat.id, role=Role.ASSISTANT, content="other",
                              parent_id=path[0].id))
    store.activate(path[-1].id)
    return chat, path


def test_the_newest_then_the_path_above_them_make_the_whole_path(store: Store) -> None:
    chat, path = branched(store, 30)
    workspace = Workspace(Settings(), store, env={})
    newest = workspace.open_conversation(chat.id, newest=8)
    assert [m.content for m in newest] == [f"m{i}" for i in range(22, 30)]
    older = workspace.session.messages_above(newest[0].id)
    assert [m.id for m in older + newest] == [m.id for m in path]
    assert [m.id for m in workspace.session.messages()] == [m.id for m in path]


def test_the_path_above_follows_parents_even_if_the_active_path_changes(
        store: Store) -> None:
    chat, path = branched(store, 30)
    workspace = Workspace(Settings(), store, env={})
    newest = workspace.open_conversation(chat.id, newest=8)
    other = next(m for m in store.get_tree(chat.id).messages if m.content == "other")
    store.activate(other.id)  # elsewhere, meanwhile: another branch is active
    older = workspace.session.messages_above(newest[0].id)
    assert [m.id for m in older] == [m.id for m in path[:22]]  # still above what is shown


def test_a_path_shorter_than_newest_is_read_whole_at_once(store: Store) -> None:
    chat, path = branched(store, 5)
    workspace = Workspace(Settings(), store, env={})
    assert [m.id for m in workspace.open_conversation(chat.id, newest=8)] == [
        m.id for m in path]
