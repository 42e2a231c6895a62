"""Conversations as trees in the store: the active path, branches, switching, deletion of a
subtree, forks, and the migration of a store written before trees (tests/fixtures)."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_chat.core.models import (
    ActivePathChanged,
    Conversation,
    Message,
    MessageStatus,
    Parameters,
    Role,
)
from tui_chat.core.store import NotFoundError, Store
from tui_chat.core.store_schema import SCHEMA_VERSION

FIXTURE = Path(__file__).parent.parent / "fixtures" / "store-v2.sqlite3"
CID = "t" * 32


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "tree.sqlite3") as opened:
        opened.create_conversation(Conversation(id=CID, title="tree"))
        yield opened


def add(store: Store, mid: str, *, parent: str | None = None, role: Role | None = None,
        activate: bool = True, as_root: bool = False, **fields: object) -> Message:
    """A message `mid` (role by its first letter: q user, a assistant) under `parent`, or at
    the end of the active path."""
    role = role or (Role.USER if mid.startswith("q") else Role.ASSISTANT)
    message = Message.model_validate({"id": mid, "conversation_id": CID, "role": role,
                                      "content": f"text of {mid}", "parent_id": parent,
                                      **fields})
    return store.add_message(message, activate=activate, as_root=as_root)


def path(store: Store, **paging: object) -> list[str]:
    return [m.id for m in store.get_messages(CID, **paging)]  # type: ignore[arg-type]


def branched(store: Store) -> None:
    """q1 ─ a1 ─ q2 ─ a2          (a2b is a2's sibling; q2b is q2's, with its reply a3)
              │       └ a2b
              └ q2b ─ a3"""
    for mid in ("q1", "a1", "q2", "a2"):
        add(store, mid)
    add(store, "a2b", parent="q2")
    add(store, "q2b", parent="a1")
    add(store, "a3")


# -- the active path ----------------------------------------------------------------------

def test_messages_appended_form_one_path_each_under_the_last(store: Store) -> None:
    for mid in ("q1", "a1", "q2"):
        add(store, mid)
    assert path(store) == ["q1", "a1", "q2"]
    assert [store.get_message(m).parent_id for m in ("q1", "a1", "q2")] == [None, "q1", "a1"]


def test_a_reply_added_under_an_earlier_prompt_becomes_the_active_branch(store: Store) -> None:
    branched(store)
    assert path(store) == ["q1", "a1", "q2b", "a3"]
    assert store.count_messages(CID) == 7  # every branch is kept


def test_a_branch_added_without_activating_stays_aside(store: Store) -> None:
    for mid in ("q1", "a1"):
        add(store, mid)
    add(store, "a1b", parent="q1", activate=False)
    add(store, "q0", as_root=True, activate=False)
    assert path(store) == ["q1", "a1"]
    assert store.siblings("a1b").ids == ("a1", "a1b")
    assert store.siblings("q0").ids == ("q1", "q0")


def test_paging_walks_the_active_path_only(store: Store) -> None:
    branched(store)
    assert path(store, limit=2) == ["q2b", "a3"]
    assert path(store, limit=2, before_id="q2b") == ["q1", "a1"]
    assert path(store, before_id="q1") == []
    assert store.get_messages("f" * 32) == []


def test_a_parent_from_another_conversation_is_refused(store: Store) -> None:
    store.create_conversation(Conversation(id="o" * 32))
    store.add_message(Message(id="other", conversation_id="o" * 32, role=Role.USER))
    with pytest.raises(NotFoundError, match="No message with id other in that conversation"):
        add(store, "q1", parent="other")
    assert store.count_messages(CID) == 0


def test_path_to_any_message_follows_its_own_branch(store: Store) -> None:
    branched(store)
    assert [m.id for m in store.path_to("a2b")] == ["q1", "a1", "q2", "a2b"]


# -- switching ------------------------------------------------------------------------------

def test_siblings_and_positions(store: Store) -> None:
    branched(store)
    siblings = store.siblings("q2b")
    assert (siblings.ids, siblings.position, siblings.count) == (("q2", "q2b"), 2, 2)
    assert store.positions(CID, ["q1", "q2", "q2b", "a2b", "a3"]) == {
        "q1": (1, 1), "q2": (1, 2), "q2b": (2, 2), "a2b": (2, 2), "a3": (1, 1)}


def test_switching_a_sibling_remembers_the_choices_below_it(store: Store) -> None:
    branched(store)
    store.activate("a2")  # below q2, a2 rather than a2b
    assert path(store) == ["q1", "a1", "q2", "a2"]
    change = store.switch_sibling("q2", +1)
    assert change == ActivePathChanged(CID, "a1")
    assert path(store) == ["q1", "a1", "q2b", "a3"]
    assert store.switch_sibling("q2b", -1) == ActivePathChanged(CID, "a1")
    assert path(store) == ["q1", "a1", "q2", "a2"]  # a2 remembered, not the newest a2b
    assert store.switch_sibling("q2", -1) is None  # already the first
    assert store.switch_sibling("q1", +1) is None  # the only root


def test_switching_far_from_the_end_and_near_it_give_the_same_paths(store: Store) -> None:
    for index in range(30):
        add(store, f"{'q' if index % 2 == 0 else 'a'}{index}")
    add(store, "a1b", parent="q0")  # a sibling of the second message, with a branch below
    add(store, "q2b")
    add(store, "a29b", parent="q28")  # and one of the last reply
    store.activate("a29")
    assert store.switch_sibling("a29", +1) == ActivePathChanged(CID, "q28")  # near the end
    assert path(store)[-2:] == ["q28", "a29b"]
    assert store.switch_sibling("a1", +1) == ActivePathChanged(CID, "q0")  # 28 above it
    assert path(store) == ["q0", "a1b", "q2b"]
    assert store.switch_sibling("a1b", -1) == ActivePathChanged(CID, "q0")
    assert len(path(store)) == 30 and path(store)[-1] == "a29b"  # its choice remembered
    assert store.switch_sibling("a29b", -1) == ActivePathChanged(CID, "q28")
    assert path(store)[-1] == "a29"
    assert store.switch_sibling("a29", -1) is None


def test_the_path_below_a_branch_point_is_what_a_view_shows_again(store: Store) -> None:
    branched(store)
    store.activate("a2")
    change = store.switch_sibling("q2", +1)
    assert change is not None
    below = store.path_below(CID, change.after_id)
    assert [m.id for m in below] == ["q2b", "a3"]
    assert [m.content for m in below] == ["text of q2b", "text of a3"]
    assert [m.id for m in store.path_below(CID, None)] == path(store)
    assert store.path_below(CID, "a3") == []  # the leaf: nothing below
    assert store.path_below(CID, "a2") == []  # aside, and without children
    assert [m.id for m in store.path_below(CID, "q2")] == ["a2"]  # q2's own active child


def test_the_path_below_reuses_the_messages_a_view_holds_unless_they_changed(
        store: Store) -> None:
    branched(store)
    held = {m.id: m for m in store.get_tree(CID).messages if m.id != "a2"}
    stale = held["a3"].model_copy(update={"status": MessageStatus.STREAMING})
    store.activate("a2")
    below = store.path_below(CID, "a1", {**held, "a3": stale})
    assert [m.id for m in below] == ["q2", "a2"]  # a2 not held: read; q2 held: reused
    assert below[0] is held["q2"] and below[1] == store.get_message("a2")
    store.activate("a3")
    below = store.path_below(CID, "a1", {"q2b": held["q2b"], "a3": stale})
    assert below[0] is held["q2b"]
    assert below[1] is not stale and below[1].status is MessageStatus.COMPLETE
    changed = held["q2b"].model_copy(update={"partial_in_context": True})
    assert store.path_below(CID, "a1", {"q2b": changed})[0] is not changed


def test_activating_a_message_on_an_inactive_branch_shows_its_whole_path(store: Store) -> None:
    branched(store)
    change = store.activate("a2b")
    assert change == ActivePathChanged(CID, "a1")
    assert path(store) == ["q1", "a1", "q2", "a2b"]
    assert store.activate("a2b") is None  # already active: nothing changes
    assert store.activate("q2") is None  # on the active path already


def test_activating_a_message_mid_path_keeps_the_path_below_it(store: Store) -> None:
    branched(store)
    store.activate("a2b")
    store.activate("a3")
    assert store.activate("q2") == ActivePathChanged(CID, "a1")
    assert path(store) == ["q1", "a1", "q2", "a2b"]


def test_a_second_root_can_be_switched_to(store: Store) -> None:
    branched(store)
    add(store, "q0", as_root=True)
    add(store, "a0")
    assert path(store) == ["q0", "a0"]
    assert store.switch_sibling("q0", -1) == ActivePathChanged(CID, None)
    assert path(store) == ["q1", "a1", "q2b", "a3"]


def test_the_tree_holds_every_branch_and_its_active_path(store: Store) -> None:
    branched(store)
    tree = store.get_tree(CID)
    assert [m.id for m in tree.messages] == ["q1", "a1", "q2", "a2", "a2b", "q2b", "a3"]
    assert [m.id for m in tree.children("a1")] == ["q2", "q2b"]
    assert [m.id for m in tree.active_path()] == path(store)
    assert tree.active_child["q2"] == "a2b" and tree.active_root == "q1"


# -- deleting -------------------------------------------------------------------------------

def test_deleting_a_branch_on_the_path_falls_back_to_the_sibling_before(store: Store) -> None:
    branched(store)
    ids, change = store.delete_subtree("q2b")
    assert ids == ["q2b", "a3"]
    assert change == ActivePathChanged(CID, "a1")
    assert path(store) == ["q1", "a1", "q2", "a2b"]
    assert store.siblings("q2").ids == ("q2",)
    assert store.search("text of a3") == []
    assert store.count_messages(CID) == 5


def test_deleting_a_branch_aside_leaves_the_active_path(store: Store) -> None:
    branched(store)
    assert store.delete_subtree("a2") == (["a2"], None)
    assert path(store) == ["q1", "a1", "q2b", "a3"]
    store.activate("q2")
    assert path(store) == ["q1", "a1", "q2", "a2b"]


def test_deleting_the_first_of_two_siblings_falls_back_to_the_next(store: Store) -> None:
    branched(store)
    store.activate("a2")
    store.delete_subtree("a2")
    assert path(store) == ["q1", "a1", "q2", "a2b"]


def test_deleting_everything_leaves_an_empty_conversation(store: Store) -> None:
    branched(store)
    ids, change = store.delete_subtree("q1")
    assert len(ids) == 7 and change == ActivePathChanged(CID, None)
    assert path(store) == [] and store.count_messages(CID) == 0
    add(store, "q9")
    assert path(store) == ["q9"]


def test_deleting_the_last_reply_ends_the_path_at_its_prompt(store: Store) -> None:
    for mid in ("q1", "a1"):
        add(store, mid)
    store.delete_subtree("a1")
    assert path(store) == ["q1"]
    add(store, "a1b")
    assert store.get_message("a1b").parent_id == "q1"


# -- forks, settings, search ------------------------------------------------------------

def test_a_fork_copies_the_path_and_records_where_it_came_from(store: Store) -> None:
    branched(store)
    store.set_system_prompt(CID, "Be brief")
    store.set_parameters(CID, Parameters(temperature=0.2))
    fork = store.fork("q2")
    assert (fork.forked_from, fork.forked_from_message) == (CID, "q2")
    assert store.get_conversation(fork.id) == fork
    copied = store.get_messages(fork.id)
    assert [m.content for m in copied] == ["text of q1", "text of a1", "text of q2"]
    assert not {m.id for m in copied} & {"q1", "a1", "q2"}
    assert copied[1].parent_id == copied[0].id and copied[2].parent_id == copied[1].id
    assert (fork.system_prompt, fork.parameters.temperature) == ("Be brief", 0.2)
    assert path(store) == ["q1", "a1", "q2b", "a3"]  # the original is untouched
    assert store.count_messages(CID) == 7
    reply = store.add_message(Message(conversation_id=fork.id, role=Role.ASSISTANT))
    assert reply.parent_id == copied[2].id


def test_settings_change_one_column_each(store: Store) -> None:
    stale = store.get_conversation(CID)
    store.rename_conversation(CID, "renamed meanwhile")
    store.set_system_prompt(CID, "  ")
    assert store.get_conversation(CID).system_prompt is None
    store.set_system_prompt(CID, "Answer in Hindi")
    store.set_parameters(CID, Parameters(max_tokens=100, stop=["END"]))
    saved = store.get_conversation(CID)
    assert saved.title == "renamed meanwhile" != stale.title
    assert saved.system_prompt == "Answer in Hindi"
    assert saved.parameters == Parameters(max_tokens=100, stop=["END"])
    with pytest.raises(NotFoundError):
        store.set_system_prompt("f" * 32, "x")


def test_search_finds_messages_on_every_branch(store: Store) -> None:
    branched(store)
    hits = {hit.message_id for hit in store.search("text of")}
    assert hits == {"q1", "a1", "q2", "a2", "a2b", "q2b", "a3"}


def test_a_conversation_written_without_tree_data_becomes_one_path(store: Store) -> None:
    """import_conversation and older tui-chat processes write rows of the schema-2 shape."""
    imported = Conversation(id="i" * 32, title="imported")
    messages = [Message(id=f"i{n}", conversation_id=imported.id,
                        role=Role.USER if n % 2 == 0 else Role.ASSISTANT) for n in range(4)]
    store.import_conversation(imported, messages)
    assert [m.id for m in store.get_messages(imported.id)] == ["i0", "i1", "i2", "i3"]
    store.add_message(Message(id="i4", conversation_id=imported.id, role=Role.USER))
    assert [m.id for m in store.get_messages(imported.id, limit=2)] == ["i3", "i4"]


def test_a_cycle_in_a_damaged_file_does_not_hang_a_walk(store: Store) -> None:
    for mid in ("q1", "a1"):
        add(store, mid)
    store._conn.execute("UPDATE messages SET parent_id = 'a1' WHERE id = 'q1'")
    assert path(store, limit=5) == ["a1", "q1", "a1", "q1", "a1"]
    # The whole path (read in one range, linked in Python) stops at the conversation's size.
    assert path(store) == ["q1", "a1"]


# -- the migration of a store written before trees ---------------------------------------

def _old_rows(path: Path) -> dict[str, list[sqlite3.Row]]:
    with sqlite3.connect(path) as conn:
        conn.row_factory = sqlite3.Row
        rows = conn.execute("SELECT * FROM messages ORDER BY seq").fetchall()
    conn.close()
    grouped: dict[str, list[sqlite3.Row]] = {}
    for row in rows:
        grouped.setdefault(row["conversation_id"], []).append(row)
    return grouped


def test_a_store_written_before_trees_migrates_to_single_paths(tmp_path: Path) -> None:
    path_ = tmp_path / "old.sqlite3"
    shutil.copy(FIXTURE, path_)
    old = _old_rows(path_)
    with Store.open(path_) as migrated:
        assert migrated._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
        assert migrated.count_conversations() == 3
        for cid, rows in old.items():
            messages = migrated.get_messages(cid)
            assert [m.id for m in messages] == [row["id"] for row in rows]
            for message, row in zip(messages, rows, strict=True):
                assert (message.role.value, message.content, message.reasoning,
                        message.provider, message.model, message.finish_reason,
                        message.time_to_first_token, message.tokens_per_second) == (
                    row["role"], row["content"], row["reasoning"], row["provider"],
                    row["model"], row["finish_reason"], row["time_to_first_token"],
                    row["tokens_per_second"])
            parents = [m.parent_id for m in messages]
            assert parents == [None, *(m.id for m in messages[:-1])]
            tree = migrated.get_tree(cid)
            assert all(len(tree.children(m.id)) <= 1 for m in messages)
        assert migrated.get_messages("c3" + "0" * 30) == []
        conversation = migrated.get_conversation("c1" + "0" * 30)
        assert conversation.parameters == Parameters(temperature=0.7, max_tokens=512,
                                                     stop=["END"])
        assert conversation.forked_from is None
        failures = {m.id: m for m in migrated.get_messages("c2" + "0" * 30)}
        assert failures["m206"].status is MessageStatus.INTERRUPTED
        assert not failures["m206"].partial_in_context  # cut off by a failure
        assert failures["m208"].partial_in_context  # stopped by the user: still context
        assert failures["m210"].status is MessageStatus.INTERRUPTED  # its writer is gone
        assert [h.message_id for h in migrated.search("नमस्ते")] == ["m105"]
        added = migrated.add_message(Message(conversation_id="c1" + "0" * 30, role=Role.USER,
                                             content="one more"))
        assert added.parent_id == "m106"
    with Store.open(path_) as again:  # opening the migrated file again changes nothing
        assert [m.id for m in again.get_messages("c1" + "0" * 30)][-2:] == ["m106", added.id]
