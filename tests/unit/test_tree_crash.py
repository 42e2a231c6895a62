"""A SIGKILL during a regenerate or a compare: the earlier branches are intact and every partial
reply is there, marked interrupted (a real process against a real store).

The fake provider holds each reply before its end until the writer is killed (a gate): the
kill always lands mid-stream, whatever the machine's speed; the test waits for the partial
replies in the store, not for a time."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import INTERRUPTED_NOTE, Store

CID = "k" * 32
WORDS = [f"word{i} " for i in range(400)]
HANG = 60.0

DRIVER = """
import asyncio, sys
from pathlib import Path
from tui_chat.core.client import ProviderClient
from tui_chat.core.compare import CompareTarget, compare
from tui_chat.core.config import Settings
from tui_chat.core.session import ChatSession
from tui_chat.core.store import Store

async def main(db: str, cid: str, url: str, mode: str) -> None:
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": url})
    with Store.open(Path(db)) as store:
        session = ChatSession.resume(store, cid, flush_interval=0.1)
        async with ProviderClient(provider, "cpk_test", max_retries=0) as client:
            if mode == "regenerate":
                events = session.regenerate(client=client, model="m2")
            else:
                events = compare(session, "and again", [CompareTarget(client, "m3"),
                                                        CompareTarget(client, "m4")])
            async for _ in events:
                pass

asyncio.run(main(*sys.argv[1:]))
"""


def _streaming_texts(db: Path) -> list[str]:
    """The text of every reply still marked streaming, read without writing anything."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        rows = conn.execute("SELECT content FROM messages WHERE status = 'streaming' "
                            "ORDER BY seq").fetchall()
    finally:
        conn.close()
    return [row[0] for row in rows]


def _conversation(db: Path) -> None:
    with Store.open(db) as store:
        store.create_conversation(Conversation(id=CID, title="crash"))
        for mid, role, text in (("q1", Role.USER, "tell me"), ("a1", Role.ASSISTANT,
                                                                "the original answer")):
            store.add_message(Message(id=mid, conversation_id=CID, role=role, content=text,
                                      provider="chutes", model="m1"))


def _held(server: FakeProvider, replies: int) -> threading.Event:
    """Script `replies` replies of WORDS, 20 ms apart (the driver saves the partial replies
    every 0.1 s while deltas arrive), each held before its end until the returned event."""
    held = threading.Event()
    server.script(*(Reply(stream_of(WORDS), delay=0.02, gate=held, gate_after=len(WORDS) + 1)
                    for _ in range(replies)))
    return held


def _kill_when_streaming(db: Path, server: FakeProvider, mode: str, replies: int) -> list[str]:
    held = _held(server, replies)
    process = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(db), CID, server.url, mode],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + HANG  # a failure instead of a hang; it sizes nothing
        seen = _streaming_texts(db)
        while not (len(seen) == replies and all(len(text) > 30 for text in seen)):
            assert process.poll() is None and time.monotonic() < deadline, seen
            time.sleep(0.05)
            seen = _streaming_texts(db)
        assert process.poll() is None
    finally:
        os.kill(process.pid, signal.SIGKILL)
        _out, err = process.communicate(timeout=10)
        held.set()
    assert process.returncode == -signal.SIGKILL, err
    return seen


def _assert_the_first_branch_is_intact(store: Store) -> None:
    original = store.get_message("a1")
    assert (original.content, original.status) == ("the original answer",
                                                   MessageStatus.COMPLETE)
    assert original.parent_id == "q1"


@pytest.mark.slow
def test_sigkill_during_a_regenerate(tmp_path: Path, chutes_server: FakeProvider) -> None:
    db = tmp_path / "store.sqlite3"
    _conversation(db)
    seen = _kill_when_streaming(db, chutes_server, "regenerate", 1)
    with Store.open(db) as store:
        _assert_the_first_branch_is_intact(store)
        user, reply = store.get_messages(CID)  # the new branch is the active one
        assert user.id == "q1" and reply.id != "a1"
        assert (reply.status, reply.error, reply.model) == (MessageStatus.INTERRUPTED,
                                                            INTERRUPTED_NOTE, "m2")
        assert reply.content.startswith(seen[0]) and "".join(WORDS).startswith(reply.content)
        assert not reply.partial_in_context  # a crash is not a stop by the user
        assert store.siblings(reply.id).ids == ("a1", reply.id)


@pytest.mark.slow
def test_sigkill_during_a_compare(tmp_path: Path, chutes_server: FakeProvider) -> None:
    db = tmp_path / "store.sqlite3"
    _conversation(db)
    _kill_when_streaming(db, chutes_server, "compare", 2)
    with Store.open(db) as store:
        _assert_the_first_branch_is_intact(store)
        path = store.get_messages(CID)
        assert [m.id for m in path[:2]] == ["q1", "a1"] and path[2].content == "and again"
        replies = [store.get_message(i) for i in store.children(CID, path[2].id)]
        assert sorted(m.model or "" for m in replies) == ["m3", "m4"]
        for reply in replies:
            assert reply.status is MessageStatus.INTERRUPTED
            assert reply.content.startswith("word0 word1 ")
