"""A conversation tree as a plain-text outline (`tui-chat show ID --tree`).

One line per message: a `*` in the first column marks the active path, then the short id, the
role (with the status when not complete), the model of a reply, and the first line of text::

    * 1a2b3c4d  user       Summarise RFC 9110
    * 5e6f7a8b  assistant  chutes/deepseek-ai/DeepSeek-V3-0324  HTTP semantics:
        [1/2] 9c0d1e2f  user       and RFC 9112?
              3a4b5c6d  assistant  sutra/sutra-v2  HTTP/1.1 message syntax.
    *   [2/2] 7e8f9a0b  user       and RFC 9113?

A single path stays at one indentation however long it is; each branch point indents its
alternatives one level and numbers them. Text is made one line and cleaned of control
characters.
"""

from __future__ import annotations

from tui_chat.core.models import ConversationTree, Message, MessageStatus
from tui_chat.core.text import one_line

SHORT_ID = 8
FIRST_LINE = 60


def outline(tree: ConversationTree) -> str:
    conversation = tree.conversation
    count = len(tree.messages)
    lines = [f"{one_line(conversation.title, 80)}  ({conversation.id[:SHORT_ID]}, {count} "
             f"message{'' if count == 1 else 's'})"]
    children: dict[str | None, list[Message]] = {}
    for message in tree.messages:
        children.setdefault(message.parent_id, []).append(message)
    active = {m.id for m in tree.active_path()}
    # (message, indentation, its "[n/m] " tag or "") to print, last one on top; a depth-first
    # walk with a stack, since a conversation may be thousands of messages deep.
    stack: list[tuple[Message, str, str]] = _branches(children.get(None, []), "")
    seen: set[str] = set()
    while stack:
        message, indent, tag = stack.pop()
        if message.id in seen:  # a damaged file with a cycle: print each message once
            continue
        seen.add(message.id)
        mark = "*" if message.id in active else " "
        lines.append(f"{mark} {indent}{tag}{_describe(message)}")
        below = children.get(message.id, [])
        inner = indent + " " * len(tag)
        stack += _branches(below, inner)
    return "\n".join(lines) + "\n"


def _branches(siblings: list[Message], indent: str) -> list[tuple[Message, str, str]]:
    """The stack entries for one branch point, so that the first sibling pops first."""
    if len(siblings) == 1:
        return [(siblings[0], indent, "")]
    count = len(siblings)
    return [(message, indent + "  ", f"[{index}/{count}] ")
            for index, message in reversed(list(enumerate(siblings, start=1)))]


def _describe(message: Message) -> str:
    role = message.role.value
    if message.status != MessageStatus.COMPLETE:
        role += f" [{message.status.value}]"
    parts = [message.id[:SHORT_ID].ljust(SHORT_ID), f"{role:<9}"]
    if message.model:
        who = f"{message.provider}/{message.model}" if message.provider else message.model
        parts.append(one_line(who, 60))
    parts.append(_first_line(message.content))
    return "  ".join(parts)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        cleaned = one_line(line, FIRST_LINE)
        if cleaned:
            return cleaned
    return "(no text)"
