"""The conversation's interaction, without widgets: `ConversationController`.

It is the one writer of what the user is doing with the conversation on screen:
- `editing`: the message being edited (Enter resends from it, Esc cancels), or the summary
  sent in place of the oldest turns (Enter saves it: `save_summary`);
- `continue_partial`: the next message continues from a reply cut off by a failure;
- `comparison`: the comparison on screen, until a reply is chosen or the conversation moves on;
and it decides what the keys mean for them: whether a reply may start while one streams
(`busy`, one sentence for every place that asks), what Esc does (`stop`), which exchange an
Enter starts (`submit`) and which of the workspace's calls runs it (`events_for`), and
which drawing each of its events is for (`present`: one `match` over every kind of session
and compare event, `assert_never` at its end, so that a new kind is a type error here until
it is handled).

It draws nothing: it tells its view (`view.ConversationView`), which the conversation screen
implements and the tests fake.

It is also the exchange's `core.asker.Asker`: whatever runs inside an exchange (a tool call
waiting for approval, a model that cannot take tools) asks through `Workspace.asker`, which is
this controller while the exchange runs; it puts the question to the view (`confirm`, `ask`:
a modal on the screen) and hands the answer back. A new kind of question: a method on
`core.asker.Asker` (and its refusal on `Refuse`), the same method here passing it on, and an
awaitable method of that name on `ConversationView` (the screen pushes its modal).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Sequence
from typing import TYPE_CHECKING, assert_never

from tui_chat.core.errors import TuiChatError
from tui_chat.core.events import (
    ContentDelta,
    FinishReason,
    ModelChosen,
    ReasoningDelta,
    RetryScheduled,
    SentAs,
    StreamDone,
    ToolCallDelta,
    UsageReported,
)
from tui_chat.core.models import ActivePathChanged, Attachment, Message
from tui_chat.core.session import (
    ReplyFailed,
    ReplyFinished,
    ReplyStarted,
    SessionEvent,
    UserMessageSaved,
)
from tui_chat.core.store import ConversationGoneError
from tui_chat.core.summaries import is_summary
from tui_chat.core.tool_exchange import ToolCallFinished, ToolCallStarted
from tui_chat.ui.advice import sentence
from tui_chat.ui.conversation.exchange import Exchange

if TYPE_CHECKING:
    from tui_chat.core.compare import CompareEvent
    from tui_chat.core.mcp.elicitation import ElicitAnswer, ElicitRequest
    from tui_chat.core.mcp.loop import Approval, CallRequest
    from tui_chat.core.workspace import Workspace
    from tui_chat.ui.conversation.view import ConversationView, EventPresenter
    from tui_chat.ui.widgets.compare_view import CompareView

YIELD_EVERY = 0.004
"""Seconds of event handling after which the exchange lets key presses in."""
YIELD_PAUSE = 0.001
"""How long it then steps aside. Not sleep(0): a key press goes through several tasks (app,
screen, prompt, then the frame), each behind another slice of the worker; a millisecond lets
them all run (benchmarks/bench_ui_stream.py: key press to screen while a reply streams)."""
STILL_STREAMING = "A reply is still streaming: press Esc first."
EDITING_SUMMARY = "editing summary: Enter saves · Esc cancels"

__all__ = ["STILL_STREAMING", "ConversationController", "Exchange"]


class ConversationController:
    """The interaction state of one conversation view, and the decisions on it."""

    def __init__(self, workspace: Workspace, view: ConversationView) -> None:
        self.workspace = workspace
        self.view = view
        self._editing: Message | None = None
        self._continue_partial = False
        self._comparison: CompareView | None = None

    # --- the state, read-only outside ----------------------------------------------------

    @property
    def editing(self) -> Message | None:
        """The message being edited: the next Enter resends from it (or, for the summary in
        force, saves it)."""
        return self._editing

    @property
    def editing_summary(self) -> bool:
        """The summary in force is being edited: the next Enter saves it (`save_summary`)."""
        return self._editing is not None and is_summary(self._editing)

    @property
    def continue_partial(self) -> bool:
        """The next message continues from the reply cut off by a failure (user's choice)."""
        return self._continue_partial

    @property
    def comparison(self) -> CompareView | None:
        """The comparison on screen, until a reply is chosen or the conversation moves on."""
        return self._comparison

    @property
    def streaming(self) -> bool:
        return self.view.streaming

    @property
    def interacting(self) -> bool:
        """Esc has something to do: stop a reply, or cancel an edit or a continue-from."""
        return self.streaming or self._editing is not None or self._continue_partial

    # --- guards ---------------------------------------------------------------------------

    def busy(self, sentence: str = STILL_STREAMING) -> bool:
        """True (and `sentence` said) when a reply streams: nothing that changes the path or
        starts a reply runs meanwhile (the stream writes to the active path)."""
        if self.view.streaming:
            self.view.say(sentence, severity="warning")
            return True
        return False

    # --- editing and continuing -------------------------------------------------------------

    def edit(self, message: Message) -> None:
        """Edit `message`: its text in the prompt; Enter resends from it (a summary: saves
        it), Esc cancels."""
        if self.busy():
            return
        self._editing = message
        self.view.edit_in_prompt(message.content)
        self.view.set_note(EDITING_SUMMARY if is_summary(message) else
                           "editing: Enter resends from this message, Esc cancels")
        self.view.interaction_changed()

    def save_summary(self, text: str) -> bool:
        """Enter while the summary is edited: `text` replaces it (Workspace.edit_summary),
        sent in place of the turns it covers from the next request on. False: not saved
        (said why; the edit goes on)."""
        summary = self._editing
        if summary is None or not is_summary(summary):
            return False
        try:
            self.workspace.edit_summary(summary.id, text)
        except TuiChatError as error:
            self.view.say(error.message, severity="error")
            return False
        self._editing = None
        self.view.clear_prompt()
        self.view.set_note("summary saved: the next message sends it")
        self.view.interaction_changed()
        return True

    def choose_continue_partial(self) -> bool:
        """The next message continues from the reply cut off by a failure; False: busy."""
        if self.busy():
            return False
        self._continue_partial = True
        self.view.interaction_changed()
        return True

    def cancel_edit(self) -> None:
        """Forget an edit or a choice to continue from a cut-off reply, not yet sent."""
        if self._editing is not None:
            self.view.clear_prompt()
        self._editing = None
        self._continue_partial = False
        self.view.set_note("")
        self.view.interaction_changed()

    def forget_edit(self, message_id: str) -> None:
        """`message_id` is gone (deleted): an edit of it ends."""
        if self._editing is not None and self._editing.id == message_id:
            self.cancel_edit()

    def conversation_opened(self) -> None:
        """Another conversation is on screen: what was chosen for the last one is forgotten
        (the prompt's text stays: it may be meant for this one)."""
        self._editing = None
        self._continue_partial = False

    # --- the comparison on screen -----------------------------------------------------------

    def comparison_shown(self, comparison: CompareView) -> None:
        self._comparison = comparison

    def take_comparison(self) -> CompareView | None:
        """The comparison on screen, now no longer the controller's (None: none is)."""
        comparison, self._comparison = self._comparison, None
        return comparison

    async def settle_comparison(self) -> None:
        """The comparison on screen gives way to the reply the conversation continues with
        (the one chosen, else the first): a message like any other, ‹ n/m › in its header."""
        comparison = self.take_comparison()
        if comparison is not None:
            await self.view.comparison_settled(comparison)

    # --- the exchange's questions (core.asker.Asker) -----------------------------------------

    async def confirm(self, question: str) -> bool:
        """Yes or no, asked through the view: True only when the user said yes."""
        return await self.view.confirm(question)

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        """One of `choices`, asked through the view; None: declined."""
        answer = await self.view.ask(question, choices)
        return answer if answer in choices else None

    async def approve_call(self, request: CallRequest) -> Approval:
        """A tool call, approved (or denied, with a reason) through the view: this makes the
        controller a core.mcp.loop.CallApprover as well as an Asker."""
        return await self.view.approve_call(request)

    async def elicit(self, request: ElicitRequest) -> ElicitAnswer:
        """Input a tool server asks for, put to the user through the view: this makes the
        controller a core.mcp.elicitation.Elicitor too."""
        return await self.view.elicit(request)

    # --- the conversation on screen ----------------------------------------------------------

    def active_conversation_id(self) -> str | None:
        session = self.workspace.session
        return session.conversation.id if session.is_saved else None

    async def new_conversation(self) -> None:
        """Stop any reply, forget what was chosen for this conversation, show a new one."""
        await self.view.stop_exchange()
        self.take_comparison()
        self.workspace.new_conversation()
        self.cancel_edit()
        await self.view.show_messages([])
        self.view.focus_prompt()

    # --- sending ------------------------------------------------------------------------------

    def exchange_for(self, text: str, attachments: Sequence[Attachment]) -> Exchange:
        """What Enter with `text` starts: the edit's resend, a comparison, or a message (with
        the continue-from choice, used once)."""
        if self._editing is not None:
            message, self._editing = self._editing, None
            return Exchange("edit", text, message.id)
        if self.workspace.compare_models:
            return Exchange("compare", text, attachments=tuple(attachments))
        chosen, self._continue_partial = self._continue_partial, False
        return Exchange("send", text, continue_partial=chosen, attachments=tuple(attachments))

    def regenerate(self, reply_id: str | None = None) -> None:
        """Write `reply_id` (None: the last reply) again."""
        self.view.start_exchange(Exchange("regenerate", message_id=reply_id))

    def continue_reply(self, reply_id: str) -> None:
        """Continue reply `reply_id` where it ends, as a new branch beside it (where the
        provider cannot, the exchange fails before sending, with the sentence why)."""
        if not self.busy():
            self.view.start_exchange(Exchange("continue", message_id=reply_id))

    async def run(self, exchange: Exchange) -> None:
        """Run `exchange` to its end, drawn by the view's presenter (in the view's worker:
        cancelling it stops the reply, saved as interrupted)."""
        view = self.view
        if not await view.whole_path():
            return  # asked for in a conversation no longer shown
        if view.shows_messages and not self.workspace.session.is_saved:
            await view.show_messages([])  # the one shown was deleted: a new one starts
        await self.settle_comparison()
        if exchange.kind == "compare" and (note := self.workspace.compare_note()):
            view.say(note, severity="warning")  # the tools this conversation has on are not sent
        presenter = view.presenter_for(exchange)
        try:
            # aclosing: stopped between two events (drawing one), the session still saves the
            # reply as interrupted before `stopped()` reads it, not whenever it is collected.
            async with contextlib.aclosing(self.events_for(exchange)) as events:
                turn = time.perf_counter()
                async for event in events:
                    await self.present(presenter, event)
                    if time.perf_counter() - turn > YIELD_EVERY:
                        # One network read can hold hundreds of events, and an async
                        # generator hands them over without returning to the loop.
                        await asyncio.sleep(YIELD_PAUSE)
                        turn = time.perf_counter()
            await presenter.finished()
        except asyncio.CancelledError:
            await presenter.stopped()
            raise
        except ConversationGoneError as error:
            await presenter.failed_before_reply(error.message, notify=False)
            self.conversation_gone(error, replied=False)
        except TuiChatError as error:
            await presenter.failed_before_reply(sentence(error))
        except Exception:
            await presenter.stopped()  # a bug: show what was saved, then report it
            raise
        finally:
            view.exchange_ended()

    async def present(self, presenter: EventPresenter,
                      event: SessionEvent | CompareEvent) -> None:
        """Hand `event` to the method of `presenter` that draws it (a comparison's column
        events to that column's presenter)."""
        match event:
            case ContentDelta():
                await presenter.content(event.text)
            case ReasoningDelta():
                await presenter.reasoning(event.text)
            case UserMessageSaved():
                await presenter.user_message_saved(event.message)
            case ActivePathChanged():
                await presenter.path_changed(event.after_id)
            case ReplyStarted():
                await presenter.reply_started(event.message)
            case RetryScheduled():
                await presenter.retry(event.reason, event.delay)
            case ReplyFinished():
                await presenter.reply_finished(event.message)
            case ReplyFailed():
                await presenter.reply_failed(event.message, event.error)
            case ToolCallStarted() | ToolCallFinished() | ToolCallDelta():
                await presenter.tool_event(event)
            case FinishReason() | UsageReported() | StreamDone() | SentAs() | ModelChosen():
                pass  # folded into the reply by the session: its end shows them
            case _:
                # A comparison's column (core.compare is loaded by then; imported here, it
                # stays off the start-up path).
                from tui_chat.core.compare import TargetEvent

                if not isinstance(event, TargetEvent):
                    assert_never(event)
                column = await presenter.column(event.target)
                if column is not None:
                    await self.present(column, event.event)

    def conversation_gone(self, error: ConversationGoneError, *, replied: bool) -> None:
        """The conversation on screen was deleted elsewhere: say so once; the next message
        starts a new conversation (what is on screen stays until then)."""
        if not self.workspace.forget_conversation(error.conversation_id):
            return
        then = ("the reply stays on screen but is not saved. " if replied else
                "your message is back in the prompt. ")
        self.view.say(f"{error.message.rstrip('.')}: {then}The next message starts a new "
                      "conversation.", title="Conversation deleted", severity="warning",
                      timeout=15)
        self.view.refresh_chrome()

    def events_for(self, exchange: Exchange
                   ) -> AsyncGenerator[SessionEvent | CompareEvent, None]:
        """The workspace's call that runs `exchange`."""
        workspace = self.workspace
        match exchange.kind:
            case "compare":
                return workspace.compare(exchange.text, attachments=exchange.attachments,
                                         asker=self)
            case "regenerate":
                return workspace.regenerate(exchange.message_id, asker=self)
            case "continue" if exchange.message_id is not None:
                return workspace.continue_reply(exchange.message_id, asker=self)
            case "edit" if exchange.message_id is not None:
                return workspace.edit_and_resend(exchange.message_id, exchange.text,
                                                 asker=self)
            case _:
                return workspace.send(exchange.text, attachments=exchange.attachments,
                                      continue_partial=exchange.continue_partial, asker=self)

    # --- Esc -------------------------------------------------------------------------------------

    def stop(self) -> None:
        """Esc: stop the reply (its partial text is kept), else cancel an edit or a
        continue-from."""
        if self.view.streaming:
            self.view.cancel_exchange()
        elif self._editing is not None or self._continue_partial:
            self.cancel_edit()
            self.view.focus_prompt()
