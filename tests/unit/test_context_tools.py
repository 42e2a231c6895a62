"""Tool calls and their results count in the context meter (issue 23: "Results count in the
context meter"): they are sent with every later request, so they fill the window."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from tui_chat.core.context import ContextMeter, in_context
from tui_chat.core.models import Message, MessageStatus, Role, ToolCall

T0 = datetime(2026, 12, 5, 8, 0, tzinfo=UTC)
WORDS = "seventeen " * 2000  # about 2,000 tokens of text, however a model counts them


def message(id: str, role: Role, content: str = "", **fields: object) -> Message:
    return Message(id=id, conversation_id="c" * 32, role=role, content=content, created=T0,
                   status=MessageStatus.COMPLETE, **fields)  # type: ignore[arg-type]


def tokens(meter: ContextMeter, path: list[Message]) -> int:
    return meter.measure(in_context(path), model="m", system_prompt=None, draft="",
                         window=None).tokens


def test_a_calls_arguments_and_its_result_count() -> None:
    question = message("u", Role.USER, "Echo this for me.")
    small_call = message("a", Role.ASSISTANT, tool_calls=[
        ToolCall(id="call_1", name="everything__echo", arguments='{"message": "hi"}')])
    big_call = message("a2", Role.ASSISTANT, tool_calls=[
        ToolCall(id="call_1", name="everything__echo",
                 arguments=json.dumps({"message": WORDS}))])
    small_result = message("r", Role.TOOL, "hi", tool_call_id="call_1")
    big_result = message("r2", Role.TOOL, WORDS, tool_call_id="call_1")
    meter = ContextMeter()
    base = tokens(meter, [question, small_call, small_result])
    assert tokens(meter, [question, small_call, big_result]) - base > 1000
    assert tokens(meter, [question, big_call, small_result]) - base > 1000
