"""Real processes against one store: a SIGKILL mid-stream, and two writers at once.

Nothing here waits for a time: the fake provider holds the reply (a gate) until the test has
killed the writer, so the kill always lands mid-stream, and the two writers start and
interleave on files they write and wait for."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.models import MessageStatus, Role
from tui_chat.core.store import INTERRUPTED_NOTE, Store

WORDS = [f"word{i} " for i in range(400)]
PROMPT = "Tell me a long story"
HANG = 60.0  # seconds: a wait for a state ends in a failure, not a hung suite, after this
T = TypeVar("T")


def _partial_reply(db: Path) -> tuple[str, str] | None:
    """(status, content) of the newest assistant message, read without writing anything."""
    if not db.exists():
        return None
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        row = conn.execute("SELECT status, content FROM messages WHERE role = 'assistant' "
                           "ORDER BY seq DESC LIMIT 1").fetchone()
    except sqlite3.OperationalError:  # the schema is not there yet
        return None
    finally:
        conn.close()
    return (row[0], row[1]) if row else None


def _saved_partial(db: Path, longer_than: int) -> tuple[str, str] | None:
    seen = _partial_reply(db)
    return seen if seen is not None and len(seen[1]) > longer_than else None


def _wait_for(state: Callable[[], T | None], process: subprocess.Popen[bytes]) -> T:
    """Poll for `state` (not None) while `process` runs; the bound only turns a hang into a
    failure, it sizes nothing."""
    deadline = time.monotonic() + HANG
    while (found := state()) is None:
        assert process.poll() is None, process.communicate(timeout=10)
        assert time.monotonic() < deadline, "the state never came"
        time.sleep(0.02)
    return found


@pytest.mark.slow
def test_sigkill_mid_stream_leaves_the_partial_reply_marked_interrupted(
        tmp_path: Path, chutes_server: FakeProvider) -> None:
    db = tmp_path / "store.sqlite3"
    # The words come 20 ms apart (the session saves the partial reply while deltas arrive,
    # at most a second apart), and the reply is held before its end until the kill: it
    # cannot finish first, however slow or fast the machine.
    held = threading.Event()
    chutes_server.script(Reply(stream_of(WORDS), delay=0.02, gate=held,
                               gate_after=len(WORDS) + 1))
    env = {**os.environ, "TUI_CHAT_DB": str(db), "CHUTES_BASE_URL": chutes_server.url,
           "CHUTES_API_KEY": "cpk_test"}
    process = subprocess.Popen([sys.executable, "-m", "tui_chat", "ask", "-m", "m", PROMPT],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        seen = _wait_for(lambda: _saved_partial(db, longer_than=30), process)
        assert seen[0] == "streaming", seen
        # Another process opening the store meanwhile leaves a live writer's reply alone.
        with Store.open(db) as onlooker:
            conversation = onlooker.latest_conversation()
            assert conversation is not None
            assert onlooker.get_messages(conversation.id)[-1].status == MessageStatus.STREAMING
        assert process.poll() is None
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.communicate(timeout=10)
        held.set()
    assert process.returncode == -signal.SIGKILL

    with Store.open(db) as store:
        conversation = store.latest_conversation()
        assert conversation is not None and conversation.title == PROMPT
        user, reply = store.get_messages(conversation.id)
        assert (user.role, user.content) == (Role.USER, PROMPT)
        assert reply.status == MessageStatus.INTERRUPTED
        assert reply.error == INTERRUPTED_NOTE
        full = "".join(WORDS)
        assert reply.content.startswith(seen[1]) and full.startswith(reply.content)
        assert len(reply.content) < len(full)
        # Once interrupted it is searchable like any finished message.
        assert [hit.message_id for hit in store.search("word3 ")][:1] == [reply.id]

    shown = subprocess.run([sys.executable, "-m", "tui_chat", "show", conversation.id[:8]],
                           env=env, capture_output=True, text=True, timeout=30, check=False)
    assert shown.returncode == 0, shown.stderr
    assert "*[interrupted]" in shown.stdout and "word0 word1" in shown.stdout


@pytest.mark.slow
def test_a_reply_that_goes_quiet_is_saved_before_a_kill(
        tmp_path: Path, chutes_server: FakeProvider) -> None:
    """Ten words, then the provider goes quiet: what arrived is saved without waiting for
    more (it used to wait for the next delta, so a SIGKILL in the silence lost all of it
    and search missed the reply)."""
    db = tmp_path / "store.sqlite3"
    quiet = threading.Event()
    chutes_server.script(Reply(stream_of(WORDS), gate=quiet, gate_after=11))
    env = {**os.environ, "TUI_CHAT_DB": str(db), "CHUTES_BASE_URL": chutes_server.url,
           "CHUTES_API_KEY": "cpk_test"}
    process = subprocess.Popen([sys.executable, "-m", "tui_chat", "ask", "-m", "m", PROMPT],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    received = "".join(WORDS[:10])
    try:
        _wait_for(lambda: _saved_partial(db, longer_than=len(received) - 1), process)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.communicate(timeout=10)
        quiet.set()
    with Store.open(db) as store:
        conversation = store.latest_conversation()
        assert conversation is not None
        reply = store.get_messages(conversation.id)[-1]
        assert (reply.content, reply.status) == (received, MessageStatus.INTERRUPTED)
        assert [hit.message_id for hit in store.search("word3 ")] == [reply.id]


WRITER = """
import sys, time
from pathlib import Path
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store

path, name, other, folder = Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])


def wait_for(marker: str) -> None:
    deadline = time.monotonic() + 60  # a failure instead of a hang, if the other one died
    while not (folder / marker).exists():
        if time.monotonic() > deadline:
            sys.exit(f"{marker} never came")
        time.sleep(0.001)


(folder / f"{name}.ready").touch()
wait_for("go")
with Store.open(path) as store:
    for c in range(15):
        conversation = store.create_conversation(Conversation(title=f"{name} {c}"))
        for m in range(8):
            store.add_message(Message(conversation_id=conversation.id, role=Role.USER,
                                      content=f"{name} question {c}.{m} नमस्ते"))
            reply = store.add_message(Message(conversation_id=conversation.id,
                                              role=Role.ASSISTANT,
                                              status=MessageStatus.STREAMING))
            for k in range(3):
                reply.content += f"{name}-chunk{k} "
                store.update_message(reply)
            reply.status = MessageStatus.COMPLETE
            store.update_message(reply)
        if c == 0:  # each writes its first conversation before the other its second
            (folder / f"{name}.first").touch()
            wait_for(f"{other}.first")
"""


@pytest.mark.slow
def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    """Both open (and so create and migrate) the store when told to go, and their writes
    interleave by construction: each has written a conversation before the other goes on."""
    db = tmp_path / "shared.sqlite3"  # does not exist yet: both create and migrate it at once
    names = ("alpha", "beta")
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), name, other,
                                 str(tmp_path)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for name, other in zip(names, reversed(names), strict=True)]
    try:
        deadline = time.monotonic() + HANG
        while not all((tmp_path / f"{name}.ready").exists() for name in names):
            assert all(writer.poll() is None for writer in writers)
            assert time.monotonic() < deadline, "the writers never got ready"
            time.sleep(0.01)
        (tmp_path / "go").touch()
        for writer in writers:
            _out, err = writer.communicate(timeout=HANG)
            assert writer.returncode == 0, err
    finally:
        for writer in writers:
            if writer.poll() is None:
                writer.kill()
                writer.communicate()

    with Store.open(db) as store:
        assert store.notice is None
        summaries = store.list_conversations(limit=-1)
        assert sorted(s.title for s in summaries) == sorted(
            f"{name} {c}" for name in ("alpha", "beta") for c in range(15))
        for summary in summaries:
            name = summary.title.split()[0]
            messages = store.get_messages(summary.id)
            assert len(messages) == 16
            assert all(m.status == MessageStatus.COMPLETE for m in messages)
            replies = [m.content for m in messages if m.role == Role.ASSISTANT]
            assert replies == [f"{name}-chunk0 {name}-chunk1 {name}-chunk2 "] * 8
        assert len(store.search("alpha-chunk2", limit=1000)) == 120
        assert len(store.search("beta question नमस्ते", limit=1000)) == 120
        conn = store._conn
        assert [tuple(row) for row in conn.execute("PRAGMA integrity_check")] == [("ok",)]
        conn.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")
