"""Turns session events into widget calls through the conversation's view.

The view owns the worker and the controller the decisions (which method an event is for:
`ConversationController.present`); this draws one exchange (user message, live reply, stats,
errors) as its events arrive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_chat.core.errors import TuiChatError
from tui_chat.core.models import Message
from tui_chat.core.protection import protection_badges
from tui_chat.core.store import ConversationGoneError
from tui_chat.core.text import sanitize
from tui_chat.core.tokens import estimate_tokens
from tui_chat.ui.advice import sentence
from tui_chat.ui.conversation.first_token_wait import FirstTokenWait
from tui_chat.ui.conversation.tool_events import ToolEvent, ToolEvents
from tui_chat.ui.key_hints import hint_key

if TYPE_CHECKING:
    from tui_chat.core.workspace import Workspace
    from tui_chat.ui.conversation.attach_flow import AttachFlow
    from tui_chat.ui.conversation.context_status import ContextStatus
    from tui_chat.ui.conversation.controller import ConversationController
    from tui_chat.ui.conversation.exchange import Exchange
    from tui_chat.ui.conversation.view import Surface
    from tui_chat.ui.widgets.reply_view import ReplyView

STATS_INTERVAL = 1.0
"""Seconds between two updates of the live tokens-per-second figure."""


def cut_off_note() -> str:
    """The status line's note on a reply cut off by a failure, with the user's keys."""
    return (f"not sent as context; {hint_key('conversation.messages', 'Ctrl+O')} then "
            f"{hint_key('messages.continue_partial', 'p')} continues from it")


def cut_note() -> str:
    """The note on a reply that stopped at the max-tokens limit."""
    return ("the reply stopped at the max-tokens limit: raise Max tokens in Settings "
            f"({hint_key('app.settings', 'F3')})")


class ReplyPresenter:
    """Draws one exchange at a time through its view."""

    def __init__(self, controller: ConversationController, view: Surface,
                 context_status: ContextStatus, attach_flow: AttachFlow) -> None:
        self.controller = controller
        self.view = view
        self.context_status = context_status
        self.attach_flow = attach_flow
        self.reply: ReplyView | None = None
        self.sent_text = ""
        self.received = False
        self._started = 0.0
        self._first_token: float | None = None
        self._deltas = 0
        self._tokens = 0
        self._uncounted: list[str] = []
        self._last_stats = 0.0
        self._branch_note = ""
        self.wait = FirstTokenWait(view, controller.workspace.clock)
        self.tools = ToolEvents(view, lambda: controller.workspace)  # calls, results

    @property
    def workspace(self) -> Workspace:
        return self.controller.workspace

    def begin(self, exchange: Exchange) -> None:
        """A new exchange: its text (and attachments) go back into the prompt if nothing
        arrives."""
        self.sent_text = exchange.text
        self.received = False
        self.attach_flow.going(exchange.attachments)

    async def content(self, text: str) -> None:
        if self.reply is not None:
            self.reply.add_content(text)
        self._count_delta(text)

    async def reasoning(self, text: str) -> None:
        if self.reply is not None:
            self.reply.add_reasoning(text)
        self._count_delta(text, thinking=True)

    async def retry(self, reason: str, delay: float) -> None:
        self.view.status.update_info(state="retrying",
                                     note=f"{sanitize(reason)}; retry in {delay:.0f} s")

    async def reply_started(self, message: Message) -> None:
        await self._reply_started(message)
        await self.tools.end()

    async def reply_finished(self, message: Message) -> None:
        await self._reply_ended(message)
        await self.tools.reply_finished(message)

    async def tool_event(self, event: ToolEvent) -> None:
        await self.tools.apply(event)

    async def reply_failed(self, message: Message, error: TuiChatError) -> None:
        await self.tools.end()
        gone = isinstance(error, ConversationGoneError)
        await self._reply_ended(message, sentence(error), notify=not gone)
        if isinstance(error, ConversationGoneError):  # says so itself, once
            self.controller.conversation_gone(error, replied=True)

    async def column(self, index: int) -> None:
        """A reply has no columns (a comparison is ComparePresenter's)."""
        return None

    async def user_message_saved(self, message: Message) -> None:
        """The user's message is in the store: shown, with the context it is sent with."""
        await self.view.message_list.add_message(message)
        self.view.refresh_chrome()
        self.context_status.refresh()

    async def path_changed(self, after_id: str | None) -> None:
        """The messages shown below `after_id` leave the view (they stay in the store, on
        another branch); the exchange's next events show the new branch."""
        message_list = self.view.message_list
        known = [m.id for m in message_list.messages]
        if after_id is None:
            await message_list.truncate(0)
        elif after_id in known:
            await message_list.truncate(known.index(after_id) + 1)
        else:  # not shown here (another process changed the conversation): show the store's
            await message_list.load(self.workspace.session.messages())

    async def _reply_started(self, message: Message) -> None:
        self.reply = await self.view.message_list.start_reply(message)
        self._started = self.workspace.clock()
        self._first_token = None
        self._deltas = self._tokens = 0
        self._uncounted = []
        self.view.refresh_chrome()
        position = self.reply.position
        self._branch_note = note = (
            f"alternative {position[0]} of {position[1]}; the others: "
            f"{hint_key('conversation.messages', 'Ctrl+O')}, then ←/→"
            if position is not None and position[1] > 1 else "")
        self.view.status.update_info(time_to_first_token=None, tokens_per_second=None,
                                     usage=None, note=note, protection="")
        self.wait.start()

    def _count_delta(self, text: str, thinking: bool = False) -> None:
        self.received = True
        self._deltas += 1
        self._uncounted.append(text)
        now = self.workspace.clock()
        if self._first_token is None:
            self._first_token = now
            self.wait.stop()
            self.view.status.update_info(state="thinking…" if thinking else "streaming…",
                                    time_to_first_token=now - self._started)
            self._last_stats = now
        elif now - self._last_stats >= STATS_INTERVAL:
            self._last_stats = now
            elapsed = now - self._first_token
            # Tokens estimated from the text, counted once each (a chunk is no measure).
            self._tokens += estimate_tokens("".join(self._uncounted))
            self._uncounted.clear()
            self.view.status.update_info(state="thinking…" if thinking else "streaming…",
                                         tokens_per_second=self._tokens / elapsed if elapsed
                                         else None, speed_estimated=True)

    async def _reply_ended(self, message: Message, error: str | None = None, *,
                           notify: bool = True) -> None:
        """A failed reply shows the sentence (with its advice) in its own error row; a toast
        repeating it would only cover the screen, so there is one only when no reply was
        on screen to carry it."""
        self.wait.stop()
        inline = self.view.message_list.reply is not None
        shown = message if error is None else message.model_copy(update={"error": error})
        await self.view.message_list.finish_reply(shown)
        self.reply = None
        cut = message.finish_reason == "length"
        note = (cut_off_note() if message.failed and message.content
                else cut_note() if cut and error is None else self._branch_note)
        self.view.status.update_info(
            state="ready" if error is None else f"{message.status.value}",
            time_to_first_token=message.time_to_first_token,
            tokens_per_second=message.tokens_per_second, usage=message.usage,
            speed_estimated=message.usage is None or not message.usage.completion_tokens,
            note=note, protection=protection_badges(message.sent_as))
        self.context_status.reply_ended(message)
        if error is not None:
            if notify and not inline:
                self.view.say(sanitize(error), title="Reply failed", severity="error",
                              timeout=8)
            if not message.content and not message.reasoning:
                self._restore_prompt()
        self.view.refresh_chrome()

    async def finished(self) -> None:
        """The exchange's events have all arrived: each was drawn as it came."""
        await self.tools.end()

    async def stopped(self) -> None:
        """The worker was cancelled (Esc, quit, another conversation): show what was saved."""
        self.wait.stop()
        await self.tools.end()
        reply, self.reply = self.reply, None
        if reply is None:
            return
        session = self.workspace.session
        ended, unsaved = session.stopped_reply, session.stop_error
        if ended is None or ended.id != reply.message.id:  # stopped before the session saw it
            ended, unsaved = self._saved(reply.message.id), None
        await self.view.message_list.finish_reply(ended)
        note = ("the partial reply is NOT saved" if unsaved is not None
                else "nothing arrived; Enter sends it again" if not self.received
                else "the partial reply is saved")
        self.view.status.update_info(state="stopped", note=note)
        if unsaved is not None and (ended is None or not ended.error):  # else shown inline
            self.view.say(sanitize(unsaved.message), title="Reply not saved",
                          severity="error", timeout=8)
        if not self.received:
            self._restore_prompt()

    def _saved(self, message_id: str) -> Message | None:
        try:
            return self.workspace.store.get_message(message_id)
        except TuiChatError:
            return None

    async def failed_before_reply(self, sentence: str, *, notify: bool = True) -> None:
        self.wait.stop()
        await self.tools.end()
        if self.reply is not None:
            await self.view.message_list.finish_reply(None)
            self.reply = None
        if notify:
            self.view.say(sanitize(sentence), title="Not sent", severity="error", timeout=8)
        self.view.status.update_info(state="ready", note="")
        self._restore_prompt()
        self.view.refresh_chrome()

    def _restore_prompt(self) -> None:
        """Nothing arrived: give the prompt back, unless the user already typed a new one."""
        self.attach_flow.put_back()
        if self.sent_text and not self.view.prompt.text.strip():
            self.view.prompt.restore(self.sent_text)

