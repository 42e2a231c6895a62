"""Tool calls in exports: JSON carries `tool_calls` and `tool_call_id` both ways, an export
from before them (the calls as a note in `error`) imports as the field, Markdown shows them."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tui_chat.core import export
from tui_chat.core.errors import UsageError
from tui_chat.core.models import Conversation, Message, MessageStatus, Role, ToolCall
from tui_chat.core.store import Store

T0 = datetime(2026, 12, 1, 8, 0, 0, 123456, tzinfo=UTC)
CALLS = [ToolCall(id="call_0", name="get_weather", arguments='{"city": "Paris"}'),
         ToolCall(id="call_1", name="run", arguments='{"code": "print(```)"}\n')]
NOTE = ("The model asked to call a tool (get_weather), but tools are not enabled for this "
        "conversation, so none was run.\nget_weather({\"city\": \"Paris\"})")


def fill(store: Store) -> str:
    """A reply with two calls, and a tool message answering the first."""
    conversation = store.create_conversation(Conversation(id="7" * 32, title="Tools"))
    store.add_message(Message(id="t1", conversation_id=conversation.id, role=Role.USER,
                              content="weather?", created=T0))
    store.add_message(Message(id="t2", conversation_id=conversation.id, role=Role.ASSISTANT,
                              provider="chutes", model="m", finish_reason="tool_calls",
                              tool_calls=CALLS, created=T0 + timedelta(seconds=1)))
    store.add_message(Message(id="t3", conversation_id=conversation.id, role=Role.TOOL,
                              content='{"temperature": 21}', tool_call_id="call_0",
                              created=T0 + timedelta(seconds=2)))
    return conversation.id


def test_json_carries_tool_calls_and_tool_results_both_ways(source: Store, target: Store,
                                                            tmp_path: Path) -> None:
    cid = fill(source)
    text = export.export_json(source, [cid])
    messages = json.loads(text)["conversations"][0]["messages"]
    assert messages[1]["tool_calls"] == [
        {"id": "call_0", "name": "get_weather", "arguments": '{"city": "Paris"}'},
        {"id": "call_1", "name": "run", "arguments": '{"code": "print(```)"}\n'}]
    assert messages[1]["error"] is None
    assert messages[2]["role"] == "tool" and messages[2]["tool_call_id"] == "call_0"
    path = tmp_path / "export.json"
    path.write_text(text, encoding="utf-8")
    export.import_file(target, path)
    assert target.get_messages(cid) == source.get_messages(cid)
    assert target.get_message("t2").tool_calls == CALLS
    assert target.get_message("t3").tool_call_id == "call_0"


def test_an_export_from_before_the_field_imports_its_note_as_calls(target: Store,
                                                                  tmp_path: Path) -> None:
    document = {"format": "tui-chat-conversations", "version": 2, "conversations": [{
        "id": "8" * 32, "title": "Old", "created": T0.isoformat(), "updated": T0.isoformat(),
        "messages": [
            {"id": "o1", "role": "user", "content": "weather?", "created": T0.isoformat()},
            {"id": "o2", "parent_id": "o1", "role": "assistant", "status": "complete",
             "error": NOTE, "finish_reason": "tool_calls", "created": T0.isoformat()},
            {"id": "o3", "parent_id": "o1", "role": "assistant", "status": "error",
             "error": "No quota (402).", "created": T0.isoformat()}]}]}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    export.import_file(target, path)
    reply = target.get_message("o2")
    assert reply.tool_calls == [ToolCall(name="get_weather", arguments='{"city": "Paris"}')]
    assert reply.error is None and reply.status is MessageStatus.COMPLETE
    assert target.get_message("o3").error == "No quota (402)."


def test_a_tool_result_must_name_its_call_as_text(target: Store, tmp_path: Path) -> None:
    document = {"format": "tui-chat-conversations", "version": 2, "conversations": [{
        "id": "9" * 32, "title": "Bad", "created": T0.isoformat(), "updated": T0.isoformat(),
        "messages": [{"id": "b1", "role": "assistant", "created": T0.isoformat(),
                      "tool_calls": [{"id": 5, "name": "f", "arguments": "{}"}]}]}]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(UsageError, match="tool_calls"):
        export.import_file(target, path)
    assert target.list_conversations() == []


def test_markdown_shows_each_call_and_the_tool_result(source: Store) -> None:
    cid = fill(source)
    text = export.export_markdown(source, [cid])
    # A tool message answers the reply: its calls were run, and the sentence says so.
    assert "*The model called 2 tools (get_weather, run).*" in text
    assert '`get_weather`\n\n```json\n{"city": "Paris"}\n```' in text
    # Arguments holding a fence get a longer one: the block cannot end early.
    assert '`run`\n\n````json\n{"code": "print(```)"}\n\n````' in text
    assert "## Tool · " in text and "*Result of the call call_0 · ok*" in text
