"""The conversation's context and cost: the status line's figures, the marks on the
messages left out of the context, and the check before a prompt is sent.

The decisions are the core's (`Workspace.context_plan`, `tui_chat.core.context`); this shows
them. Before sending, a request that would not fit the window is not sent: the user is offered
to leave the oldest turns out (`ContextOverflowScreen`), or to pick another model; from 80 % of
the window on the prompt goes, and the status line warns.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tui_chat.core.context import ContextPlan, context_text, needed_window
from tui_chat.core.costs import cost_line
from tui_chat.core.errors import TuiChatError
from tui_chat.core.models import AttachmentInfo, Message, Role
from tui_chat.core.quota import quota_text

if TYPE_CHECKING:
    from tui_chat.core.workspace import Workspace
    from tui_chat.ui.conversation.attach_flow import AttachFlow
    from tui_chat.ui.conversation.controller import ConversationController
    from tui_chat.ui.conversation.view import ConversationUI

FIGURES_AFTER = 0.05
"""Seconds after a conversation is shown that its context and cost are worked out: after its
first frame (a screen update is due every 1/60 s), so that the messages come first."""


class ContextStatus:
    """Shows the workspace's context and cost figures through one conversation's view."""

    def __init__(self, controller: ConversationController, view: ConversationUI,
                 attach_flow: AttachFlow,
                 choose_model: Callable[[Callable[[], None], int | None], None]) -> None:
        self.controller = controller
        self.view = view
        self.attach_flow = attach_flow
        self.choose_model = choose_model
        """Open the model picker, then call the function given once one is chosen."""
        self._reply_cost: float | None = None
        self._saved: float | None = None
        self._quota_of = ""  # the provider whose quota the status line shows

    @property
    def workspace(self) -> Workspace:
        return self.controller.workspace

    def _path(self) -> list[Message]:
        """The active path as shown (what the next request continues), up to the message
        being edited when there is one."""
        messages = self.view.message_list.messages
        editing = self.controller.editing
        if editing is not None:
            ids = [m.id for m in messages]
            if editing.id in ids:
                return messages[:ids.index(editing.id)]
        return messages

    def plan(self, draft: str = "", attachments: Sequence[AttachmentInfo] = ()
             ) -> ContextPlan | None:
        workspace = self.workspace
        if workspace.model is None:
            return None
        try:
            return workspace.context_plan(draft, path=self._path(), attachments=attachments)
        except TuiChatError:  # the store went away: the figure is not worth a failure
            return None

    def refresh(self) -> None:
        """The status line's context and cost from the conversation as it stands, with the
        attachments listed for the next message; the messages before the context's start
        marked as left out. Not while the path is read (newest first): its end does it."""
        if self.view.message_list.reading:
            return
        workspace = self.workspace
        self._show_start()
        listed = self.attach_flow.pending
        # While a comparison is on screen no one model's window is the next request's.
        compared = self.controller.comparison is not None
        plan = (self.plan(attachments=listed)
                if (self.view.message_list.messages or listed) and not compared else None)
        context, warning = "", False
        if plan is not None:
            context, warning = context_text(plan.use), plan.state != "fits"
            fraction = plan.use.fraction
            if warning and fraction is not None:
                context += f" ({min(fraction, 9.99):.0%})"
        total, unpriced = None, 0
        with contextlib.suppress(TuiChatError):
            total, unpriced = workspace.conversation_cost()
        self.view.status.update_info(context=context, context_warning=warning,
                                     cost=cost_line(self._reply_cost, total, unpriced,
                                                    self._saved))

    def reply_ended(self, message: Message) -> None:
        self._reply_cost = message.usage.cost_usd if message.usage is not None else None
        workspace = self.workspace
        self._saved = workspace.context.cache_saving(message)
        with contextlib.suppress(TuiChatError):  # what is left of the provider's quota
            self.view.status.update_info(quota=quota_text(workspace.client().quota))
            self._quota_of = workspace.provider.name
        self.refresh()

    def changed(self, *, after_frame: bool = False) -> None:
        """Another model or conversation: the last reply's figures are no longer this one's.
        `after_frame`: a conversation just shown, whose messages are drawn first; the context
        and cost follow in the next moment (estimating a long path takes a while)."""
        self._reply_cost = self._saved = None
        if self._quota_of != self.workspace.provider.name:
            self.view.status.update_info(quota="")
        self.view.status.update_info(time_to_first_token=None, tokens_per_second=None,
                                     usage=None, speed_estimated=False, note="",
                                     **({"context": "", "cost": ""} if after_frame else {}))
        if after_frame:
            self._show_start()
            # A timer, not call_after_refresh: that ran before the messages were painted.
            self.view.set_timer(FIGURES_AFTER, self.refresh)
        else:
            self.refresh()

    def before_send(self, text: str, send: Callable[[str], None],
                    attachments: Sequence[AttachmentInfo] = ()) -> None:
        """Send `text` (with `attachments`) now if it fits the window; else offer what can be
        done about it."""
        plan = self.plan(text, attachments)
        if plan is None or plan.state != "over":
            send(text)
            return
        workspace = self.workspace
        def chosen(choice: str | None) -> None:
            if choice == "leave" and plan.keep_from is not None:
                try:
                    workspace.leave_out_before(plan.keep_from)
                except TuiChatError as error:
                    self.view.say(error.message, severity="error")
                    return
                self.refresh()
                send(text)
            elif choice == "summarise" and plan.keep_from is not None:
                self.view.run_worker(self._summarise(plan.keep_from, text, send, attachments),
                                     group="summary", exit_on_error=True)
            elif choice == "model":
                self.choose_model(lambda: self.before_send(text, send, attachments),
                                  needed_window(plan))

        self.view.open_context_offer(plan, workspace.model or "", self._turns(plan), chosen)

    async def _summarise(self, keep_from: str, text: str, send: Callable[[str], None],
                         attachments: Sequence[AttachmentInfo]) -> None:
        """Have the conversation's model summarise the turns before `keep_from`, then send
        `text` with the summary in their place, when it now fits (a summary longer than
        what it replaces does not: the offer comes again); an error is said, and the text
        stays."""
        self.view.say("Writing a summary of the oldest turns…")
        try:
            await self.workspace.summarise_before(keep_from)
        except TuiChatError as error:
            self.view.say(error.message, severity="error")
            return
        self.refresh()
        self.before_send(text, send, attachments)

    def _show_start(self) -> None:
        """Mark the messages shown that are not sent as context (before the first one sent:
        after a summary, the first one it does not cover), and show the summary in force
        after the last one it covers."""
        messages = self.view.message_list
        try:
            start, summary = self.workspace.session.context_start(messages.messages)
        except TuiChatError:  # the store went away: nothing is marked
            start, summary = None, None
        messages.set_context_from(start)
        messages.set_summary(summary)

    def _turns(self, plan: ContextPlan) -> int:
        """How many of the user's turns leaving out `plan.left_out` messages leaves out
        (counted from the context's start: turns left out or summarised before are not)."""
        path = self._path()
        ids = [m.id for m in path]
        try:
            start = self.workspace.session.context_start(path)[0]
        except TuiChatError:  # the store went away: count from the top
            start = None
        begin = ids.index(start) if start in ids else 0
        end = ids.index(plan.keep_from) if plan.keep_from in ids else 0
        return sum(1 for m in path[begin:end] if m.role is Role.USER)
