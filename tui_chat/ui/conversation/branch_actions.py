"""What the message list's branch keys ask for, decided for the conversation: switch to
another alternative, delete a message and its subtree (asked first), fork into a new
conversation, continue from a reply cut off by a failure.

Every change of the active path is shown the same way (`show_path_change`): the views above
the branch point stay, the part below is read from the store and drawn. Nothing here runs
while a reply streams (the stream writes to the active path).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message as TextualMessage
from textual.timer import Timer

from tui_chat.core.errors import TuiChatError
from tui_chat.core.models import Message, Role
from tui_chat.core.text import one_line
from tui_chat.ui.conversation.context_status import FIGURES_AFTER
from tui_chat.ui.messages import ConversationChanged
from tui_chat.ui.widgets.message_list import MessageList

if TYPE_CHECKING:
    from tui_chat.core.workspace import Workspace
    from tui_chat.ui.conversation.context_status import ContextStatus
    from tui_chat.ui.conversation.controller import ConversationController
    from tui_chat.ui.conversation.view import ConversationUI

KNOWN_LIMIT = 4_000
"""Messages of branches left behind kept for switching back (see `_remember`)."""
CONTINUE_NOTE = ("your next message continues from the cut-off reply (it is sent as "
                 "context); Esc cancels")


class BranchActions:
    """Switch, delete, fork and continue-from, for one conversation."""

    def __init__(self, controller: ConversationController, view: ConversationUI,
                 context_status: ContextStatus) -> None:
        self.controller = controller
        self.view = view
        self.context_status = context_status
        self._known: dict[str, Message] = {}
        self._context_timer: Timer | None = None

    async def handle(self, request: TextualMessage) -> None:
        """One of the message list's branch requests."""
        if isinstance(request, MessageList.BranchRequested):
            await self.switch(request.message, request.step)
        elif isinstance(request, MessageList.DeleteRequested):
            self.delete(request.message)
        elif isinstance(request, MessageList.ForkRequested):
            await self.fork(request.message)
        elif isinstance(request, MessageList.ContinuePartialRequested):
            self.continue_from(request.message)

    @property
    def workspace(self) -> Workspace:
        return self.controller.workspace

    @property
    def continue_partial(self) -> bool:
        """The next message continues from the cut-off reply (the controller's)."""
        return self.controller.continue_partial

    def _busy(self) -> bool:
        return self.controller.busy()

    def _failed(self, error: TuiChatError) -> None:
        self.view.say(error.message, severity="error")

    async def show_path_change(self, after_id: str | None) -> None:
        """The active path changed below `after_id` (None: from the first message): keep
        what is shown down to it, show the new path below it."""
        compared = self.controller.comparison is not None
        await self.controller.settle_comparison()
        message_list = self.view.message_list
        session = self.workspace.session
        if after_id is None:
            keep = 0
        else:
            keep = next((i + 1 for i, m in enumerate(message_list.messages) if m.id == after_id),
                        -1)
        if keep < 0:  # not on screen (changed elsewhere meanwhile): show the store's path
            await message_list.load(session.messages())
        else:
            dropped = message_list.messages[keep:]
            await message_list.show_branch(keep, session.path_below(after_id, self._known))
            self._remember(dropped)
        if compared or keep <= 0 or not message_list.messages:
            # The title, model and system prompt are the conversation's, not the path's:
            # only a comparison settled (its label), an emptied list (its hint) or another
            # path from the top changes them (each part drawn again costs the frame that
            # shows the switch).
            self.view.refresh_chrome()
        self._context_after_frame()

    def _context_after_frame(self) -> None:
        """The status line's context is the path's now shown: worked out after the frame
        (estimating a long path takes a while), once for switches in a row."""
        if self._context_timer is not None:
            self._context_timer.stop()
        self._context_timer = self.view.set_timer(FIGURES_AFTER, self.context_status.refresh)

    def _remember(self, dropped: list[Message]) -> None:
        """Keep the messages of the branch just left: switching back reuses them instead of
        reading (and validating) every row of a long branch again."""
        if len(self._known) + len(dropped) > KNOWN_LIMIT:
            self._known = {}
        self._known.update((m.id, m) for m in dropped[:KNOWN_LIMIT])

    async def switch(self, message: Message, step: int) -> None:
        if self._busy():
            return
        try:
            change = self.workspace.session.switch_sibling(message.id, step)
        except TuiChatError as error:
            self._failed(error)
            return
        if change is not None:
            await self.show_path_change(change.after_id)

    def delete(self, message: Message) -> None:
        if self._busy():
            return
        who = "your message" if message.role is Role.USER else "this reply"
        preview = one_line(message.content, 60) or "(empty)"
        question = (f"Delete {who} and everything below it, on every branch?\n\n“{preview}”"
                    "\n\nThis cannot be undone.")

        async def answered(yes: bool | None) -> None:
            if yes:
                await self._delete(message)

        self.view.open_confirm(question, answered, yes="Delete", danger=True)

    async def _delete(self, message: Message) -> None:
        try:
            change = self.workspace.session.delete(message.id)
        except TuiChatError as error:
            self._failed(error)
            return
        self.controller.forget_edit(message.id)
        if change is not None:
            await self.show_path_change(change.after_id)
        self.view.say("Deleted, with everything below it.")
        self.view.post_message(ConversationChanged(message.conversation_id))

    async def fork(self, message: Message) -> None:
        if self._busy():
            return
        workspace = self.workspace
        try:
            messages = workspace.fork(message.id)
        except TuiChatError as error:
            self._failed(error)
            return
        self.controller.cancel_edit()
        await self.view.show_messages(messages)
        self.view.say(f"Continuing in a new conversation, “{one_line(workspace.title, 60)}”; "
                      "the original is unchanged (Ctrl+B lists both).")
        self.view.post_message(ConversationChanged(workspace.session.conversation.id))
        self.view.focus_prompt()

    def continue_from(self, message: Message) -> None:
        if not self.controller.choose_continue_partial():  # Esc cancels it
            return
        self.view.set_note(CONTINUE_NOTE)
        self.view.focus_prompt()
