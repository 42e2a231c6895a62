"""Tool calls in a reply. A model that calls a tool when none was offered has none run.

A call streams as fragments of OpenAI's `delta.tool_calls`, keyed by `index`: the first brings
its id and name, the others pieces of its arguments (JSON text). `ToolCalls` joins them; the
finished reply keeps them as data, `Message.tool_calls` (id, name, arguments), with the status
complete and no error. `tool_call_lines` is what both front-ends show of them: a sentence that
says tools are not enabled for this conversation, then one line per call, `name(arguments)`.

Before store schema 6 the calls were kept as that very text in `Message.error`;
`legacy_tool_calls` reads such a note back (the schema's migration and imports of older
exports use it), so that `error` means an error again.
"""

from __future__ import annotations

import re

from tui_chat.core.events import ToolCallDelta
from tui_chat.core.models import Message, MessageStatus, ToolCall

TOOLS_NOT_ENABLED = "tools are not enabled for this conversation, so none was run"
_HEAD = "The model asked to call "
_NO_NAME = "(no name)"


class ToolCalls:
    """The calls of one reply, joined from their fragments in the order of their index."""

    def __init__(self) -> None:
        # index -> (id, name, arguments), each as its fragments
        self._calls: dict[int, tuple[list[str], list[str], list[str]]] = {}

    def add(self, fragment: ToolCallDelta) -> None:
        ids, name, arguments = self._calls.setdefault(fragment.index, ([], [], []))
        if fragment.id and not ids:  # some servers repeat the id on every fragment
            ids.append(fragment.id)
        if fragment.name:
            name.append(fragment.name)
        if fragment.arguments:
            arguments.append(fragment.arguments)

    def __bool__(self) -> bool:
        return bool(self._calls)

    def calls(self) -> list[ToolCall]:
        return [ToolCall(id="".join(ids), name="".join(name), arguments="".join(arguments))
                for _, (ids, name, arguments) in sorted(self._calls.items())]


def tool_call_lines(message: Message, *, run: bool = False) -> tuple[str, list[str]] | None:
    """(the sentence, one `name(arguments)` line per call) of a finished reply that called
    tools, else None. `run`: tools were offered and the calls answered (the tool messages
    below the reply say how), else the sentence says none was run."""
    # Not by finish_reason: some servers end a reply that called tools with "stop".
    if message.status is not MessageStatus.COMPLETE or not message.tool_calls:
        return None
    calls = [(call.name or _NO_NAME, call.arguments) for call in message.tool_calls]
    names = ", ".join(dict.fromkeys(name for name, _ in calls))
    count = f"{len(calls)} tools" if len(calls) > 1 else "a tool"
    head = (f"The model called {count} ({names})." if run
            else f"{_HEAD}{count} ({names}), but {TOOLS_NOT_ENABLED}.")
    return head, [f"{name}({arguments})" for name, arguments in calls]


# The note as tui-chat wrote it before schema 6, kept literally: reading old stores and old
# exports must not change with the code above.
_LEGACY_HEAD = re.compile(
    r"The model asked to call (?:a tool|\d+ tools) \((?P<names>.*)\), but tools are not "
    r"enabled for this conversation, so none was run\.")


def legacy_tool_calls(note: str | None) -> list[ToolCall] | None:
    """The calls kept in an old reply's note (`error`, schema 5 and before), else None. Ids
    were not kept then: each call's is "". An argument text holding a line break is joined
    back: a line that does not start with one of the head's names continues the call above."""
    if not note or not note.startswith(_HEAD):
        return None
    head, _, rest = note.partition("\n")
    matched = _LEGACY_HEAD.fullmatch(head)
    if matched is None or not rest:
        return None
    names = sorted(set(matched["names"].split(", ")), key=len, reverse=True)
    found: list[tuple[str, str]] = []  # (name, "name(arguments)" text)
    for line in rest.split("\n"):
        name = next((n for n in names if line.startswith(n + "(")), None)
        if name is not None or not found:
            found.append((name if name is not None else line.partition("(")[0], line))
        else:
            found[-1] = (found[-1][0], f"{found[-1][1]}\n{line}")
    calls: list[ToolCall] = []
    for name, text in found:
        arguments = text[len(name) + 1:]
        arguments = arguments.removesuffix(")")
        calls.append(ToolCall(name="" if name == _NO_NAME else name, arguments=arguments))
    return calls
