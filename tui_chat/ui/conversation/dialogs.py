"""The modal questions the conversation's helpers open: `Dialogs`, implemented by the
conversation screen (`ui/screens/conversation_dialogs.py`), which pushes the screens of
`ui/screens/` (this package imports none of them).

Each opens the dialog and returns at once; `answered` is called with the user's answer
(None: cancelled) when it is dismissed, as Textual's `push_screen` callbacks are: the screen
that opened it keeps handling its messages meanwhile. (An exchange's questions, which wait,
are the view's awaitable `confirm` / `ask`.)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from msgspec import Struct

if TYPE_CHECKING:
    from tui_chat.core.context import ContextPlan
    from tui_chat.core.models import Parameters
    from tui_chat.core.personas import Persona

T = TypeVar("T", contravariant=True)


class Answered(Protocol[T]):
    def __call__(self, answer: T, /) -> Awaitable[None] | None:
        ...


ModelRef = tuple[str, str]
"""(provider name, model id)."""


class ModelPick(Struct, frozen=True):
    """The model picker's answer: one model, or 2-4 to compare (`compare`)."""

    models: tuple[ModelRef, ...]
    compare: bool = False


class ChosenSettings(Protocol):
    """The conversation settings dialog's answer."""

    @property
    def system_prompt(self) -> str | None:
        ...

    @property
    def parameters(self) -> Parameters:
        ...

    @property
    def persona(self) -> Persona | None:
        ...


class Dialogs(Protocol):
    def open_confirm(self, question: str, answered: Answered[bool | None], *,
                     yes: str = "Yes", no: str = "No", danger: bool = False) -> None:
        """Yes or no (`question` drawn literally)."""
        ...

    def open_text_prompt(self, question: str, value: str, answered: Answered[str | None], *,
                         max_length: int = 200) -> None:
        """One line of text, `value` offered."""
        ...

    def open_context_offer(self, plan: ContextPlan, model: str, turns: int,
                           answered: Answered[str | None]) -> None:
        """The request would not fit the window: "leave" (the oldest turns out), "model"
        (choose another) or None."""
        ...

    def open_conversation_settings(self, system_prompt: str | None, parameters: Parameters,
                                   personas: Sequence[Persona], title: str,
                                   servers: Sequence[str],
                                   answered: Answered[ChosenSettings | None]) -> None:
        ...

    def open_model_picker(self, *, recent: Sequence[ModelRef], current: ModelRef | None,
                          marked: Sequence[ModelRef], several: bool,
                          answered: Callable[[ModelPick | None], None],
                          min_window: int | None = None) -> None:
        """`min_window`: list only the models whose window is larger, largest first."""
        ...

    def open_attach_picker(self, cwd: Path, answered: Answered[str | None]) -> None:
        ...
