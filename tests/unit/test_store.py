"""The conversation store: records, ordering, prefixes, paging, deletion, crash recovery."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from tui_chat.core import store as store_module
from tui_chat.core.errors import StoreError
from tui_chat.core.models import (
    Conversation,
    Message,
    MessageStatus,
    Parameters,
    Role,
    Usage,
)
from tui_chat.core.store import INTERRUPTED_NOTE, NotFoundError, Store
from tui_chat.core.store_schema import SCHEMA_VERSION

T0 = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)


def conversation(cid: str = "a" * 32, minutes: int = 0, **fields: object) -> Conversation:
    when = T0 + timedelta(minutes=minutes)
    return Conversation(id=cid, created=when, updated=when, **fields)  # type: ignore[arg-type]


def full_message(cid: str, **fields: object) -> Message:
    values: dict[str, object] = dict(
        conversation_id=cid, role=Role.ASSISTANT, content="Answer ✓ नमस्ते", reasoning="Hmm",
        provider="sutra", model="sutra-r0", status=MessageStatus.INTERRUPTED, error="Cut off.",
        finish_reason="length", usage=Usage(prompt_tokens=1, completion_tokens=2, total_tokens=3),
        time_to_first_token=0.25, tokens_per_second=41.5, created=T0)
    values.update(fields)
    return Message.model_validate(values)


def test_open_creates_folders_file_and_wal(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "store.sqlite3"
    with Store.open(path) as opened:
        assert opened.notice is None
        assert opened._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert opened._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert path.exists()
    assert path.stat().st_mode & 0o077 == 0


def test_default_path_follows_tui_chat_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    monkeypatch.setenv("TUI_CHAT_DB", str(tmp_path / "elsewhere.db"))
    with Store.open() as opened:
        assert opened.path == tmp_path / "elsewhere.db"
    assert (tmp_path / "elsewhere.db").exists()


def test_default_path_follows_xdg_data_home(isolated_dirs: Path) -> None:
    with Store.open() as opened:
        assert opened.path == isolated_dirs / "data" / "tui-chat" / "conversations.sqlite3"


def test_conversation_round_trips_every_field(store: Store) -> None:
    original = conversation(title="Title", provider="chutes", model="m", system_prompt="Be brief",
                            parameters=Parameters(temperature=0.5, stop=["x"]), pinned=True,
                            archived=True)
    store.create_conversation(original)
    assert store.get_conversation(original.id) == original


def test_message_round_trips_every_field(store: Store) -> None:
    store.create_conversation(conversation())
    original = full_message("a" * 32)
    store.add_message(original)
    assert store.get_message(original.id) == original
    assert store.get_messages("a" * 32) == [original]


def test_offset_and_naive_timestamps_keep_their_instant(store: Store) -> None:
    store.create_conversation(conversation())
    india = datetime(2026, 1, 2, 8, 34, 5, 123456, tzinfo=timezone(timedelta(hours=5.5)))
    with_offset = store.add_message(full_message("a" * 32, created=india))
    naive = store.add_message(full_message("a" * 32, created=datetime(2026, 1, 2, 3, 4, 5)))
    loaded = store.get_message(with_offset.id).created
    assert loaded == india and loaded.utcoffset() == timedelta(0)
    assert store.get_message(naive.id).created == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_add_message_updates_conversation_and_remembers_model(store: Store) -> None:
    store.create_conversation(conversation())
    store.add_message(Message(conversation_id="a" * 32, role=Role.USER, content="hi"))
    assert store.get_conversation("a" * 32).model is None
    store.add_message(full_message("a" * 32, created=T0))
    updated = store.get_conversation("a" * 32)
    assert (updated.provider, updated.model) == ("sutra", "sutra-r0")
    assert updated.updated > T0


def test_list_is_newest_first_with_counts_and_paging(store: Store) -> None:
    for index in range(5):
        store.create_conversation(conversation(f"{index:032x}", minutes=index, title=f"c{index}"))
    for _ in range(3):
        store.add_message(Message(conversation_id=f"{2:032x}", role=Role.USER, content="x"))
    rows = store.list_conversations()
    assert [r.title for r in rows] == ["c2", "c4", "c3", "c1", "c0"]  # c2 got new messages
    assert rows[0].message_count == 3 and rows[1].message_count == 0
    assert [r.title for r in store.list_conversations(limit=2, offset=2)] == ["c3", "c1"]
    assert store.count_conversations() == 5
    latest = store.latest_conversation()
    assert latest is not None and latest.title == "c2"


def test_latest_of_empty_store_is_none(store: Store) -> None:
    assert store.latest_conversation() is None
    assert store.list_conversations() == []


def test_resolve_id_by_unique_prefix(store: Store) -> None:
    store.create_conversation(conversation("abc1" + "0" * 28))
    store.create_conversation(conversation("abc2" + "0" * 28))
    assert store.resolve_id("abc1") == "abc1" + "0" * 28
    assert store.resolve_id("abc2" + "0" * 28) == "abc2" + "0" * 28
    with pytest.raises(NotFoundError, match=r"2 conversations start with abc .*more characters"):
        store.resolve_id("abc")
    with pytest.raises(NotFoundError, match="No conversation id starts with ffff"):
        store.resolve_id("ffff")
    with pytest.raises(NotFoundError, match="No conversation id given"):
        store.resolve_id("  ")


def test_resolve_id_prefers_an_exact_match(store: Store) -> None:
    store.create_conversation(conversation("abc"))
    store.create_conversation(conversation("abcd"))
    assert store.resolve_id("abc") == "abc"


def test_missing_conversation_is_one_sentence(store: Store) -> None:
    with pytest.raises(NotFoundError, match="tui-chat history") as info:
        store.get_conversation("nope")
    assert info.value.exit_code == 2


def test_rename_makes_title_one_trimmed_line(store: Store) -> None:
    store.create_conversation(conversation())
    renamed = store.rename_conversation("a" * 32, "  new\n title\x1b[31m  ")
    assert renamed.title == "new title[31m"
    with pytest.raises(StoreError, match="empty"):
        store.rename_conversation("a" * 32, " \n ")
    with pytest.raises(NotFoundError):
        store.rename_conversation("b" * 32, "x")


def test_update_conversation_saves_fields(store: Store) -> None:
    original = store.create_conversation(conversation())
    original.system_prompt = "new prompt"
    original.parameters = Parameters(max_tokens=5)
    original.model = "other"
    store.update_conversation(original)
    assert store.get_conversation(original.id) == original


def test_delete_conversation_removes_its_messages_and_search_entries(store: Store) -> None:
    store.create_conversation(conversation())
    store.add_message(Message(conversation_id="a" * 32, role=Role.USER, content="findable"))
    store.delete_conversation("a" * 32)
    assert store.count_conversations() == 0
    assert store.get_messages("a" * 32) == []
    assert store.search("findable") == []
    with pytest.raises(NotFoundError):
        store.delete_conversation("a" * 32)


def test_paging_from_the_bottom(store: Store) -> None:
    store.create_conversation(conversation())
    ids = [store.add_message(Message(conversation_id="a" * 32, role=Role.USER,
                                     content=str(i))).id for i in range(10)]
    last = store.get_messages("a" * 32, limit=3)
    assert [m.content for m in last] == ["7", "8", "9"]
    before = store.get_messages("a" * 32, limit=3, before_id=ids[7])
    assert [m.content for m in before] == ["4", "5", "6"]
    assert [m.content for m in store.get_messages("a" * 32, before_id=ids[2])] == ["0", "1"]
    assert store.count_messages("a" * 32) == 10


def test_delete_subtree_removes_that_one_and_every_later_one(store: Store) -> None:
    store.create_conversation(conversation())
    ids = [store.add_message(Message(conversation_id="a" * 32, role=Role.USER,
                                     content=f"m{i}")).id for i in range(5)]
    deleted, _change = store.delete_subtree(ids[2])
    assert deleted == ids[2:]
    assert [m.id for m in store.get_messages("a" * 32)] == ids[:2]
    with pytest.raises(NotFoundError):
        store.delete_subtree(ids[3])


def test_update_message_rewrites_one_row(store: Store) -> None:
    store.create_conversation(conversation())
    message = store.add_message(Message(conversation_id="a" * 32, role=Role.ASSISTANT,
                                        status=MessageStatus.STREAMING))
    message.content, message.status = "done now", MessageStatus.COMPLETE
    message.usage = Usage(completion_tokens=3)
    store.update_message(message)
    assert store.get_message(message.id) == message
    ghost = Message(conversation_id="a" * 32, role=Role.USER)
    with pytest.raises(NotFoundError):
        store.update_message(ghost)


def test_duplicate_ids_are_refused_with_a_sentence(store: Store) -> None:
    store.create_conversation(conversation())
    with pytest.raises(StoreError, match="duplicate"):
        store.create_conversation(conversation())


def test_threads_can_share_one_store(store: Store) -> None:
    store.create_conversation(conversation())

    def write(n: int) -> None:
        for i in range(50):
            store.add_message(Message(conversation_id="a" * 32, role=Role.USER,
                                      content=f"{n}-{i}"))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert store.count_messages("a" * 32) == 200


# -- crash recovery: streaming rows whose writer is gone become interrupted -------------------

def _streaming(store: Store) -> Message:
    store.create_conversation(conversation())
    return store.add_message(Message(conversation_id="a" * 32, role=Role.ASSISTANT,
                                     content="partial", status=MessageStatus.STREAMING))


def _set_writer(path: Path, pid: int, host: str, heartbeat: float) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE messages SET writer_pid=?, writer_host=?, heartbeat=?",
                     (pid, host, heartbeat))


def test_reply_of_a_dead_process_is_interrupted_on_open(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store.open(path) as first:
        message = _streaming(first)
        host = first._host
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    _set_writer(path, int(dead.stdout), host, time.time())
    with Store.open(path) as second:
        recovered = second.get_message(message.id)
    assert recovered.status == MessageStatus.INTERRUPTED
    assert recovered.content == "partial"
    assert recovered.error == INTERRUPTED_NOTE


def test_reply_of_a_live_process_is_left_streaming(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store.open(path) as first:
        message = _streaming(first)
        with Store.open(path) as second:  # same live pid: another window of this app
            assert second.recover_interrupted() == 0
            assert second.get_message(message.id).status == MessageStatus.STREAMING


def test_reply_with_an_expired_lease_is_interrupted(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store.open(path) as first:
        message = _streaming(first)
    _set_writer(path, os.getpid(), "another-host",
                time.time() - store_module.LEASE_SECONDS - 5)
    with Store.open(path) as second:
        assert second.get_message(message.id).status == MessageStatus.INTERRUPTED


def test_reply_of_a_live_process_on_another_host_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store.open(path) as first:
        message = _streaming(first)
    _set_writer(path, 999_999_999, "another-host", time.time())
    with Store.open(path) as second:
        assert second.get_message(message.id).status == MessageStatus.STREAMING


OLD_COUNTED_LIST = (  # list_conversations before counts were grouped: the reference
    "SELECT id, title, (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) "
    "FROM conversations c ORDER BY updated DESC LIMIT ? OFFSET ?")


def test_uncounted_list_and_grouped_counts_match_the_counted_list(store: Store) -> None:
    """Counts mean every message of the conversation on every branch, deleted ones gone."""
    for index in range(4):
        store.create_conversation(conversation(f"{index:032x}", minutes=index, title=f"c{index}"))
    cid = f"{1:032x}"
    ids = [store.add_message(Message(conversation_id=cid, role=Role.USER, content=f"m{i}")).id
           for i in range(6)]
    store.add_message(Message(conversation_id=cid, role=Role.ASSISTANT, content="other",
                              parent_id=ids[2]))  # a second branch at ids[2]
    store.delete_subtree(ids[4])  # ids[4] and ids[5]: deleted
    store.add_message(Message(conversation_id=f"{3:032x}", role=Role.USER, content="x"))
    reference = store._conn.execute(OLD_COUNTED_LIST, (-1, 0)).fetchall()
    uncounted = store.list_conversations(limit=-1, counted=False)
    counts = store.message_counts([summary.id for summary in uncounted])
    assert [(s.id, s.title, counts[s.id]) for s in uncounted] == [tuple(r) for r in reference]
    assert counts[cid] == 5 and counts[f"{0:032x}"] == 0
    counted = store.list_conversations(limit=-1)
    assert [s.message_count for s in counted] == [r[2] for r in reference]
    assert {s.message_count for s in uncounted} == {None}
    assert store.message_counts(["f" * 32]) == {"f" * 32: 0}
    beyond_one_batch = store.message_counts([f"{i:032x}" for i in range(600)])
    assert len(beyond_one_batch) == 600 and sum(beyond_one_batch.values()) == 6
    assert beyond_one_batch[cid] == 5 and beyond_one_batch[f"{599:032x}"] == 0
