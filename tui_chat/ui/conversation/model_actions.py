"""Choosing what answers the next message, for the conversation: the model picker (one
model, or 2-4 marked to compare), "Compare models…", and the comparison's outcome: the reply
the user continues with.

The picker is imported when it opens: it is not on the start-up path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_chat.core.errors import TuiChatError
from tui_chat.core.models import Message
from tui_chat.core.text import one_line

if TYPE_CHECKING:
    from collections.abc import Callable

    from tui_chat.core.workspace import Workspace
    from tui_chat.ui.conversation.context_status import ContextStatus
    from tui_chat.ui.conversation.controller import ConversationController
    from tui_chat.ui.conversation.dialogs import ModelPick
    from tui_chat.ui.conversation.view import ConversationUI

COMPARE_TITLE = "Compare models…"
SEVERAL_PROVIDERS = "several"
"""The status line's provider while models of more than one provider are compared."""


def comparing_label(count: int) -> str:
    """The status line's model while a comparison is on screen."""
    return f"comparing {count} models"


class ModelActions:
    """The picker and the comparisons of one conversation."""

    def __init__(self, controller: ConversationController, view: ConversationUI,
                 context_status: ContextStatus) -> None:
        self.controller = controller
        self.view = view
        self.context_status = context_status

    @property
    def workspace(self) -> Workspace:
        return self.controller.workspace

    def choose(self, *, then_regenerate: bool = False, compare: bool = False,
               then: Callable[[], None] | None = None, reply_id: str | None = None,
               min_window: int | None = None) -> None:
        """Open the picker; `then`: what to do once one model is chosen (`then_regenerate`:
        write `reply_id` again, None the last reply); `min_window`: only models with a
        larger window, largest first."""
        workspace = self.workspace
        recent = list(workspace.recent_models())
        current = (workspace.provider_name, workspace.model) if workspace.model else None
        marked = list(workspace.compare_models)
        if compare and not marked and current is not None:
            marked = [current]  # comparing starts from the model in use

        def chosen(choice: ModelPick | None) -> None:
            if choice is None:
                return
            if choice.compare:
                self._compare_next(choice)
            else:
                self._use(choice.models[0], then_regenerate, then, reply_id)

        self.view.open_model_picker(recent=recent, current=current, marked=marked,
                                    several=not then_regenerate, answered=chosen,
                                    min_window=min_window)

    def _use(self, choice: tuple[str, str], then_regenerate: bool,
             then: Callable[[], None] | None, reply_id: str | None = None) -> None:
        try:
            self.workspace.choose(*choice)
        except TuiChatError as error:
            self.view.say(error.message, severity="error")
            return
        self.view.refresh_chrome()
        self.context_status.changed()
        if then_regenerate:
            self.controller.regenerate(reply_id)
        if then is not None:
            then()

    def _compare_next(self, comparison: ModelPick) -> None:
        try:
            self.workspace.choose_several(list(comparison.models))
        except TuiChatError as error:
            self.view.say(error.message, severity="error")
            return
        self.view.refresh_chrome()
        self.view.say(f"Your next message goes to {len(comparison.models)} models at once; "
                      "F2 chooses one model again.")

    def compare_label(self) -> str | None:
        """The status line's model while the next message is a comparison ("compare 2: a ·
        b") or one is on screen ("comparing 3 models", until a reply is chosen: the model in
        use before it answers neither)."""
        shown = self.controller.comparison
        if shown is not None:
            return comparing_label(len(shown.models))
        models = self.workspace.compare_models
        if not models:
            return None
        return f"compare {len(models)}: " + " · ".join(one_line(m, 30) for _, m in models)

    def compare_provider(self) -> str | None:
        """The status line's provider while a comparison is next or on screen: theirs when
        the models compared share one, else SEVERAL_PROVIDERS (None: no comparison)."""
        shown = self.controller.comparison
        models = shown.models if shown is not None else self.workspace.compare_models
        if not models:
            return None
        providers = {name for name, _ in models}
        return providers.pop() if len(providers) == 1 else SEVERAL_PROVIDERS

    async def continue_with(self, message: Message) -> None:
        """The user chose `message` among the compared replies."""
        try:
            self.workspace.choose_reply(message.id)
        except TuiChatError as error:
            self.view.say(error.message, severity="error")
            return
        await self.controller.settle_comparison()
        self.view.refresh_chrome()  # the chosen model, now the one in use
        self.context_status.changed()  # and its window: the figures were the old model's
        self.view.status.update_info(state="ready", note="")
        self.view.focus_prompt()
