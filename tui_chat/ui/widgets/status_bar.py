"""One line under the prompt: provider and model, streaming state, how full the model's
window is, speed, usage and cost."""

from __future__ import annotations

from typing import NamedTuple

import msgspec
from msgspec import Struct
from rich.text import Text
from textual.widgets import Static

from tui_chat.core.dialect import REASONING_CHOICES
from tui_chat.core.models import Usage
from tui_chat.core.text import one_line


class StatusInfo(Struct, frozen=True):
    provider: str = ""
    model: str = ""
    state: str = "ready"
    time_to_first_token: float | None = None
    tokens_per_second: float | None = None
    usage: Usage | None = None
    note: str = ""
    context: str = ""
    """The next request's size against the window ("38k / 131k ctx"; "" when unknown)."""
    context_warning: bool = False
    """The context is near the window: shown as a warning."""
    cost: str = ""
    """The last reply's cost and the conversation's total, with the unit."""
    speed_estimated: bool = False
    """`tokens_per_second` counts estimated tokens (the provider reported no usage yet)."""
    protection: str = ""
    """How the last reply was sent ("🔒 end-to-end", "TEE": core.protection); "" for neither."""
    quota: str = ""
    """What is left of the provider's quota ("quota 1,234 of 5,000 left": core.quota)."""
    tools: str = ""
    """The tools the next message offers ("🔧 7": ui.tool_approval_glue.tools_badge)."""
    reasoning: str = ""
    """The conversation's reasoning setting when not the model's default ("reasoning off":
    `reasoning_badge`)."""


def reasoning_badge(choice: str, sent: bool = True) -> str:
    """What the status line shows for a reasoning setting ("" for "default"); `sent`: the
    model takes it (else "not sent" says that it goes nowhere)."""
    if choice == "default":
        return ""
    return f"reasoning {choice}" if sent else f"reasoning {choice} not sent"


def next_reasoning(choice: str) -> str:
    """The setting after `choice` in REASONING_CHOICES, round again after the last."""
    choices = REASONING_CHOICES
    return choices[(choices.index(choice) + 1) % len(choices)] if choice in choices \
        else choices[0]


BAR = "  │  "

IMPORTANCE = ("note", "speed", "usage", "state", "model", "context", "cost", "reasoning",
              "protection", "tools", "provider", "first_token", "quota")
"""The parts of the line, most useful first: a line too narrow for all of them drops the
last of these first (the hint of what a key does now, then the speed and the tokens of the
reply, survive longest); those left keep their places on the line."""


class Part(NamedTuple):
    """One part of the status line: its name (IMPORTANCE), its text, and the separator
    before it when another part precedes it (drawn in the part's style when `joined`)."""

    name: str
    text: Text
    separator: str = BAR
    joined: bool = False


def _part(name: str, text: str, style: str = "", separator: str = BAR,
          joined: bool = False) -> Part:
    return Part(name, Text(text, style=style), separator, joined)


def status_parts(info: StatusInfo) -> list[Part]:
    """The parts the line would show, in the line's order (model names and notes are
    untrusted: literal text)."""
    parts = [_part("provider", f" {one_line(info.provider, 30)} ", "bold reverse", ""),
             _part("model", one_line(info.model, 60), "bold", " ", joined=True)]
    if info.protection:
        parts.append(_part("protection", info.protection, "bold", "  ", joined=True))
    if info.tools:
        parts.append(_part("tools", info.tools, separator="  "))
    if info.reasoning:
        parts.append(_part("reasoning", info.reasoning, "dim", "  ", joined=True))
    parts.append(_part("state", info.state, "italic"))
    if info.context:
        if info.context_warning:  # see ui.colour_roles
            parts.append(_part("context", f"⚠ {info.context}", "tc.notice"))
        else:
            parts.append(_part("context", info.context))
    if info.cost:
        parts.append(_part("cost", info.cost))
    if info.quota:
        parts.append(_part("quota", info.quota, "dim", joined=True))
    if info.time_to_first_token is not None:
        parts.append(_part("first_token", f"first token {info.time_to_first_token:.2f} s"))
    if info.tokens_per_second is not None:
        about = "≈" if info.speed_estimated else ""
        parts.append(_part("speed", f"{about}{info.tokens_per_second:.1f} tok/s"))
    if info.usage is not None:
        usage = info.usage
        parts.append(_part("usage", f"{usage.prompt_tokens} in · {usage.completion_tokens} out"))
    if info.note:
        parts.append(_part("note", one_line(info.note, 80), "dim", joined=True))
    return parts


def _joined(parts: list[Part]) -> Text:
    text = Text(" " if parts and parts[0].name != "provider" else "")  # off the edge
    for index, part in enumerate(parts):
        if index and part.joined:  # one run with the part, as one span
            text.append(part.separator + part.text.plain, style=part.text.style)
            continue
        if index:
            text.append(part.separator)
        text.append_text(part.text)
    return text


def status_text(info: StatusInfo, width: int | None = None) -> Text:
    """The status line as literal text; in `width` cells (None: all of it), by dropping the
    least important parts first (IMPORTANCE), and cutting the last one left with an
    ellipsis when even it is too wide."""
    parts = status_parts(info)
    text = _joined(parts)
    if width is None or width <= 0:
        return text
    while text.cell_len > width and len(parts) > 1:
        least = max(parts, key=lambda part: IMPORTANCE.index(part.name))
        parts.remove(least)
        text = _joined(parts)
    if text.cell_len > width:
        text.truncate(width, overflow="ellipsis")
    return text


class StatusBar(Static):
    """Shows a `StatusInfo`; `update_info(**changes)` changes some of its fields."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        color: $text;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        self.info = StatusInfo()
        self._shown = status_text(self.info)
        super().__init__(self._shown, id=id, markup=False)

    def update_info(self, **changes: object) -> None:
        """A change that shows nothing new (the same state again, a figure that rounds to
        the one shown) paints nothing: the line is updated several times a second while a
        reply streams, each a frame of its own."""
        self.info = msgspec.structs.replace(self.info, **changes)
        self._show()

    def _show(self) -> None:
        text = status_text(self.info, self.size.width or None)  # 0: not laid out yet
        if text == self._shown:
            return
        self._shown = text
        self.update(text, layout=False)  # one line, always: no reflow

    def on_resize(self) -> None:
        self._show()  # another width keeps other parts
