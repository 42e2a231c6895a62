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

from collections.abc import Sequence

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


def tool_result_line(message: Message) -> str:
    """One line for a tool message: `Result of time__get_current_time (server time) · 0.2 s ·
    ok`, or "interrupted before its result"."""
    run = message.tool_run
    name = run.name if run is not None and run.name else f"the call {message.tool_call_id}"
    parts = [f"Result of {one_line(name, 80)}"
             + (f" (server {one_line(run.server, 40)})" if run and run.server else "")]
    if run is not None and run.seconds is not None:
        parts.append(f"{run.seconds:.1f} s")
    status = tool_status(message)
    parts.append("interrupted before its result" if status == "interrupted" else status)
    return " · ".join(parts)


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
