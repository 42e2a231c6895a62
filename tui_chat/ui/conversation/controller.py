"""The conversation's interaction, without widgets: `ConversationController`.

It is the one writer of what the user is doing with the conversation on screen:
- `editing`: the message being edited (Enter resends from it, Esc cancels);
- `continue_partial`: the next message continues from a reply cut off by a failure;
- `comparison`: the comparison on screen, until a reply is chosen or the conversation moves on;
and it decides what the keys mean for them: whether a reply may start while one streams
(`busy`, one sentence for every place that asks), what Esc does (`stop`), which exchange an
Enter starts (`submit`) and which of the workspace's calls runs it (`events_for`).

It draws nothing: it tells its view (`view.ConversationView`), which the conversation screen
implements and the tests fake.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Sequence
from typing import TYPE_CHECKING, Literal

from msgspec import Struct

from tui_chat.core.asker import REFUSE, Asker
from tui_chat.core.errors import TuiChatError
from tui_chat.core.models import Attachment, Message
from tui_chat.core.store import ConversationGoneError
from tui_chat.ui.advice import sentence

if TYPE_CHECKING:
    from tui_chat.core.compare import CompareEvent
    from tui_chat.core.session import SessionEvent
    from tui_chat.core.workspace import Workspace
    from tui_chat.ui.conversation.view import ConversationView
    from tui_chat.ui.widgets.compare_view import CompareView

YIELD_EVERY = 0.004
"""Seconds of event handling after which the exchange lets key presses in."""
YIELD_PAUSE = 0.001
"""How long it then steps aside. Not sleep(0): a key press goes through several tasks (app,
screen, prompt, then the frame), each behind another slice of the worker; a millisecond lets
them all run (benchmarks/bench_ui_stream.py: key press to screen while a reply streams)."""
STILL_STREAMING = "A reply is still streaming: press Esc first."


class Exchange(Struct, frozen=True):
    """What the worker should do: send a prompt, regenerate, edit and resend, or compare."""

    kind: Literal["send", "regenerate", "edit", "compare"]
    text: str = ""
    message_id: str | None = None
    continue_partial: bool = False
    """Send the reply cut off by a failure as context (the user chose to continue from it)."""
    attachments: tuple[Attachment, ...] = ()


class ConversationController:
    """The interaction state of one conversation view, and the decisions on it."""

    def __init__(self, workspace: Workspace, view: ConversationView) -> None:
        self.workspace = workspace
        self.view = view
        self._editing: Message | None = None
        self._continue_partial = False
        self._comparison: CompareView | None = None
        self.asker: Asker = REFUSE
        """How its exchanges ask the user (tool calls, a model without tools): the view's."""

    # --- the state, read-only outside ----------------------------------------------------

    @property
    def editing(self) -> Message | None:
        """The message being edited: the next Enter resends from it."""
        return self._editing

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
        """Edit `message`: its text in the prompt; Enter resends from it, Esc cancels."""
        if self.busy():
            return
        self._editing = message
        self.view.edit_in_prompt(message.content)
        self.view.set_note("editing: Enter resends from this message, Esc cancels")
        self.view.interaction_changed()

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

    async def run(self, exchange: Exchange) -> None:
        """Run `exchange` to its end, drawn by the view's presenter (in the view's worker:
        cancelling it stops the reply, saved as interrupted)."""
        view = self.view
        if not await view.whole_path():
            return  # asked for in a conversation no longer shown
        if view.shows_messages and not self.workspace.session.is_saved:
            await view.show_messages([])  # the one shown was deleted: a new one starts
        await self.settle_comparison()
        presenter = view.presenter_for(exchange)
        try:
            # aclosing: stopped between two events (drawing one), the session still saves the
            # reply as interrupted before `stopped()` reads it, not whenever it is collected.
            async with contextlib.aclosing(self.events_for(exchange)) as events:
                turn = time.perf_counter()
                async for event in events:
                    await presenter.apply(event)
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
                                         asker=self.asker)
            case "regenerate":
                return workspace.regenerate(exchange.message_id, asker=self.asker)
            case "edit" if exchange.message_id is not None:
                return workspace.edit_and_resend(exchange.message_id, exchange.text,
                                                 asker=self.asker)
            case _:
                return workspace.send(exchange.text, attachments=exchange.attachments,
                                      continue_partial=exchange.continue_partial,
                                      asker=self.asker)

    # --- Esc -------------------------------------------------------------------------------------

    def stop(self) -> None:
        """Esc: stop the reply (its partial text is kept), else cancel an edit or a
        continue-from."""
        if self.view.streaming:
            self.view.cancel_exchange()
        elif self._editing is not None or self._continue_partial:
            self.cancel_edit()
            self.view.focus_prompt()
