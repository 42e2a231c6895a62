"""Small modal questions: yes/no (`ConfirmScreen`) and one line of text (`TextPromptScreen`)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from tui_chat.core.text import sanitize

_CSS = """
ConfirmScreen, TextPromptScreen {
    align: center middle;
}
ConfirmScreen > Vertical, TextPromptScreen > Vertical {
    width: 64;
    max-width: 90%;
    height: auto;
    border: thick $primary 70%;
    background: $surface;
    padding: 1 2;
}
ConfirmScreen .question, TextPromptScreen .question {
    width: 1fr;
    margin-bottom: 1;
}
ConfirmScreen .buttons, TextPromptScreen .buttons {
    height: auto;
    align-horizontal: right;
    margin-top: 1;
}
ConfirmScreen Button, TextPromptScreen Button {
    margin-left: 2;
}
TextPromptScreen .problem {
    color: $error;
    height: auto;
}
"""


class ConfirmScreen(ModalScreen[bool]):
    """Ask a yes/no question; dismisses with True only on an explicit yes."""

    DEFAULT_CSS = _CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str, *, yes: str = "Yes", no: str = "No",
                 danger: bool = False) -> None:
        super().__init__()
        self.question = sanitize(question)
        self.yes_label = yes
        self.no_label = no
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, classes="question", markup=False)
            with Horizontal(classes="buttons"):
                yield Button(self.no_label, id="no")
                yield Button(self.yes_label, id="yes",
                             variant="error" if self.danger else "primary")

    def on_mount(self) -> None:
        # Safe default: a stray Enter answers "no".
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class TextPromptScreen(ModalScreen[str | None]):
    """Ask for one line of text (e.g. a new title); None when cancelled.

    The answer is stripped; an empty answer is refused with a message when `allow_empty`
    is False.
    """

    DEFAULT_CSS = _CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="prompt.cancel"),
    ]

    def __init__(self, question: str, value: str = "", *, placeholder: str = "",
                 allow_empty: bool = False, max_length: int = 200) -> None:
        super().__init__()
        self.question = sanitize(question)
        self.initial = sanitize(value).replace("\n", " ")
        self.placeholder = placeholder
        self.allow_empty = allow_empty
        self.max_length = max_length

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, classes="question", markup=False)
            yield Input(self.initial, placeholder=self.placeholder, id="answer",
                        max_length=self.max_length)
            yield Label("", classes="problem", id="problem", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("OK", id="ok", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#answer", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._submit(event.value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "ok":
            self._submit(self.query_one("#answer", Input).value)
        else:
            self.dismiss(None)

    def _submit(self, value: str) -> None:
        answer = " ".join(sanitize(value).split())
        if not answer and not self.allow_empty:
            self.query_one("#problem", Label).update("Type some text, or press Esc to cancel.")
            return
        self.dismiss(answer)

    def action_cancel(self) -> None:
        self.dismiss(None)
