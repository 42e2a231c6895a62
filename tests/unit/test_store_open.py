"""Opening the store: migrations from the previous schema, and files that cannot be used."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import pytest

from tui_chat.core import store_file
from tui_chat.core.errors import StoreError
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.core.store_schema import SCHEMA_VERSION

# The schema as tui-chat version 1 of the store wrote it, kept literally so that a change to
# the migrations cannot silently change the fixture too.
V1_SCHEMA = """
CREATE TABLE conversations (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, created TEXT NOT NULL, updated TEXT NOT NULL,
    provider TEXT, model TEXT, system_prompt TEXT, parameters TEXT NOT NULL DEFAULT '{}',
    pinned INTEGER NOT NULL DEFAULT 0, archived INTEGER NOT NULL DEFAULT 0);
CREATE INDEX conversations_updated ON conversations(updated);
CREATE TABLE messages (
    seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role TEXT NOT NULL, content TEXT NOT NULL DEFAULT '', reasoning TEXT NOT NULL DEFAULT '',
    provider TEXT, model TEXT, status TEXT NOT NULL, error TEXT, finish_reason TEXT, usage TEXT,
    time_to_first_token REAL, tokens_per_second REAL, created TEXT NOT NULL);
CREATE INDEX messages_conversation ON messages(conversation_id, seq);
PRAGMA user_version = 1;
"""
T = "2025-06-01T10:00:00.000000+00:00"


def make_v1_store(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.executescript(V1_SCHEMA)
        conn.execute("INSERT INTO conversations VALUES (?,?,?,?,?,?,?,?,?,?)",
                     ("c1", "Old talk", T, T, "sutra", "sutra-v2", "Be kind",
                      '{"temperature": 0.3}', 0, 0))
        rows = [("m1", "user", "नमस्ते दुनिया", "complete", None),
                ("m2", "assistant", "வணக்கம் from the old version", "complete",
                 '{"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}'),
                ("m3", "assistant", "cut off mid", "streaming", None)]
        for mid, role, content, status, usage in rows:
            conn.execute("INSERT INTO messages (id, conversation_id, role, content, status, "
                         "usage, provider, model, created) VALUES (?,?,?,?,?,?,?,?,?)",
                         (mid, "c1", role, content, status, usage, "sutra", "sutra-v2", T))
    conn.close()


def test_a_previous_version_store_is_migrated_with_nothing_lost(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    make_v1_store(path)
    with Store.open(path) as store:
        assert store.notice is None
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        conversation = store.get_conversation("c1")
        assert (conversation.title, conversation.system_prompt) == ("Old talk", "Be kind")
        assert conversation.parameters.temperature == 0.3
        messages = store.get_messages("c1")
        assert [m.id for m in messages] == ["m1", "m2", "m3"]
        assert messages[1].usage is not None and messages[1].usage.total_tokens == 7
        # A reply left streaming by the old version has no writer: it was cut off.
        assert messages[2].status == MessageStatus.INTERRUPTED
        assert messages[2].content == "cut off mid"
        # Old messages are searchable after the migration built the index.
        assert [h.message_id for h in store.search("नमस्ते")] == ["m1"]
        assert [h.message_id for h in store.search("வணக்கம்")] == ["m2"]
        assert [h.message_id for h in store.search("cut off")] == ["m3"]
        # And the migrated store takes new writes.
        store.add_message(Message(conversation_id="c1", role=Role.USER, content="new one"))
        assert [h.conversation_id for h in store.search("new one")] == ["c1"]


def test_migrating_twice_is_harmless(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    make_v1_store(path)
    Store.open(path).close()
    with Store.open(path) as store:
        assert len(store.search("नमस्ते")) == 1


def test_an_empty_file_becomes_a_fresh_store(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.write_bytes(b"")
    with Store.open(path) as store:
        assert store.notice is None
        store.create_conversation(Conversation())
        assert store.count_conversations() == 1


def _broken_files(folder: Path, name: str) -> list[Path]:
    """The moved-aside store files, without their -wal/-shm sidecars."""
    return sorted(p for p in folder.glob(f"{name}.broken-*")
                  if not p.name.endswith(("-wal", "-shm")))


def test_garbage_is_moved_aside_with_its_sidecars_and_a_fresh_store_started(
        tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    garbage = b"this is not a database at all\n" * 200
    path.write_bytes(garbage)
    Path(f"{path}-wal").write_bytes(b"stale wal")
    with Store.open(path) as store:
        assert store.notice is not None
        main = _broken_files(tmp_path, "store.sqlite3")
        assert len(main) == 1 and main[0].read_bytes() == garbage
        assert Path(f"{main[0]}-wal").read_bytes() == b"stale wal"
        assert str(path) in store.notice and str(main[0]) in store.notice
        assert "new, empty one" in store.notice
        assert store.count_conversations() == 0
        store.create_conversation(Conversation())


def test_a_truncated_store_is_moved_aside_not_deleted(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    with Store.open(path) as store:
        conversation = store.create_conversation(Conversation())
        for index in range(200):
            store.add_message(Message(conversation_id=conversation.id, role=Role.USER,
                                      content=f"message {index} " * 50))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with Store.open(path) as store:
        assert store.notice is not None and "moved to" in store.notice
        assert store.count_conversations() == 0
    (moved,) = _broken_files(tmp_path, "store.sqlite3")
    assert moved.read_bytes() == data[: len(data) // 2]


def test_a_newer_schema_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    with Store.open(path) as store:
        store.create_conversation(Conversation(title="keep me"))
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError) as info:
        Store.open(path)
    message = str(info.value)
    assert "newer tui-chat" in message and "upgrade tui-chat" in message and str(path) in message
    assert info.value.exit_code == 8
    assert path.read_bytes() == before
    assert _broken_files(tmp_path, "store.sqlite3") == []


def test_another_programs_database_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.close()
    with Store.open(path) as store:
        assert store.notice is not None and "another program" in store.notice
    (moved,) = _broken_files(tmp_path, "store.sqlite3")
    with sqlite3.connect(moved) as conn:
        assert conn.execute("SELECT count(*) FROM recipes").fetchone() == (0,)
    conn.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_an_unwritable_folder_is_reported_not_moved(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(StoreError, match="permissions"):
            Store.open(folder / "store.sqlite3")
    finally:
        folder.chmod(0o700)


def test_a_folder_in_the_way_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="Cannot create the folder"):
        Store.open(blocker / "store.sqlite3")
    assert blocker.read_text() == "x"


def test_a_store_another_process_already_replaced_is_not_moved_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two instances find the same damaged file: the second must not move aside the fresh
    store the first has just started."""
    path = tmp_path / "store.sqlite3"
    path.write_bytes(b"garbage " * 100)
    real_check = store_file._check_and_migrate
    calls = 0

    def check_while_another_process_recovers(conn: sqlite3.Connection, where: Path
                                             ) -> list[str]:
        nonlocal calls
        calls += 1
        if calls == 1:
            path.rename(tmp_path / "moved-by-the-other-process")
            Store.open(path).close()  # the other process's fresh store
        return real_check(conn, where)

    monkeypatch.setattr(store_file, "_check_and_migrate", check_while_another_process_recovers)
    with Store.open(path) as store:
        assert store.notice is not None
        assert "another tui-chat process moved it aside" in store.notice
    assert _broken_files(tmp_path, "store.sqlite3") == []
    assert (tmp_path / "moved-by-the-other-process").read_bytes() == b"garbage " * 100


def test_a_store_created_between_two_reads_is_not_taken_for_a_foreign_one(
    tmp_path: Path,
) -> None:
    """Another process may create the store while this one checks it: the version and the
    tables must be read in one snapshot, or version 0 with tables looks like another
    program's database and a fresh, in-use store gets moved aside."""
    from tui_chat.core import store_file
    from tui_chat.core.store_schema import migrate

    path = tmp_path / "racing.sqlite3"

    outcomes: list[str] = []

    class Interleaved(sqlite3.Connection):
        raced = False

        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:  # type: ignore[override]
            if sql.startswith("SELECT name FROM sqlite_master") and not Interleaved.raced:
                # Between the version's read and the tables' read, the other process creates
                # the store. It does not wait for a lock (timeout 0): given one snapshot, our
                # read transaction holds the file and its commit is refused at once; read
                # apart, nothing holds it and it succeeds. Either way, the race is decided
                # by the locks alone, not by how fast either side runs.
                Interleaved.raced = True
                racer.start()
                racer.join()
            return super().execute(sql, *args)

    def create_elsewhere() -> None:
        other = sqlite3.connect(path, isolation_level=None, timeout=0)
        try:
            migrate(other, 0)
            outcomes.append("created")
        except sqlite3.OperationalError as error:
            outcomes.append(str(error))
        finally:
            other.close()

    racer = threading.Thread(target=create_elsewhere)

    conn = sqlite3.connect(path, isolation_level=None, timeout=5, factory=Interleaved)
    try:
        store_file._check_and_migrate(conn, path)
    finally:
        conn.close()
    assert Interleaved.raced
    assert outcomes == ["database is locked"]  # it had to wait for our snapshot to end
    assert [p.name for p in tmp_path.iterdir() if "broken" in p.name] == []
