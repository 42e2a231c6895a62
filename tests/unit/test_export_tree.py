"""Export format version 2 keeps the tree: an exact round trip of every branch and the active
choices; version 1 files still import as one path; a broken tree is one sentence; Markdown
holds the active path, or every branch."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_export import conversation_dict, document, message_dict
from tui_chat.core import export
from tui_chat.core.errors import UsageError
from tui_chat.core.models import Conversation, Message, MessageStatus, Parameters, Role, Usage
from tui_chat.core.store import Store
from tui_chat.core.store_import import derived_id

T0 = datetime(2026, 3, 4, 5, 6, 7, 890123, tzinfo=UTC)
CID = "c" * 32


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def branched(store: Store) -> list[str]:
    """A conversation with a second first message, a regenerated reply, an edited prompt, a
    partial reply kept as context, and the active path on an older branch; and a fork of it."""
    store.create_conversation(Conversation(
        id=CID, title="tree", created=T0, updated=T0, provider="sutra", model="sutra-v2",
        system_prompt="Be brief.", parameters=Parameters(temperature=0.2, stop=["END"])))

    def add(mid: str, parent: str | None, **fields: Any) -> None:
        role = Role.USER if mid.startswith("q") else Role.ASSISTANT
        store.add_message(Message.model_validate({
            "id": mid, "conversation_id": CID, "role": role, "content": f"text of {mid}",
            "parent_id": parent, "created": T0 + timedelta(seconds=len(mid)), **fields}),
            as_root=parent is None)

    add("q1", None)
    add("a1", "q1", reasoning="hmm", provider="sutra", model="sutra-r0",
        usage=Usage(prompt_tokens=1, completion_tokens=2, total_tokens=3),
        time_to_first_token=0.5, tokens_per_second=40.0, finish_reason="stop")
    add("a1b", "q1", status=MessageStatus.INTERRUPTED, error="stopped",
        partial_in_context=True)
    add("q2", "a1")
    add("a2", "q2")
    add("q2b", "a1")
    add("a3", "q2b", status=MessageStatus.ERROR, content="", error="402")
    add("q0", None)
    store.activate("a2")  # back on the first root, first reply, first prompt
    fork = store.fork("a1")
    return [CID, fork.id]


def test_a_version_2_export_round_trips_every_field_the_tree_and_the_choices(
        source: Store, target: Store, tmp_path: Path) -> None:
    ids = branched(source)
    text = export.export_json(source, ids)
    result = export.import_file(target, write(tmp_path / "e.json", text))
    assert (result.conversations_added, result.messages_added) == (2, 10)
    for cid in ids:
        assert target.get_tree(cid) == source.get_tree(cid)
        assert target.get_messages(cid) == source.get_messages(cid)
    assert [m.id for m in target.get_messages(CID)] == ["q1", "a1", "q2", "a2"]
    fork = target.get_conversation(ids[1])
    assert (fork.forked_from, fork.forked_from_message) == (CID, "a1")
    again = json.loads(export.export_json(target, ids))
    first = json.loads(text)
    again.pop("exported"), first.pop("exported")
    assert again == first  # byte for byte the same document, but for when it was written


def test_the_export_writes_each_choice(source: Store) -> None:
    branched(source)
    conversation = json.loads(export.export_json(source, [CID]))["conversations"][0]
    messages = {m["id"]: m for m in conversation["messages"]}
    assert conversation["active_root_id"] == "q1"
    assert (messages["q1"]["active_child_id"], messages["a1"]["active_child_id"]) == ("a1", "q2")
    assert messages["q2b"]["parent_id"] == "a1" and messages["a2"]["active_child_id"] is None
    assert messages["a1b"]["partial_in_context"] is True
    assert [m["id"] for m in conversation["messages"]][:2] == ["q1", "a1"]  # parents first


def test_a_version_1_file_still_imports_as_one_path(target: Store, tmp_path: Path) -> None:
    text = document(conversation_dict(id=CID, messages=[
        message_dict(id="u1", content="q"), message_dict(id="r1", role="assistant"),
        message_dict(id="u2", content="again")]))
    result = export.import_file(target, write(tmp_path / "v1.json", text))
    assert result.messages_added == 3
    path = target.get_messages(CID)
    assert [(m.id, m.parent_id) for m in path] == [("u1", None), ("r1", "u1"), ("u2", "r1")]
    longer = document(conversation_dict(id=CID, messages=[
        message_dict(id="u1", content="q"), message_dict(id="r1", role="assistant"),
        message_dict(id="u2", content="again"), message_dict(id="r2", role="assistant")]))
    export.import_file(target, write(tmp_path / "v1b.json", longer))
    assert [m.id for m in target.get_messages(CID)] == ["u1", "r1", "u2", "r2"]


def test_a_message_whose_id_is_taken_is_kept_under_a_new_id_and_the_tree_follows(
        source: Store, target: Store, tmp_path: Path) -> None:
    """Import never drops a message: the one whose id another conversation uses gets a new
    one; its child, its parent's active choice and the active path follow; importing the
    same file again adds nothing."""
    branched(source)
    target.create_conversation(Conversation(id="o" * 32))
    target.add_message(Message(id="q2", conversation_id="o" * 32, role=Role.USER,
                               content="mine"))
    file = write(tmp_path / "e.json", export.export_json(source, [CID]))
    result = export.import_file(target, file)
    new = derived_id(CID, "q2", 0)
    assert (result.messages_renamed, result.messages_taken, result.messages_orphaned) == (
        ("q2",), (), 0)
    assert result.messages_added == source.count_messages(CID)
    assert "gave 1 message a new id" in result.describe() and "skipped" not in (
        result.describe())
    path = [m.id for m in source.get_messages(CID)]
    assert "q2" in path
    assert [m.id for m in target.get_messages(CID)] == [new if i == "q2" else i for i in path]
    assert target.get_message(new).content == "text of q2"
    assert target.get_message("a2").parent_id == new
    assert target.get_message("q2").content == "mine"  # the other conversation's, untouched
    again = export.import_file(target, file)
    assert (again.messages_added, again.messages_renamed) == (0, ())
    assert target.count_messages(CID) == source.count_messages(CID)


def v2(messages: list[dict[str, Any]], **conversation: Any) -> str:
    fields = {"forked_from": None, "forked_from_message": None, "active_root_id": None,
              **conversation}
    full = [{"parent_id": None, "partial_in_context": False, "active_child_id": None,
             **message_dict(**{k: v for k, v in m.items()
                               if k not in ("parent_id", "partial_in_context",
                                            "active_child_id")}),
             **{k: v for k, v in m.items()
                if k in ("parent_id", "partial_in_context", "active_child_id")}}
            for m in messages]
    return document(conversation_dict(messages=full, **fields), version=2)


@pytest.mark.parametrize(("text", "problem"), [
    (v2([{"id": "a", "parent_id": "b"}, {"id": "b"}], active_root_id="b"),
     r"'conversations.0.messages.0.parent_id': b is not a message before it"),
    (v2([{"id": "a", "active_child_id": "zz"}, {"id": "b", "parent_id": "a"}],
        active_root_id="a"),
     r"messages.0.active_child_id': it must be the id of one of its children"),
    (v2([{"id": "a", "active_child_id": "a"}], active_root_id="a"),
     r"messages.0.active_child_id': it must be null: it has no children"),
    (v2([{"id": "a", "active_child_id": "b"}, {"id": "b", "parent_id": "a"}],
        active_root_id="b"),
     r"'conversations.0.active_root_id': it must be the id of one of its roots"),
    (v2([], active_root_id="a"), r"active_root_id': it must be null: it has no messages"),
    (v2([{"id": "a", "parent_id": "../x"}], active_root_id="a"),
     r"messages.0.parent_id': not an id tui-chat writes"),
    (v2([{"id": "a", "partial_in_context": 1}], active_root_id="a"),
     r"messages.0.partial_in_context'"),
    (document(conversation_dict(forked_from=7), version=2),
     r"'conversations.0.forked_from': must be a valid string"),
])
def test_a_broken_tree_is_one_sentence_and_nothing_is_imported(
        target: Store, tmp_path: Path, text: str, problem: str) -> None:
    with pytest.raises(UsageError, match=problem) as raised:
        export.import_file(target, write(tmp_path / "bad.json", text))
    assert raised.value.message.endswith("nothing was imported.")
    assert target.count_conversations() == 0


def test_a_hand_written_version_2_tree_imports(target: Store, tmp_path: Path) -> None:
    text = v2([{"id": "a", "active_child_id": "b"}, {"id": "b", "parent_id": "a"},
               {"id": "c", "parent_id": "a"}], active_root_id="a", id=CID)
    export.import_file(target, write(tmp_path / "ok.json", text))
    assert [m.id for m in target.get_messages(CID)] == ["a", "b"]
    assert target.siblings("b").ids == ("b", "c")


def test_choices_left_out_of_a_version_2_file_take_the_newest(target: Store,
                                                              tmp_path: Path) -> None:
    messages = [message_dict(id="a", created="2026-01-01T00:00:00Z"),
                {**message_dict(id="b", role="assistant"), "parent_id": "a"},
                {**message_dict(id="c", role="assistant"), "parent_id": "a"},
                message_dict(id="d")]
    text = document(conversation_dict(id=CID, messages=messages), version=2)
    export.import_file(target, write(tmp_path / "short.json", text))
    assert [m.id for m in target.get_messages(CID)] == ["d"]  # the newest root
    target.activate("a")
    assert [m.id for m in target.get_messages(CID)] == ["a", "c"]  # its newest child


def test_markdown_holds_the_active_path_or_every_branch(source: Store) -> None:
    branched(source)
    shown = export.export_markdown(source, [CID])
    assert all(f"text of {m}" in shown for m in ("q1", "a1", "q2", "a2"))
    assert all(f"text of {m}" not in shown for m in ("a1b", "q2b", "q0"))
    every = export.export_markdown(source, [CID], all_branches=True)
    for mid in ("q1", "a1", "a1b", "q2", "a2", "q2b", "q0"):
        assert every.count(f"\ntext of {mid}\n") == 1, mid  # once, besides the headings
    assert "## Branch 2, after “text of q1” (`q1`)" in every
    assert "## Branch 3, after “text of a1” (`a1`)" in every
    assert "## Branch 4, from another first message" in every
    assert every.index("text of q2b") < every.index("*(no text)*")  # a3, below q2b
