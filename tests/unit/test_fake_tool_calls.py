"""The fake provider streams tool calls as the seed's chunk schema describes, and answers a
request whose last message is a tool result; the client's fragments join into the calls."""

from __future__ import annotations

import json

import httpx

from tests.fakeprovider import FakeProvider, Reply, tool_call_stream
from tests.unit.test_client import collect, make_client
from tui_chat.core.events import FinishReason, ToolCallDelta
from tui_chat.core.tool_calls import ToolCalls

CALLS = [("time__get_current_time", '{"timezone": "Asia/Kolkata"}'),
         ("search__web", '{"q": "नमस्ते \\"quoted\\""}')]


async def test_several_calls_stream_in_fragments_and_join(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(tool_call_stream(CALLS, text="Let me look.", pieces=5,
                                                ids=["call_a", "call_b"])))
    async with make_client(chutes_server) as client:
        events = await collect(client)
    fragments = [event for event in events if isinstance(event, ToolCallDelta)]
    assert [f.index for f in fragments] == [0] * 6 + [1] * 6  # a head, then five pieces
    heads = [f for f in fragments if f.name]
    assert [(f.index, f.id, f.name) for f in heads] == [
        (0, "call_a", "time__get_current_time"), (1, "call_b", "search__web")]
    assert all(f.id is None and f.name is None for f in fragments if not f.name)
    for index, (_, arguments) in enumerate(CALLS):
        joined = "".join(f.arguments or "" for f in fragments if f.index == index)
        assert joined == arguments and json.loads(joined)
    assert events.count(FinishReason("tool_calls")) == 1
    calls = ToolCalls()
    for fragment in fragments:
        calls.add(fragment)
    assert [(c.id, c.name, c.arguments) for c in calls.calls()] == [
        ("call_a", *CALLS[0]), ("call_b", *CALLS[1])]


def test_a_tool_result_is_answered(chutes_server: FakeProvider) -> None:
    request = {"model": "m", "stream": True, "messages": [
        {"role": "user", "content": "time in Kolkata?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a", "type": "function",
             "function": {"name": "time__get_current_time", "arguments": "{}"}},
            {"id": "call_b", "type": "function",
             "function": {"name": "time__get_current_time", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_a", "content": "05:30"},
        {"role": "tool", "tool_call_id": "call_b", "content": [{"type": "text",
                                                                "text": "06:30"}]}]}
    response = httpx.post(f"{chutes_server.url}/chat/completions", json=request)
    text = "".join(
        choice["delta"].get("content") or ""
        for line in response.text.splitlines() if line.startswith("data: {")
        for choice in json.loads(line[6:])["choices"])
    assert text == "The tool call_a said: 05:30 The tool call_b said: 06:30"


def test_a_tools_model_calls_the_named_tool(chutes_server: FakeProvider) -> None:
    request = {"model": "tools/time__get_current_time", "stream": True,
               "messages": [{"role": "user", "content": '{"timezone": "UTC"}'}]}
    response = httpx.post(f"{chutes_server.url}/chat/completions", json=request)
    chunks = [json.loads(line[6:]) for line in response.text.splitlines()
              if line.startswith("data: {")]
    calls = [call for c in chunks for choice in c["choices"]
             for call in choice["delta"].get("tool_calls") or ()]
    assert calls[0]["function"]["name"] == "time__get_current_time"
    assert "".join(c["function"]["arguments"] for c in calls) == '{"timezone": "UTC"}'
    assert [choice["finish_reason"] for c in chunks for choice in c["choices"]
            if choice["finish_reason"]] == ["tool_calls"]
