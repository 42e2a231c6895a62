"""Choosing what answers the next message, for the conversation screen: the model picker (one
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

    from tui_chat.ui.screens.conversation import ConversationScreen
    from tui_chat.ui.screens.model_picker import Comparison, ModelChoice

COMPARE_TITLE = "Compare models…"


class ModelActions:
    """The picker and the comparisons of one conversation screen."""

    def __init__(self, host: ConversationScreen) -> None:
        self.host = host

    def choose(self, *, then_regenerate: bool = False, compare: bool = False,
               then: Callable[[], None] | None = None, reply_id: str | None = None) -> None:
        """Open the picker; `then`: what to do once one model is chosen (`then_regenerate`:
        write `reply_id` again, None the last reply)."""
        from tui_chat.ui.screens.model_picker import Comparison, ModelChoice, ModelPickerScreen

        workspace = self.host.workspace
        recent = [ModelChoice(p, m) for p, m in workspace.recent_models()]
        current = (ModelChoice(workspace.provider_name, workspace.model) if workspace.model
                   else None)
        marked = [ModelChoice(p, m) for p, m in workspace.compare_models]
        if compare and not marked and current is not None:
            marked = [current]  # comparing starts from the model in use
        picker = ModelPickerScreen(workspace.settings, catalog=workspace.catalog,
                                   recent=recent, current=current,
                                   several=not then_regenerate, marked=marked)

        def chosen(choice: ModelChoice | Comparison | None) -> None:
            if isinstance(choice, Comparison):
                self._compare_next(choice)
            elif choice is not None:
                self._use(choice, then_regenerate, then, reply_id)

        self.host.app.push_screen(picker, chosen)

    def _use(self, choice: ModelChoice, then_regenerate: bool,
             then: Callable[[], None] | None, reply_id: str | None = None) -> None:
        try:
            self.host.workspace.choose(choice.provider, choice.model)
        except TuiChatError as error:
            self.host.notify(error.message, severity="error", markup=False)
            return
        self.host.refresh_chrome()
        self.host.context_status.changed()
        if then_regenerate:
            self.host.controller.regenerate(reply_id)
        if then is not None:
            then()

    def _compare_next(self, comparison: Comparison) -> None:
        try:
            self.host.workspace.choose_several([(m.provider, m.model)
                                                for m in comparison.models])
        except TuiChatError as error:
            self.host.notify(error.message, severity="error", markup=False)
            return
        self.host.refresh_chrome()
        self.host.notify(f"Your next message goes to {len(comparison.models)} models at once; "
                         "F2 chooses one model again.", markup=False)

    def compare_label(self) -> str | None:
        """The status line's model while the next message is a comparison."""
        models = self.host.workspace.compare_models
        if not models:
            return None
        return f"compare {len(models)}: " + " · ".join(one_line(m, 30) for _, m in models)

    async def continue_with(self, message: Message) -> None:
        """The user chose `message` among the compared replies."""
        host = self.host
        try:
            host.workspace.choose_reply(message.id)
        except TuiChatError as error:
            host.notify(error.message, severity="error", markup=False)
            return
        await host.settle_comparison()
        host.refresh_chrome()
        host.status.update_info(state="ready", note="")
        host.prompt.focus()
