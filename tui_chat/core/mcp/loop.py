"""The tool loop: a reply, its tool calls, their approval and results, the next reply.

`run_tool_loop` sends the conversation (OpenAI wire messages) with the tools; while a reply
calls tools, each call is checked (a tool offered? arguments a JSON object?), put to the user
when the policy says so (`approval.needs_asking`, through the `ask` callable the front-end
gives: a dialog in the app, the terminal in `ask`), run by the `ServerManager`, and its
result appended as a `tool` message; then the conversation goes back to the model. It ends
with a reply that calls no tool, or after `max_steps` replies that did: the calls of the one
over the limit are not run, and each gets a result that says so, so the conversation stays
valid for the provider (every call answered), and `stopped` says why in a sentence.

Every call is reported as it starts (`CallStarted`, with a `cancel` for Esc: the call ends as
"cancelled by the user", the loop goes on), as its server reports progress (`CallProgress`)
and as it ends (`CallFinished`, a `CallRecord` a store can keep). Cancelling the task running
the loop cancels all of it.

No SDK, no widgets: the manager is passed in; the stream is any callable that sends
(messages, tools) and yields the client's events (`client_stream` adapts a ProviderClient).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from tui_chat.core.events import ContentDelta, StreamEvent, ToolCallDelta
from tui_chat.core.mcp.approval import Answer, Grants, needs_asking
from tui_chat.core.mcp.tools import ToolSpec, openai_tools
from tui_chat.core.tool_calls import ToolCalls

if TYPE_CHECKING:
    from tui_chat.core.asker import Asker
    from tui_chat.core.client import ProviderClient
    from tui_chat.core.mcp.manager import ServerManager
    from tui_chat.core.models import Attachment, Parameters

Wire = dict[str, Any]
Stream = Callable[[list[Wire], list[Wire]], AsyncIterator[StreamEvent]]
Status = Literal["ok", "error", "failed", "timed-out", "denied", "cancelled", "invalid",
                 "not-run"]

CANCELLED = "The call was cancelled by the user."
DENIED = "The user did not allow this call."


@dataclass(frozen=True)
class CallRequest:
    """A call put to the user: which tool, with what."""

    call_id: str
    tool: ToolSpec
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Approval:
    """The user's answer; `reason` (for a denial) goes back to the model."""

    answer: Answer
    reason: str = ""


CallAsker = Callable[[CallRequest], Awaitable[Approval]]
"""Puts one call to the user. `approvals_from` makes one of the exchange's `core.asker.Asker`."""

CHOICES = {"Run once": Answer.ONCE, "Always for this tool": Answer.ALWAYS_TOOL,
           "Always for this server": Answer.ALWAYS_SERVER, "Deny": Answer.DENY}
"""The answers a call is put to the user with, as the exchange's asker offers them."""


@runtime_checkable
class CallApprover(Protocol):
    """An asker that puts a call to the user itself (the app's dialog): it gets the server,
    the tool and the arguments as data, and may give a denial's reason."""

    async def approve_call(self, request: CallRequest) -> Approval: ...


def approvals_from(asker: Asker) -> CallAsker:
    """A `CallAsker` that asks through the exchange's asker (the app's dialog, the terminal
    in `ask`): the tool, its server and its arguments (untrusted text: the front-end draws
    it inertly), and `CHOICES`. No answer (a front-end that cannot ask: `REFUSE`) is a
    denial. An asker that is a `CallApprover` is asked with the request itself."""
    if isinstance(asker, CallApprover):
        return asker.approve_call

    async def approve(request: CallRequest) -> Approval:
        return await approval_by_choice(asker, request)

    return approve


async def approval_by_choice(asker: Asker, request: CallRequest) -> Approval:
    """The call put to `asker` as a question with `CHOICES`; no answer is a denial."""
    arguments = json.dumps(request.arguments, indent=2, ensure_ascii=False)
    question = (f"The model asks to run the tool {request.tool.name} of the server "
                f"{request.tool.server} with these arguments:\n{arguments}")
    choice = await asker.ask(question, list(CHOICES))
    answer = CHOICES.get(choice or "", Answer.DENY)
    return Approval(answer, "" if choice else "none given; tui-chat could not ask the user")


@dataclass(frozen=True)
class CallRecord:
    """One call and what became of it."""

    call_id: str
    name: str
    """The name the model called (qualified)."""
    server: str | None
    arguments: str
    status: Status
    result: str
    seconds: float = 0.0
    files: tuple[Attachment, ...] = ()
    """The result's images, kept for the user (not sent to the model)."""


@dataclass(frozen=True)
class CallStarted:
    request: CallRequest
    cancel: Callable[[], None]


@dataclass(frozen=True)
class CallProgress:
    """A running call's progress, as its server reports it (for the live row)."""

    call_id: str
    progress: float
    total: float | None
    message: str | None


@dataclass(frozen=True)
class CallFinished:
    record: CallRecord


LoopEvent = StreamEvent | CallStarted | CallProgress | CallFinished


@dataclass
class LoopResult:
    text: str
    """The last reply's text."""
    messages: list[Wire] = field(default_factory=list)
    """What the loop added to the conversation: assistant messages with their calls, the
    tool messages with the results, and the last reply."""
    calls: list[CallRecord] = field(default_factory=list)
    stopped: str | None = None
    """Why the loop stopped before a reply without calls (the step limit), else None."""


def assembled_calls(fragments: Sequence[ToolCallDelta]) -> list[tuple[str, str, str]]:
    """(id, name, arguments) of each call, in the order of its index, joined by
    core.tool_calls.ToolCalls; a call the provider gave no id gets `call_INDEX` (its result's
    tool message must name one)."""
    joined = ToolCalls()
    for fragment in fragments:
        joined.add(fragment)
    return [(call.id or f"call_{index}", call.name, call.arguments)
            for index, call in enumerate(joined.calls())]


async def run_tool_loop(stream: Stream, manager: ServerManager, ask: CallAsker,
                        messages: Sequence[Wire], tools: Sequence[ToolSpec], *,
                        grants: Grants | None = None, max_steps: int = 10,
                        on_event: Callable[[LoopEvent], None] | None = None) -> LoopResult:
    """Run the loop (see the module's docstring) from `messages` with `tools` offered."""
    grants = Grants() if grants is None else grants
    notify = on_event or (lambda event: None)
    wire_tools = openai_tools(tools)
    conversation = list(messages)
    result = LoopResult(text="")
    for step in range(max_steps + 1):
        text, fragments = await _reply(stream, conversation, wire_tools, notify)
        calls = assembled_calls(fragments)
        if not calls:
            result.text = text
            result.messages.append({"role": "assistant", "content": text})
            return result
        assistant: Wire = {"role": "assistant", "content": text or None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": name, "arguments": arguments}}
            for call_id, name, arguments in calls]}
        conversation.append(assistant)
        result.messages.append(assistant)
        over = step == max_steps
        for call_id, name, arguments in calls:
            if over:
                record = CallRecord(call_id, name, None, arguments, "not-run",
                                    "Not run: tui-chat stopped the tool calls at their limit.")
            else:
                record = await run_call(call_id, name, arguments, manager, ask, grants,
                                         notify)
            notify(CallFinished(record))
            result.calls.append(record)
            tool_message = {"role": "tool", "tool_call_id": call_id, "content": record.result}
            conversation.append(tool_message)
            result.messages.append(tool_message)
        if over:
            result.text = text
            result.stopped = (f"tui-chat stopped after {max_steps} replies that called tools "
                              "(max_steps under [mcp] in config.toml); send a message to go "
                              "on.")
    return result


async def _reply(stream: Stream, conversation: list[Wire], tools: list[Wire],
                 notify: Callable[[LoopEvent], None]) -> tuple[str, list[ToolCallDelta]]:
    text: list[str] = []
    fragments: list[ToolCallDelta] = []
    async for event in stream(conversation, tools):
        notify(event)
        if isinstance(event, ContentDelta):
            text.append(event.text)
        elif isinstance(event, ToolCallDelta):
            fragments.append(event)
    return "".join(text), fragments


async def run_call(call_id: str, name: str, arguments: str, manager: ServerManager,
                    ask: CallAsker, grants: Grants, notify: Callable[[LoopEvent], None]
                    ) -> CallRecord:
    tool = manager.find(name)
    if tool is None:
        return CallRecord(call_id, name, None, arguments, "invalid",
                          f"No tool named {name!r} is offered in this conversation.")
    problem = "not a JSON object"
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except ValueError as error:
        parsed, problem = None, f"not valid JSON ({error})"
    if not isinstance(parsed, dict):
        return CallRecord(call_id, name, tool.server, arguments, "invalid",
                          f"The arguments are {problem}; nothing was run.")
    request = CallRequest(call_id, tool, parsed)
    if needs_asking(tool, manager.policy(tool.server), grants):
        approval = await ask(request)
        if approval.answer is Answer.DENY:
            reason = f" Their reason: {approval.reason}" if approval.reason.strip() else ""
            return CallRecord(call_id, name, tool.server, arguments, "denied",
                              DENIED + reason)
        grants.record(tool, approval.answer)
    started = time.monotonic()

    def progress(done: float, total: float | None, message: str | None) -> None:
        notify(CallProgress(call_id, done, total, message))

    task = asyncio.create_task(manager.call(tool, parsed, on_progress=progress))

    def cancel() -> None:
        task.cancel()

    notify(CallStarted(request, cancel))
    try:
        outcome = await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():  # the whole loop is cancelled
            task.cancel()
            raise
        return CallRecord(call_id, name, tool.server, arguments, "cancelled", CANCELLED,
                          time.monotonic() - started)
    return CallRecord(call_id, name, tool.server, arguments, outcome.status, outcome.text,
                      outcome.seconds, outcome.files)


def client_stream(client: ProviderClient, model: str,
                  parameters: Parameters | None = None) -> Stream:
    """A `Stream` that sends through `client` (the wire messages and tools as they are)."""

    def stream(messages: list[Wire], tools: list[Wire]) -> AsyncIterator[StreamEvent]:
        extra: Wire = {"messages": messages}
        if tools:
            extra["tools"] = tools
        return client.stream_chat(model, [], parameters, extra=extra)

    return stream
