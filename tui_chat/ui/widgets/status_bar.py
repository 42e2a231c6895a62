"""One line under the prompt: provider and model, streaming state, how full the model's
window is, speed, usage and cost."""

from __future__ import annotations

import msgspec
from msgspec import Struct
from rich.text import Text
from textual.widgets import Static

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


def status_text(info: StatusInfo) -> Text:
    """The status line as literal text (model names are untrusted)."""
    text = Text()
    text.append(f" {one_line(info.provider, 30)} ", style="bold reverse")
    text.append(f" {one_line(info.model, 60)}", style="bold")
    if info.protection:
        text.append(f"  {info.protection}", style="bold")
    if info.tools:
        text.append(f"  {info.tools}")
    text.append("  │  ")
    text.append(info.state, style="italic")
    if info.context:
        text.append("  │  ")
        if info.context_warning:
            text.append(f"⚠ {info.context}", style="tc.notice")  # see ui.colour_roles
        else:
            text.append(info.context)
    if info.cost:
        text.append(f"  │  {info.cost}")
    if info.quota:
        text.append(f"  │  {info.quota}", style="dim")
    if info.time_to_first_token is not None:
        text.append(f"  │  first token {info.time_to_first_token:.2f} s")
    if info.tokens_per_second is not None:
        about = "≈" if info.speed_estimated else ""
        text.append(f"  │  {about}{info.tokens_per_second:.1f} tok/s")
    if info.usage is not None:
        usage = info.usage
        text.append(f"  │  {usage.prompt_tokens} in · {usage.completion_tokens} out")
    if info.note:
        text.append(f"  │  {one_line(info.note, 80)}", style="dim")
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
        text = status_text(self.info)
        if text == self._shown:
            return
        self._shown = text
        self.update(text, layout=False)  # one line, always: no reflow
