"""Schema 7 on a store written by tui-chat at 8760940 (tests/fixtures/store-v6.sqlite3, see
make_store_v6.py.txt): `messages.tool_run` is added, every message kept as it was, and a tool
message's run is written and read back."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from tui_chat.core.models import Message, MessageStatus, Role, ToolRun
from tui_chat.core.store import Store
from tui_chat.core.store_schema import SCHEMA_VERSION

FIXTURE_V6 = Path(__file__).parent.parent / "fixtures" / "store-v6.sqlite3"


def test_a_schema_6_store_gains_tool_run_and_keeps_its_messages(tmp_path: Path) -> None:
    path = tmp_path / "v6.sqlite3"
    shutil.copy(FIXTURE_V6, path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 6
        before = conn.execute("SELECT id, role, content, tool_calls, tool_call_id "
                              "FROM messages ORDER BY seq").fetchall()
    with Store.open(path) as store:
        conversation = store.latest_conversation()
        assert conversation is not None
        path_now = store.get_messages(conversation.id)
        assert [(m.id, m.role.value, m.content, m.tool_call_id) for m in path_now] == [
            (row[0], row[1], row[2], row[4]) for row in before]
        tool = next(m for m in path_now if m.role is Role.TOOL)
        assert tool.tool_call_id == "call_k" and tool.tool_run is None
        assert path_now[1].tool_calls[0].id == "call_k"
        run = ToolRun(status="ok", name="time__get_current_time", server="time", seconds=0.25)
        added = Message(conversation_id=conversation.id, parent_id=path_now[-1].id,
                        role=Role.TOOL, tool_call_id="call_x", content="12:00",
                        status=MessageStatus.COMPLETE, tool_run=run)
        store.add_message(added)
        assert store.get_message(added.id).tool_run == run
        added.tool_run = ToolRun(status="denied", name="time__x", server="time")
        store.update_message(added)
        assert store.get_message(added.id).tool_run == added.tool_run
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
