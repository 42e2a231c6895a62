"""The conversation screen's dialogs (`ui.conversation.dialogs.Dialogs`, and the view's
awaitable `confirm` / `ask`): the modal screens of this folder, pushed for the
conversation's helpers, which import no screen. Each dialog's module is imported when it
first opens: none is on the start-up path."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual.screen import Screen

if TYPE_CHECKING:
    from tui_chat.core.context import ContextPlan
    from tui_chat.core.models import Parameters
    from tui_chat.core.personas import Persona
    from tui_chat.core.workspace import Workspace
    from tui_chat.ui.conversation.dialogs import Answered, ChosenSettings, ModelPick, ModelRef
    from tui_chat.ui.screens.model_picker import Comparison, ModelChoice

T = TypeVar("T")


class ConversationDialogs(Screen[None]):
    """Mixed into `ConversationScreen`."""

    workspace: Workspace

    # --- the exchange's questions (awaited in the exchange's worker) ------------------------

    async def confirm(self, question: str) -> bool:
        """The confirm dialog, drawn over this screen once it shows what the exchange drew
        (ui/tool_approval_glue.py); the exchange cancelled meanwhile takes it away."""
        from tui_chat.ui.tool_approval_glue import ScreenAsker

        return await ScreenAsker(self).confirm(question)

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        """No dialog offers choices yet (the tool approval's comes with the tools' issue):
        declined, as `core.asker.REFUSE` does."""
        return None

    # --- the helpers' dialogs (answered through a callback) ---------------------------------

    def _open(self, modal: Screen[Any], answered: Callable[[Any], Any]) -> None:
        """Push `modal` once this screen has been laid out and drawn: Textual lays out only
        the current screen, so a dialog pushed in the same breath as a change below it (the
        message just sent, the list scrolled to it) would keep the stale frame behind it
        (as ScreenAsker does for the exchange's questions)."""
        self.call_after_refresh(self.app.push_screen, modal, answered)

    def open_confirm(self, question: str, answered: Answered[bool | None], *,
                     yes: str = "Yes", no: str = "No", danger: bool = False) -> None:
        from tui_chat.ui.screens.confirm import ConfirmScreen

        self._open(ConfirmScreen(question, yes=yes, no=no, danger=danger), answered)

    def open_text_prompt(self, question: str, value: str, answered: Answered[str | None], *,
                         max_length: int = 200) -> None:
        from tui_chat.ui.screens.confirm import TextPromptScreen

        self._open(TextPromptScreen(question, value, max_length=max_length), answered)

    def open_context_offer(self, plan: ContextPlan, model: str, turns: int,
                           answered: Answered[str | None]) -> None:
        from tui_chat.ui.screens.context_offer import ContextOverflowScreen

        self._open(ContextOverflowScreen(plan, model, turns), answered)

    def open_conversation_settings(self, system_prompt: str | None, parameters: Parameters,
                                   personas: Sequence[Persona], title: str,
                                   servers: Sequence[str],
                                   answered: Answered[ChosenSettings | None]) -> None:
        from tui_chat.ui.screens.conversation_settings import ConversationSettingsScreen

        self._open(ConversationSettingsScreen(system_prompt, parameters, personas=personas,
                                              title=title, servers=servers), answered)

    def open_model_picker(self, *, recent: Sequence[ModelRef], current: ModelRef | None,
                          marked: Sequence[ModelRef], several: bool,
                          answered: Callable[[ModelPick | None], None],
                          min_window: int | None = None) -> None:
        from tui_chat.ui.conversation.dialogs import ModelPick
        from tui_chat.ui.screens.model_picker import Comparison, ModelChoice, ModelPickerScreen

        workspace = self.workspace
        picker = ModelPickerScreen(workspace.settings, catalog=workspace.catalog,
                                   recent=[ModelChoice(*m) for m in recent],
                                   current=ModelChoice(*current) if current else None,
                                   several=several, marked=[ModelChoice(*m) for m in marked],
                                   min_window=min_window)

        def chosen(choice: ModelChoice | Comparison | None) -> None:
            if isinstance(choice, Comparison):
                answered(ModelPick(tuple((m.provider, m.model) for m in choice.models),
                                   compare=True))
            elif choice is not None:
                answered(ModelPick(((choice.provider, choice.model),)))
            else:
                answered(None)

        self._open(picker, chosen)

    def open_attach_picker(self, cwd: Path, answered: Answered[str | None]) -> None:
        from tui_chat.ui.screens.attach_picker import AttachScreen

        self._open(AttachScreen(cwd), answered)
