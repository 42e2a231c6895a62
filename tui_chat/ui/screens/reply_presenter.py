"""Turns session events into widget calls for the conversation screen.

Split from the screen so that each stays short: the screen owns the worker and the actions;
this draws one exchange (user message, live reply, stats, errors) as its events arrive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_chat.core.errors import TuiChatError
from tui_chat.core.events import ContentDelta, ReasoningDelta, RetryScheduled
from tui_chat.core.models import Message
from tui_chat.core.protection import protection_badges
from tui_chat.core.session import (
    ActivePathChanged,
    ReplyFailed,
    ReplyFinished,
    ReplyStarted,
    SessionEvent,
    UserMessageSaved,
)
from tui_chat.core.store import ConversationGoneError
from tui_chat.core.text import sanitize
from tui_chat.core.tokens import estimate_tokens
from tui_chat.ui.advice import sentence
from tui_chat.ui.key_hints import hint_key
from tui_chat.ui.screens.first_token_wait import FirstTokenWait
from tui_chat.ui.tool_approval_glue import ToolEvents

if TYPE_CHECKING:
    from tui_chat.core.compare import CompareEvent
    from tui_chat.ui.screens.conversation import ConversationScreen
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
    """Draws one exchange at a time on its conversation screen."""

    def __init__(self, host: ConversationScreen) -> None:
        self.host = host
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
        self.wait = FirstTokenWait(host)
        self.tools = ToolEvents(host)  # the calls and results as they come

    def begin(self, sent_text: str) -> None:
        """A new exchange: `sent_text` goes back into the prompt if nothing arrives."""
        self.sent_text = sent_text
        self.received = False

    async def apply(self, event: SessionEvent | CompareEvent) -> None:
        await self._apply(event)
        await self.tools.apply(event)

    async def _apply(self, event: SessionEvent | CompareEvent) -> None:
        if isinstance(event, ContentDelta):
            if self.reply is not None:
                self.reply.add_content(event.text)
            self._count_delta(event.text)
        elif isinstance(event, ReasoningDelta):
            if self.reply is not None:
                self.reply.add_reasoning(event.text)
            self._count_delta(event.text, thinking=True)
        elif isinstance(event, UserMessageSaved):
            await self.user_message_saved(event.message)
        elif isinstance(event, ActivePathChanged):
            await self.path_changed(event.after_id)
        elif isinstance(event, ReplyStarted):
            await self._reply_started(event.message)
        elif isinstance(event, RetryScheduled):
            self.host.status.update_info(state="retrying",
                                    note=f"{sanitize(event.reason)}; retry in {event.delay:.0f} s")
        elif isinstance(event, ReplyFinished):
            await self._reply_ended(event.message)
        elif isinstance(event, ReplyFailed):
            gone = isinstance(event.error, ConversationGoneError)
            await self._reply_ended(event.message, sentence(event.error), notify=not gone)
            if isinstance(event.error, ConversationGoneError):  # says so itself, once
                self.host.conversation_gone(event.error, replied=True)

    async def user_message_saved(self, message: Message) -> None:
        """The user's message is in the store: shown, with the context it is sent with."""
        await self.host.message_list.add_message(message)
        self.host.refresh_chrome()
        self.host.context_status.refresh()

    async def path_changed(self, after_id: str | None) -> None:
        """The messages shown below `after_id` leave the view (they stay in the store, on
        another branch); the exchange's next events show the new branch."""
        message_list = self.host.message_list
        known = [m.id for m in message_list.messages]
        if after_id is None:
            await message_list.truncate(0)
        elif after_id in known:
            await message_list.truncate(known.index(after_id) + 1)
        else:  # not shown here (another process changed the conversation): show the store's
            await message_list.load(self.host.workspace.session.messages())

    async def _reply_started(self, message: Message) -> None:
        self.reply = await self.host.message_list.start_reply(message)
        self._started = self.host.clock()
        self._first_token = None
        self._deltas = self._tokens = 0
        self._uncounted = []
        self.host.refresh_chrome()
        position = self.reply.position
        self._branch_note = note = (
            f"alternative {position[0]} of {position[1]}; the others: "
            f"{hint_key('conversation.messages', 'Ctrl+O')}, then ←/→"
            if position is not None and position[1] > 1 else "")
        self.host.status.update_info(time_to_first_token=None, tokens_per_second=None,
                                     usage=None, note=note, protection="")
        self.wait.start()

    def _count_delta(self, text: str, thinking: bool = False) -> None:
        self.received = True
        self._deltas += 1
        self._uncounted.append(text)
        now = self.host.clock()
        if self._first_token is None:
            self._first_token = now
            self.wait.stop()
            self.host.status.update_info(state="thinking…" if thinking else "streaming…",
                                    time_to_first_token=now - self._started)
            self._last_stats = now
        elif now - self._last_stats >= STATS_INTERVAL:
            self._last_stats = now
            elapsed = now - self._first_token
            # Tokens estimated from the text, counted once each (a chunk is no measure).
            self._tokens += estimate_tokens("".join(self._uncounted))
            self._uncounted.clear()
            self.host.status.update_info(state="thinking…" if thinking else "streaming…",
                                         tokens_per_second=self._tokens / elapsed if elapsed
                                         else None, speed_estimated=True)

    async def _reply_ended(self, message: Message, error: str | None = None, *,
                           notify: bool = True) -> None:
        """A failed reply shows the sentence (with its advice) in its own error row; a toast
        repeating it would only cover the screen, so there is one only when no reply was
        on screen to carry it."""
        self.wait.stop()
        inline = self.host.message_list.reply is not None
        shown = message if error is None else message.model_copy(update={"error": error})
        await self.host.message_list.finish_reply(shown)
        self.reply = None
        cut = message.finish_reason == "length"
        note = (cut_off_note() if message.failed and message.content
                else cut_note() if cut and error is None else self._branch_note)
        self.host.status.update_info(
            state="ready" if error is None else f"{message.status.value}",
            time_to_first_token=message.time_to_first_token,
            tokens_per_second=message.tokens_per_second, usage=message.usage,
            speed_estimated=message.usage is None or not message.usage.completion_tokens,
            note=note, protection=protection_badges(message.sent_as))
        self.host.context_status.reply_ended(message)
        if error is not None:
            if notify and not inline:
                self.host.notify(sanitize(error), title="Reply failed", severity="error",
                                 markup=False, timeout=8)
            if not message.content and not message.reasoning:
                self._restore_prompt()
        self.host.refresh_chrome()

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
        session = self.host.workspace.session
        ended, unsaved = session.stopped_reply, session.stop_error
        if ended is None or ended.id != reply.message.id:  # stopped before the session saw it
            ended, unsaved = self._saved(reply.message.id), None
        await self.host.message_list.finish_reply(ended)
        note = ("the partial reply is NOT saved" if unsaved is not None
                else "nothing arrived; Enter sends it again" if not self.received
                else "the partial reply is saved")
        self.host.status.update_info(state="stopped", note=note)
        if unsaved is not None and (ended is None or not ended.error):  # else shown inline
            self.host.notify(sanitize(unsaved.message), title="Reply not saved",
                             severity="error", markup=False, timeout=8)
        if not self.received:
            self._restore_prompt()

    def _saved(self, message_id: str) -> Message | None:
        try:
            return self.host.workspace.store.get_message(message_id)
        except TuiChatError:
            return None

    async def failed_before_reply(self, sentence: str, *, notify: bool = True) -> None:
        self.wait.stop()
        await self.tools.end()
        if self.reply is not None:
            await self.host.message_list.finish_reply(None)
            self.reply = None
        if notify:
            self.host.notify(sanitize(sentence), title="Not sent", severity="error",
                             markup=False, timeout=8)
        self.host.status.update_info(state="ready", note="")
        self._restore_prompt()
        self.host.refresh_chrome()

    def _restore_prompt(self) -> None:
        """Nothing arrived: give the prompt back, unless the user already typed a new one."""
        self.host.attach_flow.put_back()
        if self.sent_text and not self.host.prompt.text.strip():
            self.host.prompt.load_text(self.sent_text)
            self.host.prompt.move_cursor(self.host.prompt.document.end)

