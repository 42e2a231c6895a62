"""What Enter in the prompt and Ctrl+R start, decided for the conversation's view: the
guards (the path read whole, no reply streaming, something to regenerate), the attachments
that go with the message and the context check before it goes (`ContextStatus.before_send`),
then the exchange the controller chooses, run by the view's worker."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_chat.core.models import Role

if TYPE_CHECKING:
    from tui_chat.ui.conversation.attach_flow import AttachFlow
    from tui_chat.ui.conversation.context_status import ContextStatus
    from tui_chat.ui.conversation.controller import ConversationController
    from tui_chat.ui.conversation.model_actions import ModelActions
    from tui_chat.ui.conversation.view import Surface

STILL_STREAMING_ON_SEND = "A reply is still streaming: wait for it, or press Esc to stop it."
NOTHING_TO_REGENERATE = "There is nothing to regenerate yet: send a message first."


class SendFlow:
    """Sending and regenerating, for one conversation."""

    def __init__(self, controller: ConversationController, view: Surface,
                 attach_flow: AttachFlow, context_status: ContextStatus,
                 models: ModelActions) -> None:
        self.controller = controller
        self.view = view
        self.attach_flow = attach_flow
        self.context_status = context_status
        self.models = models

    async def submit(self, text: str) -> None:
        """Enter with `text` in the prompt."""
        if not await self.view.whole_path():
            return  # another conversation came meanwhile: the text stays in the prompt
        if self.controller.busy(STILL_STREAMING_ON_SEND):
            return
        if self.controller.editing_summary:  # Enter saves it; nothing is sent
            if self.controller.save_summary(text):
                self.context_status.refresh()
            return
        editing = self.controller.editing is not None
        attachments = [] if editing else self.attach_flow.collect(text)
        if attachments is None:
            return  # said why; the prompt and the list stay as they are
        self.context_status.before_send(text, self._send_now, attachments)

    def _send_now(self, text: str) -> None:
        prompt = self.view.prompt
        prompt.remember(text)
        prompt.clear()
        attachments = self.attach_flow.take() if self.controller.editing is None else []
        self.view.start_exchange(self.controller.exchange_for(text, attachments))

    async def regenerate(self, choose_model: bool = False, reply_id: str | None = None
                         ) -> None:
        """Write `reply_id` again (None: the last reply); `choose_model`: with a model
        picked first."""
        if not await self.view.whole_path() or self.controller.busy():
            return
        if not any(m.role is Role.USER for m in self.view.message_list.messages):
            self.view.say(NOTHING_TO_REGENERATE, severity="warning")
            return
        if choose_model:
            self.models.choose(then_regenerate=True, reply_id=reply_id)
            return
        self.controller.regenerate(reply_id)
