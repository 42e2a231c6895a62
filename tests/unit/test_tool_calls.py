"""A reply that calls tools: tui-chat enables none, so the calls are kept as data
(`Message.tool_calls`: id, name, arguments), shown with a sentence that says tools are not
enabled for this conversation; the reply's `error` stays empty."""

from __future__ import annotations

from pathlib import Path

from tests.fakeprovider import FakeProvider, Reply, tool_call_stream
from tui_chat.core.config import Settings
from tui_chat.core.models import ToolCall
from tui_chat.core.session import ReplyFinished
from tui_chat.core.store import Store
from tui_chat.core.tool_calls import TOOLS_NOT_ENABLED, tool_call_lines
from tui_chat.core.workspace import Workspace

CALLS = [("get_weather", '{"city": "Paris"}'), ("search", '{"q": "नमस्ते"}')]


async def test_a_reply_with_tool_calls_keeps_them_and_says_tools_are_not_enabled(
        tmp_path: Path, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(tool_call_stream(CALLS)))
    env = {"CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": "cpk_tool-calls-0001"}
    with Store.open(tmp_path / "store.sqlite3") as store:
        workspace = Workspace(Settings(), store, env=env)
        events = [event async for event in workspace.send("weather?")]
        finished = [event.message for event in events if isinstance(event, ReplyFinished)]
        assert len(finished) == 1
        reply = finished[0]
        conversation = store.latest_conversation()
        assert conversation is not None
        saved = store.get_messages(conversation.id)[-1]
    assert reply.finish_reason == "tool_calls" and reply.content == ""
    for message in (reply, saved):
        assert message.tool_calls == [
            ToolCall(id="call_0", name="get_weather", arguments='{"city": "Paris"}'),
            ToolCall(id="call_1", name="search", arguments='{"q": "नमस्ते"}')]
        assert message.error is None
        shown = tool_call_lines(message)
        assert shown is not None
        head, calls = shown
        assert TOOLS_NOT_ENABLED in head and "2 tools" in head
        assert calls == ['get_weather({"city": "Paris"})', 'search({"q": "नमस्ते"})']


def test_an_ordinary_reply_has_no_tool_call_lines() -> None:
    from tui_chat.core.models import Message, Role

    message = Message(conversation_id="c", role=Role.ASSISTANT, content="hi",
                      finish_reason="stop", error="Something failed.")
    assert tool_call_lines(message) is None
