"""Issue 6 across processes: the app is SIGKILLed mid-stream and started again (the conversation
and the partial reply are there, marked interrupted); two app instances write to the same
store at once (nothing lost, nothing corrupted)."""

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
from tests.faults.pilot import wait_idle
from tests.ui.conftest import conversation, rendered_text
from tui_chat.commands.app import build_services
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.session import ChatSession, ReplyFinished, UserMessageSaved
from tui_chat.core.store import Store
from tui_chat.ui.app import TuiChatApp
from tui_chat.ui.widgets.message_view import MessageView

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(tmp_path: Path, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment of `tui-chat` for both the subprocesses and this process."""
    values = {"TUI_CHAT_DB": str(tmp_path / "store.sqlite3"),
              "TUI_CHAT_CONFIG": str(tmp_path / "config.toml"),
              "CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": "test-key-proc-0000"}
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    return {**os.environ, **values, "PYTHONPATH": str(ROOT)}


def driver(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "tests.faults.app_driver", *args], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def pause(seconds: float) -> None:
    time.sleep(seconds)  # the app runs in another process: nothing to keep responsive here


def saved_reply(db: Path) -> tuple[str, str] | None:
    """(content, status) of the last assistant message, read without Store (no recovery)."""
    if not db.exists():
        return None
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as raw:
        try:
            row = raw.execute("SELECT content, status FROM messages WHERE role = 'assistant' "
                              "ORDER BY seq DESC LIMIT 1").fetchone()
        except sqlite3.OperationalError:  # the schema is still being created
            row = None
    raw.close()
    return (row[0], row[1]) if row else None


@pytest.mark.slow
async def test_sigkill_mid_stream_then_restart_shows_the_partial_reply(
        env: dict[str, str], chutes_server: FakeProvider) -> None:
    words = [f"word{i} " for i in range(400)]
    # Held before its end until the kill: it cannot finish first, however slow the machine.
    held = threading.Event()
    chutes_server.script(Reply(stream_of(words), delay=0.02, gate=held,
                               gate_after=len(words) + 1))
    process = driver(env, "tell me a long story", "--hold")
    db = Path(env["TUI_CHAT_DB"])
    try:
        deadline = time.monotonic() + 30
        while not ((reply := saved_reply(db)) and reply[0].count("word") >= 3):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no partial reply saved in time"
            pause(0.05)
        assert reply[1] == "streaming"
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
        held.set()
    _, stderr = process.communicate()
    assert process.returncode == -signal.SIGKILL and "Traceback" not in stderr
    partial = saved_reply(db)
    assert partial is not None and partial[0] and partial[1] == "streaming"

    services = build_services()  # as `tui-chat --continue` does
    app = TuiChatApp(services, continue_last=True)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            views = conversation(app).query(MessageView)
            user, reply_view = views[-2], views[-1]
            assert (user.message.role, user.message.content) == (Role.USER,
                                                                 "tell me a long story")
            assert reply_view.message.status is MessageStatus.INTERRUPTED
            assert reply_view.message.content.startswith(partial[0])
            assert "words" not in reply_view.message.content  # what arrived, nothing more
            shown = rendered_text(reply_view)
            assert "interrupted" in shown and "word0 word1 word2" in shown
            # The conversation goes on.
            chutes_server.script(Reply(stream_of(["continuing"])))
            conversation(app).prompt.insert("go on")
            await pilot.press("enter")
            await wait_idle(pilot)
            assert conversation(app).query(MessageView)[-1].message.content == "continuing"
            sent = chutes_server.requests[-1].body["messages"]
            # Cut off by the crash, the partial reply stays on screen but is not context
            # (issue 11), and with it its prompt (issue 25: two user turns in a row are
            # refused by strict models): the model sees this one.
            assert [(m["role"], m["content"]) for m in sent] == [("user", "go on")]
            await pilot.press("ctrl+q")
    finally:
        services.store.close()


@pytest.mark.slow
def test_two_app_instances_write_to_the_same_store(env: dict[str, str],
                                                   chutes_server: FakeProvider) -> None:
    db = Path(env["TUI_CHAT_DB"])
    with Store.open(db) as store:
        chat = store.create_conversation(Conversation(title="shared"))
        store.add_message(Message(conversation_id=chat.id, role=Role.USER, content="start",
                                  status=MessageStatus.COMPLETE))
    count = 6
    # Echo replies (the fake provider's default) trickle in a word every 10 ms, so the two
    # instances' flushes and inserts interleave.
    first = driver(env, *[f"alpha {i}" for i in range(count)], "--continue")
    second = driver(env, *[f"beta {i}" for i in range(count)], "--continue")
    outputs = [process.communicate(timeout=120) for process in (first, second)]
    for process, (stdout, stderr) in zip((first, second), outputs, strict=True):
        assert process.returncode == 0, stderr
        assert "Traceback" not in stderr and stdout.count("done") == count
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    raw.close()
    with Store.open(db) as store:
        messages = store.get_messages(chat.id, limit=1000)
    prompts = [m.content for m in messages if m.role is Role.USER]
    replies = {m.content for m in messages if m.role is Role.ASSISTANT}
    expected = {f"{name} {i}" for name in ("alpha", "beta") for i in range(count)}
    assert sorted(prompts) == sorted(["start", *expected])
    assert replies == {f"Hello! You said: {p}" for p in expected}
    assert all(m.status is MessageStatus.COMPLETE for m in messages)
    # Each instance's prompts are in the order it sent them.
    for name in ("alpha", "beta"):
        mine = [p for p in prompts if p.startswith(name)]
        assert mine == [f"{name} {i}" for i in range(count)]


async def test_each_instance_sends_its_own_prompt_last(env: dict[str, str],
                                                      chutes_server: FakeProvider) -> None:
    """The deterministic core of the test above: another instance's prompt, saved between ours
    and the request, is not sent as if it were the question being answered."""
    db = Path(env["TUI_CHAT_DB"])
    with Store.open(db) as one, Store.open(db) as two:
        chat = one.create_conversation(Conversation(title="shared"))
        provider = Settings().resolve_provider("chutes")
        client = ProviderClient(provider, "test-key-proc-0000")
        ours = ChatSession.resume(one, chat.id).send("alpha", client=client, model="m")
        assert isinstance(await anext(ours), UserMessageSaved)
        theirs = ChatSession.resume(two, chat.id).send("beta", client=client, model="m")
        assert isinstance(await anext(theirs), UserMessageSaved)
        events = [event async for event in ours]
        await theirs.aclose()
        await client.aclose()
    assert isinstance(events[-1], ReplyFinished)
    assert events[-1].message.content == "Hello! You said: alpha"
    sent = [r.body["messages"] for r in chutes_server.requests if r.method == "POST"]
    assert [m["content"] for m in sent[0]] == ["alpha"]
