"""The offer when a prompt would not fit the model's window: leave the oldest turns out of the
context, send a summary of them in their place (written by the conversation's model; the
turns stay, see core.summaries), or pick a model with a larger window. When a summary in
force is what leaves no room (every turn summarised), leaving out leaves the summary out too,
and no summary of it is offered. Dismisses with "leave", "summarise", "model" or None. "model"
opens the picker filtered to the models whose window is larger than the message needs
(core.context.needed_window), largest first."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui_chat.core.context import ContextPlan, short_tokens
from tui_chat.core.text import one_line


def offer_text(plan: ContextPlan, model: str, turns: int) -> str:
    window = short_tokens(plan.use.window or 0)
    head = (f"This message would make the conversation about {short_tokens(plan.use.tokens)} "
            f"tokens: more than fits in the {window}-token window of {one_line(model, 60)} "
            "with room for a reply, so it was not sent.")
    if plan.keep_from is None:
        return (f"{head}\n\nEven without the earlier messages it would not fit: pick a model "
                "with a larger window, or shorten the message.")
    if turns == 0:  # every turn is summarised: the summary is what leaves no room
        return (f"{head}\n\nThe summary sent in place of the earlier turns leaves no room "
                "for it. Leave the summary out too, and send the message without the earlier "
                "turns? The turns and the summary stay in the conversation. Or pick a model "
                "with a larger window.")
    return (f"{head}\n\nLeave the oldest {turns} turn{'' if turns == 1 else 's'} "
            f"({plan.left_out} message{'' if plan.left_out == 1 else 's'}) out of the context? "
            "They stay in the conversation, marked “out of context”, and are no longer sent. "
            "Or send a summary of them in their place, written by the model (s), or pick a "
            "model with a larger window.")


class ContextOverflowScreen(ModalScreen[str | None]):
    DEFAULT_CSS = """
    ContextOverflowScreen { align: center middle; }
    ContextOverflowScreen > Vertical {
        width: 84; max-width: 96%; height: auto;
        border: thick $warning 70%; background: $surface; padding: 1 2;
    }
    ContextOverflowScreen .question { width: 1fr; }
    ContextOverflowScreen .buttons { height: auto; align-horizontal: right; margin-top: 1; }
    ContextOverflowScreen Button { margin-left: 1; min-width: 10; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("l", "choose('leave')", "Leave out", id="overflow.leave_out",
                tooltip="Leave the oldest turns out of the context and send"),
        Binding("s", "choose('summarise')", "Summarise", id="overflow.summarise",
                tooltip="Send a summary of the oldest turns in their place (the turns stay)"),
        Binding("m", "choose('model')", "Other model", id="overflow.model",
                tooltip="Pick a model with a larger window (the picker lists those whose "
                "window holds the message, largest first)"),
        Binding("escape", "choose(None)", "Cancel", id="overflow.cancel"),
    ]

    def __init__(self, plan: ContextPlan, model: str, turns: int) -> None:
        super().__init__()
        self.plan = plan
        self.text = offer_text(plan, model, turns)
        self.summarises = plan.keep_from is not None and turns > 0
        """Whether a summary is offered: not of a summary alone (no turn is left out)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.text, classes="question", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Other model (m)", id="model")
                if self.summarises:
                    yield Button("Summarise (s)", id="summarise")
                if self.plan.keep_from is not None:
                    yield Button("Leave out (l)", id="leave", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#leave" if self.plan.keep_from is not None else "#model",
                       Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_choose(None if event.button.id == "cancel" else event.button.id)

    def action_choose(self, choice: str | None) -> None:
        if choice in ("leave", "summarise") and self.plan.keep_from is None:
            return
        if choice == "summarise" and not self.summarises:
            return
        self.dismiss(choice)
