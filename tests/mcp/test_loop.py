"""The tool loop against the fake provider and real tool servers: a question, a call, its
approval, the result sent back, the answer; denials, grants, the step limit, bad calls and
Esc on a running call."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.fakeprovider import FakeProvider, Reply, tool_call_stream
from tests.mcp.conftest import fault_server, time_server
from tests.unit.test_client import make_client
from tui_chat.core.mcp.approval import Answer
from tui_chat.core.mcp.loop import (
    CANCELLED,
    Approval,
    CallFinished,
    CallProgress,
    CallRequest,
    CallStarted,
    LoopEvent,
    approvals_from,
    client_stream,
    run_tool_loop,
)
from tui_chat.core.mcp.manager import ServerManager

Make = Callable[..., ServerManager]
QUESTION = [{"role": "user", "content": "What time is it in Kolkata?"}]
KOLKATA = ("time__get_current_time", '{"timezone": "Asia/Kolkata"}')


class Asker:
    """Answers every request with `answers` in turn, and keeps the requests."""

    def __init__(self, *answers: Approval) -> None:
        self.answers = list(answers)
        self.requests: list[CallRequest] = []

    async def __call__(self, request: CallRequest) -> Approval:
        self.requests.append(request)
        return self.answers.pop(0)


def _bodies(server: FakeProvider) -> list[dict[str, Any]]:
    return [r.body for r in server.requests if r.method == "POST"]


async def test_a_question_a_call_an_approval_and_the_answer(
        chutes_server: FakeProvider, manager_of: Make) -> None:
    manager = manager_of({"time": time_server()})
    tools = await manager.tools()
    chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=["call_k"], pieces=4)))
    ask = Asker(Approval(Answer.ONCE))
    async with make_client(chutes_server) as client:
        result = await run_tool_loop(client_stream(client, "m"), manager, ask, QUESTION, tools)
    assert [(r.tool.label, r.arguments) for r in ask.requests] == [
        ("time.get_current_time", {"timezone": "Asia/Kolkata"})]
    [call] = result.calls
    assert (call.call_id, call.server, call.status) == ("call_k", "time", "ok")
    assert json.loads(call.result)["timezone"] == "Asia/Kolkata"
    first, second = _bodies(chutes_server)
    assert first["messages"] == QUESTION
    assert [t["function"]["name"] for t in first["tools"]] == [
        "time__get_current_time", "time__convert_time"]
    assistant, tool = second["messages"][1:]
    assert assistant["tool_calls"] == [{"id": "call_k", "type": "function", "function": {
        "name": "time__get_current_time", "arguments": '{"timezone": "Asia/Kolkata"}'}}]
    assert tool == {"role": "tool", "tool_call_id": "call_k", "content": call.result}
    assert result.text == f"The tool call_k said: {call.result}"
    assert result.stopped is None
    assert [m["role"] for m in result.messages] == ["assistant", "tool", "assistant"]


class Choosing:
    """A `core.asker.Asker` (the exchange's) that chooses `choice`, and keeps the questions."""

    def __init__(self, choice: str | None) -> None:
        self.choice = choice
        self.questions: list[tuple[str, list[str]]] = []

    async def confirm(self, question: str) -> bool:
        raise AssertionError("a tool call is a choice, not a yes or no")

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        self.questions.append((question, list(choices)))
        return self.choice


@pytest.mark.parametrize(("choice", "status", "asked"), [
    ("Always for this server", "ok", 1), ("Run once", "ok", 2), ("Deny", "denied", 2),
    (None, "denied", 2)])
async def test_the_exchanges_asker_approves_calls(
        chutes_server: FakeProvider, manager_of: Make, choice: str | None, status: str,
        asked: int) -> None:
    manager = manager_of({"time": time_server()})
    tools = await manager.tools()
    chutes_server.script(Reply(tool_call_stream([KOLKATA, KOLKATA])))
    asker = Choosing(choice)
    async with make_client(chutes_server) as client:
        result = await run_tool_loop(client_stream(client, "m"), manager,
                                     approvals_from(asker), QUESTION, tools)
    assert [c.status for c in result.calls] == [status, status]
    assert len(asker.questions) == asked
    question, choices = asker.questions[0]
    assert choices == ["Run once", "Always for this tool", "Always for this server", "Deny"]
    assert question == ("The model asks to run the tool get_current_time of the server time "
                        'with these arguments:\n{\n  "timezone": "Asia/Kolkata"\n}')
    if choice is None:
        assert result.calls[0].result.endswith("tui-chat could not ask the user")


async def test_read_only_tools_run_without_asking(chutes_server: FakeProvider,
                                                  manager_of: Make) -> None:
    manager = manager_of({"time": time_server(approve="read-only")})
    tools = await manager.tools()
    chutes_server.script(Reply(tool_call_stream([KOLKATA])))
    ask = Asker()  # asking would fail: it has no answer
    async with make_client(chutes_server) as client:
        result = await run_tool_loop(client_stream(client, "m"), manager, ask, QUESTION, tools)
    assert ask.requests == [] and result.calls[0].status == "ok"


async def test_a_denial_goes_back_with_its_reason_and_always_is_remembered(
        chutes_server: FakeProvider, manager_of: Make) -> None:
    manager = manager_of({"time": time_server()})
    tools = await manager.tools()
    chutes_server.script(Reply(tool_call_stream([KOLKATA, KOLKATA])),
                         Reply(tool_call_stream([KOLKATA, KOLKATA])))
    ask = Asker(Approval(Answer.DENY, "not now"), Approval(Answer.ALWAYS_TOOL))
    async with make_client(chutes_server) as client:
        result = await run_tool_loop(client_stream(client, "m"), manager, ask, QUESTION, tools)
    assert len(ask.requests) == 2  # the grant covered the two calls after it
    assert [c.status for c in result.calls] == ["denied", "ok", "ok", "ok"]
    assert result.calls[0].result == "The user did not allow this call. Their reason: not now"


async def test_the_step_limit_stops_and_answers_every_call(chutes_server: FakeProvider,
                                                           manager_of: Make) -> None:
    manager = manager_of({"time": time_server(approve="always")})
    tools = await manager.tools()
    chutes_server.script(*[Reply(tool_call_stream([KOLKATA], ids=[f"c{i}"])) for i in range(3)])
    async with make_client(chutes_server) as client:
        result = await run_tool_loop(client_stream(client, "m"), manager, Asker(), QUESTION,
                                     tools, max_steps=2)
    assert [c.status for c in result.calls] == ["ok", "ok", "not-run"]
    assert result.stopped is not None and "after 2 replies that called tools" in result.stopped
    called = [c["id"] for m in result.messages for c in m.get("tool_calls", [])]
    answered = [m["tool_call_id"] for m in result.messages if m["role"] == "tool"]
    assert called == answered == ["c0", "c1", "c2"]
    assert len(_bodies(chutes_server)) == 3


async def test_unknown_tools_and_bad_arguments_are_answered_not_run(
        chutes_server: FakeProvider, manager_of: Make) -> None:
    manager = manager_of({"time": time_server(approve="always")})
    tools = await manager.tools()
    chutes_server.script(Reply(tool_call_stream([
        ("nope__tool", "{}"), ("time__get_current_time", '{"timezone": '),
        ("time__get_current_time", "[1]")])))
    async with make_client(chutes_server) as client:
        result = await run_tool_loop(client_stream(client, "m"), manager, Asker(), QUESTION,
                                     tools)
    assert [c.status for c in result.calls] == ["invalid"] * 3
    assert result.calls[0].result == "No tool named 'nope__tool' is offered in this conversation."
    assert result.calls[1].result.startswith("The arguments are not valid JSON (")
    assert result.calls[2].result == "The arguments are not a JSON object; nothing was run."


async def test_esc_cancels_the_running_call_and_the_loop_goes_on(
        chutes_server: FakeProvider, manager_of: Make, markers: Path) -> None:
    manager = manager_of({"f": fault_server(approve="always")})
    tools = await manager.tools()
    chutes_server.script(Reply(tool_call_stream([("f__slow", "{}")])))
    pending: list[asyncio.Task[None]] = []

    async def escape(started: CallStarted) -> None:
        while not (markers / "marker.started").exists():  # noqa: ASYNC110 - another process
            await asyncio.sleep(0.01)
        started.cancel()

    def on_event(event: LoopEvent) -> None:
        if isinstance(event, CallStarted):
            pending.append(asyncio.create_task(escape(event)))

    async with make_client(chutes_server) as client:
        result = await asyncio.wait_for(run_tool_loop(
            client_stream(client, "m"), manager, Asker(), QUESTION, tools, on_event=on_event),
            timeout=60)
    assert [(c.status, c.result) for c in result.calls] == [("cancelled", CANCELLED)]
    assert result.text == f"The tool call_0 said: {CANCELLED}"
    async with asyncio.timeout(30):
        while not (markers / "marker").exists():  # noqa: ASYNC110 - the server heard
            await asyncio.sleep(0.01)


async def test_progress_is_reported_as_the_call_runs(chutes_server: FakeProvider,
                                                     manager_of: Make, markers: Path) -> None:
    manager = manager_of({"f": fault_server(approve="always")})
    tools = await manager.tools()
    chutes_server.script(Reply(tool_call_stream([("f__progress", "{}")], ids=["p1"])))
    events: list[LoopEvent] = []
    async with make_client(chutes_server) as client:
        await run_tool_loop(client_stream(client, "m"), manager, Asker(), QUESTION, tools,
                            on_event=events.append)
    kinds = [type(event).__name__ for event in events
             if isinstance(event, CallStarted | CallProgress | CallFinished)]
    assert kinds == ["CallStarted", "CallProgress", "CallProgress", "CallProgress",
                     "CallFinished"]
    assert [(e.call_id, e.progress, e.total) for e in events if isinstance(e, CallProgress)
            ] == [("p1", 1, 3), ("p1", 2, 3), ("p1", 3, 3)]


async def test_cancelling_the_loop_cancels_the_call(chutes_server: FakeProvider,
                                                    manager_of: Make, markers: Path) -> None:
    manager = manager_of({"f": fault_server(approve="always")})
    tools = await manager.tools()
    chutes_server.script(Reply(tool_call_stream([("f__slow", "{}")])))
    async with make_client(chutes_server) as client:
        loop = asyncio.create_task(run_tool_loop(client_stream(client, "m"), manager, Asker(),
                                                 QUESTION, tools))
        async with asyncio.timeout(30):
            while not (markers / "marker.started").exists():  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        loop.cancel()
        with pytest.raises(asyncio.CancelledError):
            await loop
    async with asyncio.timeout(30):
        while not (markers / "marker").exists():  # noqa: ASYNC110
            await asyncio.sleep(0.01)
    assert len(_bodies(chutes_server)) == 1
