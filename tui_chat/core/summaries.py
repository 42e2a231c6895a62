"""A summary of the oldest turns, sent in their place when the conversation outgrows the window.

Design (issue 25, "summarise instead of cutting"):
- A summary is a message of the tree with role `system` (no other stored message has it: the
  system prompt lives on the conversation) whose parent is the last message it summarises.
  It is stored off the active path (its parent's active child stays the first turn kept; a
  summary of every turn, under the reply the path ends with, is no child on the path either:
  the store links no summary), so the originals stay in the conversation, shown and
  unchanged; `store_tree.children` leaves it out of the branch arrows. No schema change: the
  role column is the marker.
- The conversation's `context_from` names the summary. `context_start` resolves that into the
  first message of the path that is sent (the summary's parent's successor on the path) and
  the summary itself; a summary whose parent is no longer on the active path (another branch
  chosen) is ignored, and the whole path is sent, as for a `context_from` off the path today.
- The summary is sent inside the system message (`system_text`): after the system prompt, or
  alone. The turns still alternate (system first, then user/assistant), which strict chat
  templates require; a second system message or a user turn would not.
- The summary is written by a model (the conversation's, or one the user picks) from a request
  of one user message holding the turns as a transcript (`summary_request`), so that the
  request alternates whatever the turns were; an earlier summary in force is carried at its
  top, so that a second summary covers the first.
- It is edited like any message's text (`Workspace.edit_summary`): the next request sends the
  edited text.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tui_chat.core.context import in_context, sent_text
from tui_chat.core.errors import TuiChatError, UsageError
from tui_chat.core.events import ContentDelta
from tui_chat.core.models import ChatMessage, Message, Role

if TYPE_CHECKING:  # the app's start-up path has no HTTP stack
    from tui_chat.core.client import ProviderClient

SUMMARY_HEADING = "Summary of the earlier part of this conversation (its turns are left out):"
INSTRUCTION = (
    "Summarise the conversation below for yourself, to continue it without its text: the "
    "facts, names, numbers, decisions, code and open questions that a later reply may need, "
    "in the conversation's language. Write only the summary, in short paragraphs or a list.")
TRANSCRIPT_ROLES = {Role.USER: "User", Role.ASSISTANT: "Assistant", Role.TOOL: "Tool result"}


def is_summary(message: Message) -> bool:
    """Whether `message` is a summary node (see the module docstring)."""
    return message.role is Role.SYSTEM and message.parent_id is not None


def context_start(path: Sequence[Message], context_from: str | None,
                  lookup: Callable[[str], Message]) -> tuple[str | None, Message | None]:
    """(the first message of `path` sent as context, the summary sent in place of those
    before it, if any) for a conversation whose `context_from` is `context_from`; `lookup`
    reads a message by id (a summary is not on the path)."""
    if context_from is None or any(m.id == context_from for m in path):
        return context_from, None
    try:
        summary = lookup(context_from)
    except TuiChatError:  # deleted meanwhile: everything is sent
        return None, None
    ids = [m.id for m in path]
    if not is_summary(summary) or summary.parent_id not in ids:
        return None, None
    after = ids.index(summary.parent_id) + 1
    # Nothing kept after it: name the parent, which `in_context` leaves out as a reply whose
    # prompt is out (a summary is made before a prompt, after a reply).
    return (ids[after] if after < len(ids) else summary.parent_id), summary


def system_text(system_prompt: str | None, summary: Message | None) -> str | None:
    """The system message's text: the system prompt, then the summary in force."""
    if summary is None or not summary.content.strip():
        return system_prompt
    block = f"{SUMMARY_HEADING}\n\n{summary.content.strip()}"
    return f"{system_prompt}\n\n{block}" if system_prompt else block


def summary_request(turns: Sequence[Message], earlier: Message | None) -> list[ChatMessage]:
    """The request that asks a model for the summary of `turns` (the path before the first
    message kept, as `in_context` sends it), with `earlier` (the summary in force) first."""
    lines = [INSTRUCTION, ""]
    if earlier is not None and earlier.content.strip():
        lines += ["Summary of what came before:", earlier.content.strip(), ""]
    for message in in_context(turns):
        text = sent_text(message).strip()
        if text:
            lines += [f"{TRANSCRIPT_ROLES.get(message.role, message.role.value)}: {text}", ""]
    return [ChatMessage(role=Role.USER, content="\n".join(lines).rstrip())]


async def write_summary(client: ProviderClient, model: str,
                        request: Sequence[ChatMessage]) -> str:
    """The summary `model` writes for `request` (its content; reasoning is not kept).
    ProviderError as the client raises it; UsageError for an empty answer."""
    parts: list[str] = []
    async with contextlib.aclosing(client.stream_chat(model, request)) as events:
        async for event in events:
            if isinstance(event, ContentDelta):
                parts.append(event.text)
    text = "".join(parts).strip()
    if not text:
        raise UsageError(f"{model} answered with an empty summary: try again, or pick "
                         "another model to write it.")
    return text


def turns_before(path: Sequence[Message], keep_from: str) -> list[Message]:
    """The messages of `path` that keeping from `keep_from` leaves out: those before it, and
    the reply the path ends with when `keep_from` names it (every turn left out, as
    `core.context` plans it and `in_context` sends it). A `keep_from` off the path gives
    none. The summary of them hangs under the last of them."""
    ids = [m.id for m in path]
    if keep_from not in ids:
        return []
    end = ids.index(keep_from)
    if end == len(path) - 1 and path[end].role is Role.ASSISTANT:
        end += 1
    return list(path[:end])
