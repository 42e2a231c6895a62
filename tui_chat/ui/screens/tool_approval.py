"""The question a tool call is put to the user with, before it runs (issue 23).

A modal names the server, the tool and the arguments (pretty-printed JSON) and offers the
four answers of core.mcp.approval: run once, always for this tool (in this conversation),
always for this server (in this conversation), deny. A denial may carry a reason, which goes
back to the model as part of the tool's result. It dismisses with a `core.mcp.loop.Approval`.

Keyboard first, each key shown on its button: 1 run once, 2 always for this tool, 3 always
for this server, d deny (Esc too: leaving the question is never a yes). r puts the cursor
in the reason; Enter there denies with it. Nothing is focused that Enter would approve: a
stray Enter does nothing.

Everything shown comes from the model or the server and is untrusted: drawn as plain
`rich.text.Text` after `sanitize` (no markup is read; ESC and the other controls a terminal
would act on are dropped), and the arguments are cut at `SHOWN_CHARS` with a marker saying
how much is not shown (a 1 MB argument is not laid out in a modal).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from tui_chat.core.mcp.approval import Answer
from tui_chat.core.mcp.loop import Approval
from tui_chat.core.text import one_line, sanitize

SHOWN_CHARS = 20_000
"""Characters of the arguments shown; the rest is named by a marker."""
DESCRIPTION_CHARS = 300
"""Characters of the tool's description shown (one paragraph, its first)."""

BUTTONS: tuple[tuple[str, str, Answer], ...] = (
    ("once", "1  Run once", Answer.ONCE),
    ("tool", "2  Always for this tool", Answer.ALWAYS_TOOL),
    ("server", "3  Always for this server", Answer.ALWAYS_SERVER),
    ("deny", "d  Deny", Answer.DENY),
)


def arguments_text(arguments: Mapping[str, Any] | str, limit: int = SHOWN_CHARS) -> Text:
    """The arguments as pretty JSON (a text that is not JSON as it is), literal, cut at
    `limit` characters with a marker."""
    if isinstance(arguments, str):
        with contextlib.suppress(ValueError):
            arguments = json.loads(arguments) if arguments.strip() else {}
    shown = (arguments if isinstance(arguments, str)
             else json.dumps(arguments, indent=2, ensure_ascii=False))
    text = Text(sanitize(shown[:limit]))
    if len(shown) > limit:
        text.append(f"\n… {len(shown) - limit:,} more characters not shown", style="italic")
    return text


class ToolApprovalScreen(ModalScreen[Approval]):
    """Ask whether a tool call may run; see the module's docstring."""

    DEFAULT_CSS = """
    ToolApprovalScreen { align: center middle; }
    ToolApprovalScreen > Vertical {
        width: 84; max-width: 95%; height: auto; max-height: 90%;
        border: thick $warning 70%; border-title-align: center;
        background: $surface; padding: 0 1;
    }
    ToolApprovalScreen .what { height: auto; }
    ToolApprovalScreen .description { height: auto; color: $text-muted; margin-bottom: 1; }
    ToolApprovalScreen #arguments {
        height: auto; max-height: 16; border: round $panel; background: $boost;
    }
    ToolApprovalScreen #arguments > Static { width: 1fr; }
    ToolApprovalScreen #reason { margin-top: 1; }
    ToolApprovalScreen #buttons { height: auto; margin-top: 1; }
    ToolApprovalScreen #buttons Button { margin-right: 1; min-width: 10; }
    ToolApprovalScreen .keys { color: $text-muted; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "answer('once')", "Run once", id="tool_approval.once"),
        Binding("2", "answer('tool')", "Always for this tool", id="tool_approval.tool"),
        Binding("3", "answer('server')", "Always for this server", id="tool_approval.server"),
        Binding("d,escape", "answer('deny')", "Deny", id="tool_approval.deny"),
        Binding("r", "reason", "Deny with a reason", id="tool_approval.reason"),
    ]

    def __init__(self, server: str, tool: str, arguments: Mapping[str, Any] | str, *,
                 description: str = "") -> None:
        super().__init__()
        self.server = server
        self.tool = tool
        self.arguments = arguments
        self.description = description

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Run a tool?"
            what = Text("The model asks to run the tool ")
            what.append(one_line(self.tool, 64), style="bold")
            what.append(" of the server ")
            what.append(one_line(self.server, 64), style="bold")
            what.append(" with these arguments:")
            yield Static(what, classes="what")
            with VerticalScroll(id="arguments"):
                yield Static(arguments_text(self.arguments), id="arguments-text")
            if self.description.strip():
                first = self.description.strip().split("\n\n", 1)[0]
                yield Static(Text(one_line(first, DESCRIPTION_CHARS)), classes="description")
            yield Input(placeholder="Reason for a denial (optional; r), sent to the model",
                        id="reason", max_length=500, compact=True)
            with Horizontal(id="buttons"):
                for name, label, answer in BUTTONS:
                    yield Button(label, id=name, compact=True,
                                 variant="error" if answer is Answer.DENY else "default")
            yield Static(Text("1 once · 2 always this tool · 3 always this server · "
                              "d or Esc deny · r reason, then Enter denies"), classes="keys")

    def on_mount(self) -> None:
        # A stray Enter must not approve: the arguments (scrollable) have the focus.
        self.query_one("#arguments", VerticalScroll).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id or "deny")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_answer("deny")

    def action_reason(self) -> None:
        self.query_one("#reason", Input).focus()

    def action_answer(self, name: str) -> None:
        answer = next((a for n, _, a in BUTTONS if n == name), Answer.DENY)
        reason = ""
        if answer is Answer.DENY:
            reason = " ".join(sanitize(self.query_one("#reason", Input).value).split())
        self.dismiss(Approval(answer, reason))
