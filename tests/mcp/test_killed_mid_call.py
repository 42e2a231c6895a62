"""SIGKILL during a running tool call: on reopen the call shows "interrupted before its
result", nothing runs again without a new approval, and continuing sends a result saying so.
A real subprocess (tests/mcp/kill_child.py) running the fault server's `slow` tool."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tests.fakeprovider import FakeProvider, Reply, stream_of, tool_call_stream
from tests.mcp.conftest import ROOT
from tests.mcp.kill_child import settings
from tui_chat.core.models import MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.core.tool_turns import INTERRUPTED_RESULT, tool_result_line, tool_status
from tui_chat.core.workspace import Workspace


def wait_for_file(path: Path) -> None:
    """Until `path` exists (a state, not a time: the bound only ends a broken test)."""
    deadline = time.monotonic() + 30
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def kill_mid_call(path: Path, url: str, markers: Path) -> None:
    """Run tests/mcp/kill_child.py on `path` and SIGKILL it once its tool runs."""
    env = {**os.environ, "CHUTES_BASE_URL": url,
           "CHUTES_API_KEY": "cpk_test-0001", "PYTHONPATH": ROOT}
    child = subprocess.Popen([sys.executable, "-m", "tests.mcp.kill_child", str(path)],
                             stdout=subprocess.PIPE, env=env, start_new_session=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == b"RUNNING\n"
        wait_for_file(markers / "marker.started")  # the tool is really running
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        with contextlib.suppress(ProcessLookupError):  # the tool server, if it outlived it
            os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=30)


class NeverAsked:
    async def confirm(self, question: str) -> bool:
        raise AssertionError(f"asked: {question}")

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        raise AssertionError(f"asked: {question}")


async def test_a_call_killed_mid_way_is_interrupted_and_never_run_again(
        chutes_server: FakeProvider, tmp_path: Path, markers: Path) -> None:
    path = tmp_path / "store.sqlite3"
    chutes_server.script(Reply(tool_call_stream([("faults__slow", "{}")], ids=["call_s"])))
    kill_mid_call(path, chutes_server.url, markers)
    with Store.open(path) as store:
        workspace = Workspace(settings(), store, env={
            "CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": "cpk_test-0001"})
        try:
            conversation = store.latest_conversation()
            assert conversation is not None
            _, _, tool = workspace.open_conversation(conversation.id)
            assert tool.role is Role.TOOL and tool.status is MessageStatus.INTERRUPTED
            assert tool_status(tool) == "interrupted"
            assert "interrupted before its result" in tool_result_line(tool)
            chutes_server.script(Reply(stream_of(["It was cut off; ask again."])))
            events = [e async for e in workspace.send("did it finish?", asker=NeverAsked())]
            assert events
            sent = [r.body for r in chutes_server.requests if r.method == "POST"][-1]
            assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "tool",
                                                             "user"]
            assert sent["messages"][2] == {"role": "tool", "tool_call_id": "call_s",
                                           "content": INTERRUPTED_RESULT}
            assert sent["messages"][1]["tool_calls"][0]["id"] == "call_s"
            assert workspace.session.messages()[-1].content == "It was cut off; ask again."
            assert tool.id == workspace.session.messages()[2].id  # nothing ran it again
            assert store.get_message(tool.id).status is MessageStatus.INTERRUPTED
        finally:
            await workspace.aclose()
