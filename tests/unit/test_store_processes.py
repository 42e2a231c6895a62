"""Real processes against one store: a SIGKILL mid-stream, and two writers at once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.models import MessageStatus, Role
from tui_chat.core.store import INTERRUPTED_NOTE, Store

WORDS = [f"word{i} " for i in range(400)]
PROMPT = "Tell me a long story"


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


@pytest.mark.slow
def test_sigkill_mid_stream_leaves_the_partial_reply_marked_interrupted(
        tmp_path: Path, chutes_server: FakeProvider) -> None:
    db = tmp_path / "store.sqlite3"
    chutes_server.script(Reply(stream_of(WORDS), delay=0.02))  # about 8 s in all
    env = {**os.environ, "TUI_CHAT_DB": str(db), "CHUTES_BASE_URL": chutes_server.url,
           "CHUTES_API_KEY": "cpk_test"}
    process = subprocess.Popen([sys.executable, "-m", "tui_chat", "ask", "-m", "m", PROMPT],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        seen = _partial_reply(db)
        while time.monotonic() < deadline and not (seen and len(seen[1]) > 30):
            time.sleep(0.05)
            seen = _partial_reply(db)
        assert seen is not None and seen[0] == "streaming", seen
        # Another process opening the store meanwhile leaves a live writer's reply alone.
        with Store.open(db) as onlooker:
            conversation = onlooker.latest_conversation()
            assert conversation is not None
            assert onlooker.get_messages(conversation.id)[-1].status == MessageStatus.STREAMING
        assert process.poll() is None, "the reply finished before the kill; slow it down"
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.communicate(timeout=10)
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


WRITER = """
import sys, time
from pathlib import Path
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store

path, name, start = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
while time.time() < start:
    time.sleep(0.001)
began = time.time()
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
print(began, time.time())
"""


@pytest.mark.slow
def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "shared.sqlite3"  # does not exist yet: both create and migrate it at once
    start = time.time() + 1.0
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), name, str(start)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for name in ("alpha", "beta")]
    spans = []
    for writer in writers:
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
        began, ended = map(float, out.split())
        spans.append((began, ended))
    (a_start, a_end), (b_start, b_end) = spans
    assert a_start < b_end and b_start < a_end, "the writers did not overlap"

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
