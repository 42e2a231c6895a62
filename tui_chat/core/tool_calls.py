"""Tool calls in a reply. tui-chat sends no tools, so a model that calls one anyway has none run.

A call streams as fragments of OpenAI's `delta.tool_calls`, keyed by `index`: the first brings
its name, the others pieces of its arguments (JSON text). `ToolCalls` joins them. The finished
reply keeps them as its note (`Message.error`, with the status complete): a first line that
says tools are not enabled for this conversation, then one line per call, `name(arguments)`.
The store, exports and both front-ends so have them without a column of their own;
`tool_call_lines` reads them back.
"""

from __future__ import annotations

from tui_chat.core.events import ToolCallDelta
from tui_chat.core.models import Message, MessageStatus

TOOLS_NOT_ENABLED = "tools are not enabled for this conversation, so none was run"
_HEAD = "The model asked to call "


class ToolCalls:
    """The calls of one reply, joined from their fragments in the order of their index."""

    def __init__(self) -> None:
        self._calls: dict[int, tuple[list[str], list[str]]] = {}  # index -> (name, arguments)

    def add(self, fragment: ToolCallDelta) -> None:
        name, arguments = self._calls.setdefault(fragment.index, ([], []))
        if fragment.name:
            name.append(fragment.name)
        if fragment.arguments:
            arguments.append(fragment.arguments)

    def __bool__(self) -> bool:
        return bool(self._calls)

    def note(self) -> str:
        """The reply's note: the sentence, then one `name(arguments)` line per call."""
        calls = [("".join(name) or "(no name)", "".join(arguments))
                 for _, (name, arguments) in sorted(self._calls.items())]
        names = ", ".join(dict.fromkeys(name for name, _ in calls))
        count = f"{len(calls)} tools" if len(calls) > 1 else "a tool"
        head = f"{_HEAD}{count} ({names}), but {TOOLS_NOT_ENABLED}."
        return "\n".join([head, *(f"{name}({arguments})" for name, arguments in calls)])


def tool_call_lines(message: Message) -> tuple[str, list[str]] | None:
    """(the sentence, one line per call) of a reply that called tools, else None."""
    note = message.error
    # Not by finish_reason alone: some servers end a reply that called tools with "stop".
    if message.status is not MessageStatus.COMPLETE or not note or not note.startswith(_HEAD):
        return None
    head, *calls = note.split("\n")
    return head, calls
