"""Tool calls and their results along a conversation's path: what is sent, what is shown.

A reply that called tools while tools were offered is followed, in the tree, by one `tool`
message per call (`Message.tool_call_id`, its `tool_run`: status, tool, server, seconds), each
the child of the one before, then by the next reply. They are stored as they happen: a tool
message is added (status "streaming", `tool_run.status` "asking") before the call is put to
the user, and completed when the call ends. A tui-chat killed while a call waits or runs
leaves it "streaming"; the next start marks it interrupted (store.py's crash recovery), and
it is then shown and sent as "interrupted before its result": nothing runs it again.

A request must stay valid for the provider: tool messages come only right after the
assistant message that called them, and every call is answered. `valid_turns` makes the
context so: a tool message that follows no such reply (the context starts below it) is left
out; a call with no tool message (tui-chat stopped before its turn) gets a result saying it
was not run; a reply whose calls were never offered tools (no tool message follows it: an
older conversation, or a model that was not offered tools) goes as its text alone.

No MCP here: this module is on the path every request takes.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Sequence

from tui_chat.core.context import sent_text
from tui_chat.core.models import Message, MessageStatus, Role
from tui_chat.core.text import one_line

INTERRUPTED_RESULT = ("The call was interrupted before its result (tui-chat stopped while it "
                      "waited or ran); it was not run again.")
NOT_RUN_RESULT = "The call was not run: the exchange ended before its turn."


def tool_status(message: Message) -> str:
    """A tool message's status as shown: the run's, or "interrupted" for a call that tui-chat
    stopped while it waited or ran (also one still "streaming" in a store being read)."""
    if message.status is not MessageStatus.COMPLETE:
        return "interrupted"
    return message.tool_run.status if message.tool_run is not None else "ok"


def result_text(message: Message) -> str:
    """What a tool message sends to the model as the call's result."""
    if message.status is not MessageStatus.COMPLETE:
        return INTERRUPTED_RESULT
    return message.content


def tool_label(name: str, server: str | None) -> str:
    """`server.tool` for a call's qualified name `server__tool`, else the name as it is."""
    if server and name.startswith(f"{server}__") and len(name) > len(server) + 2:
        return f"{server}.{name[len(server) + 2:]}"
    return name


ARGUMENTS_PARSED = 4_000
"""Arguments longer than this are shown as they were sent, not parsed again (a 1 MB call
costs no JSON parse each time its row is drawn)."""


def call_arguments(messages: Iterable[Message]) -> dict[str, str]:
    """The arguments of the call each tool message among `messages` (in path order)
    answers, by the tool message's id: its `tool_call_id` matched among the calls of the
    nearest reply above it (ids like `call_0` repeat from one reply to the next)."""
    calls: dict[str, str] = {}
    out: dict[str, str] = {}
    for message in messages:
        if message.role is Role.ASSISTANT:
            calls = {call.id: call.arguments for call in message.tool_calls}
        elif message.role is Role.TOOL and message.tool_call_id in calls:
            out[message.id] = calls[message.tool_call_id]
    return out


def arguments_line(arguments: str, limit: int = 200) -> str:
    """A call's arguments on one line, as JSON with a space after `:` and `,` when they
    are JSON (`{"timezone": "Asia/Kolkata"}`), cut with … at `limit` characters; sanitized."""
    text = arguments[:limit * 4]
    if len(arguments) <= ARGUMENTS_PARSED:
        with contextlib.suppress(ValueError):  # not JSON: shown as it was sent
            text = json.dumps(json.loads(arguments), ensure_ascii=False)
    return one_line(text, limit)


def result_line_parts(message: Message, arguments: str | None = None) -> tuple[str, str, str]:
    """A tool message's line in three parts, each sanitized and on one line: the call as
    the user knows it (`time.get_current_time`), its arguments (empty when not known; cut
    at 200 characters) and the rest (`0.2 s · ok`, or "interrupted before its result")."""
    run = message.tool_run
    name = (tool_label(run.name, run.server) if run is not None and run.name
            else f"the call {message.tool_call_id}")
    tail: list[str] = []
    if run is not None and run.seconds is not None:
        tail.append(f"{run.seconds:.1f} s")
    status = tool_status(message)
    tail.append("interrupted before its result" if status == "interrupted" else status)
    shown = arguments_line(arguments) if arguments and arguments.strip() else ""
    return one_line(name, 80), shown, one_line(" · ".join(tail), 80)


def tool_result_line(message: Message, arguments: str | None = None) -> str:
    """One line for a tool message: `time.get_current_time {"timezone": "Asia/Kolkata"} ·
    0.2 s · ok` (the arguments when known: `call_arguments`), or "… · interrupted before
    its result"."""
    name, shown, tail = result_line_parts(message, arguments)
    return f"{name} {shown} · {tail}" if shown else f"{name} · {tail}"


def valid_turns(kept: Sequence[Message]) -> list[Message]:
    """`kept` (the context's messages, in order) made valid for a request (see the module's
    docstring): tool messages answer the reply above them, every call of it, in order; the
    others are left out. Messages changed here are copies."""
    out: list[Message] = []
    index = 0
    while index < len(kept):
        message = kept[index]
        index += 1
        if message.role is Role.TOOL:
            continue  # answers no reply just above it
        if message.role is not Role.ASSISTANT or not message.tool_calls:
            out.append(message)
            continue
        answers: dict[str, Message] = {}
        while index < len(kept) and kept[index].role is Role.TOOL:
            answer = kept[index]
            answers.setdefault(answer.tool_call_id or "", answer)
            index += 1
        if not answers:  # no tools were offered: its text alone, or the note of its calls
            # (an empty assistant turn would leave two user turns in a row: context.sent_text)
            out.append(message.model_copy(update={"tool_calls": [],
                                                  "content": sent_text(message)}))
            continue
        out.append(message)
        for call in message.tool_calls:
            found = answers.get(call.id)
            content = result_text(found) if found is not None else NOT_RUN_RESULT
            out.append(Message(conversation_id=message.conversation_id, role=Role.TOOL,
                               parent_id=message.id, tool_call_id=call.id, content=content))
    return out
