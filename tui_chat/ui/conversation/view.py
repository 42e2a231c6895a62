"""What the conversation's controller and helpers need from whatever draws them.

- `ConversationView`: what the controller draws through (streaming, the exchange, a
  notification, the prompt, the chrome, the messages, the comparison, and the awaitable
  questions `confirm` / `ask` an exchange puts to the user).
- `Surface`: the view plus the widgets the presenters and helpers of this package draw on
  (the message list, the prompt, the status line, the sidebar) and the screen's timers and
  workers.
- `dialogs.Dialogs`: the modal questions the helpers open (each answered through a callback).

`ConversationScreen` (ui/screens/conversation.py) implements all three with widgets; the
controller's tests implement `ConversationView` with a plain class that records the calls.
The view draws and reports; it decides nothing (whether a reply may start, what Esc does,
which exchange an Enter is: the controller's). Nothing here imports a screen: the screens
import this package, never the other way (an import-linter contract in pyproject.toml).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from tui_chat.ui.conversation.dialogs import Dialogs

if TYPE_CHECKING:
    from textual.message import Message as TextualMessage
    from textual.timer import Timer
    from textual.widget import Widget
    from textual.worker import Worker

    from tui_chat.core.errors import TuiChatError
    from tui_chat.core.events import ToolCallDelta
    from tui_chat.core.mcp.elicitation import ElicitAnswer, ElicitRequest
    from tui_chat.core.mcp.loop import Approval, CallRequest
    from tui_chat.core.models import Message
    from tui_chat.core.tool_exchange import ToolCallFinished, ToolCallStarted
    from tui_chat.ui.conversation.exchange import Exchange
    from tui_chat.ui.widgets.compare_view import CompareView
    from tui_chat.ui.widgets.conversation_list import ConversationList
    from tui_chat.ui.widgets.message_list import MessageList, ReadAbove
    from tui_chat.ui.widgets.message_view import Position
    from tui_chat.ui.widgets.prompt_input import PromptInput
    from tui_chat.ui.widgets.status_bar import StatusBar

Severity = Literal["information", "warning", "error"]


class EventPresenter(Protocol):
    """Draws one stream of session events: an exchange's, or one column's of a comparison.
    Which method an event is for is the controller's one `match` over every kind of event
    (`ConversationController.present`)."""

    async def user_message_saved(self, message: Message) -> None:
        ...

    async def path_changed(self, after_id: str | None) -> None:
        """The messages shown below `after_id` leave the view (another branch follows)."""
        ...

    async def reply_started(self, message: Message) -> None:
        ...

    async def content(self, text: str) -> None:
        """A piece of the reply's text."""
        ...

    async def reasoning(self, text: str) -> None:
        """A piece of the reply's reasoning."""
        ...

    async def retry(self, reason: str, delay: float) -> None:
        """The request failed before its first token; it is tried again after `delay` s."""
        ...

    async def reply_finished(self, message: Message) -> None:
        ...

    async def reply_failed(self, message: Message, error: TuiChatError) -> None:
        """The reply failed (`message`: saved as it stands)."""
        ...

    async def tool_event(self, event: ToolCallDelta | ToolCallStarted | ToolCallFinished
                         ) -> None:
        """A tool call forming, running or answered (ui/conversation/tool_events.py)."""
        ...

    async def column(self, index: int) -> EventPresenter | None:
        """The presenter of a comparison's column `index` (None: this draws no comparison)."""
        ...


class ExchangePresenter(EventPresenter, Protocol):
    """Draws one exchange as its events arrive (ReplyPresenter, ComparePresenter)."""

    async def finished(self) -> None:
        """The exchange's events have all arrived."""
        ...

    async def stopped(self) -> None:
        """The exchange was cancelled (Esc, quit, another conversation): show what was
        saved."""
        ...

    async def failed_before_reply(self, text: str, *, notify: bool = True) -> None:
        """The exchange failed before any reply (`text`: the one sentence saying why)."""
        ...


class ConversationView(Protocol):
    """The conversation's drawing, as the controller uses it."""

    @property
    def streaming(self) -> bool:
        """A reply (or a comparison) is running."""
        ...

    def start_exchange(self, exchange: Exchange) -> None:
        """Run `exchange` (the view's worker calls `ConversationController.run`); one at a
        time: a new one replaces the one running."""
        ...

    def cancel_exchange(self) -> None:
        """Cancel the exchange running (its reply is saved as interrupted)."""
        ...

    async def stop_exchange(self) -> None:
        """Cancel the exchange running and wait until its end is drawn."""
        ...

    def say(self, text: str, *, title: str = "", severity: Severity = "information",
            timeout: float | None = None) -> None:
        """One notification, drawn literally."""
        ...

    def set_note(self, note: str) -> None:
        """The status line's note."""
        ...

    def edit_in_prompt(self, text: str) -> None:
        """Put `text` in the prompt to be edited, cursor at its end, focused."""
        ...

    def clear_prompt(self) -> None:
        ...

    def focus_prompt(self) -> None:
        ...

    def interaction_changed(self) -> None:
        """What Esc does changed (the keys offered follow)."""
        ...

    def refresh_chrome(self) -> None:
        """Title bar, empty-state hint and status line from the workspace's state."""
        ...

    async def show_messages(self, messages: list[Message], *, above: ReadAbove | None = None
                            ) -> None:
        """Show the conversation now open in the workspace (its first messages; `above`:
        they are the newest part of its path, and this reads the rest)."""
        ...

    @property
    def shows_messages(self) -> bool:
        """Messages are on screen."""
        ...

    async def whole_path(self) -> bool:
        """Wait until the conversation shown is read whole; False: another one was shown
        meanwhile."""
        ...

    def presenter_for(self, exchange: Exchange) -> ExchangePresenter:
        """The drawing of `exchange`, begun (its prompt goes back if nothing arrives)."""
        ...

    async def comparison_settled(self, comparison: CompareView) -> None:
        """`comparison` gives way to the reply the conversation continues with."""
        ...

    def exchange_ended(self) -> None:
        """The exchange ended, however (the sidebar and the memory's upkeep follow)."""
        ...

    async def confirm(self, question: str) -> bool:
        """Put a yes/no `question` (untrusted text, drawn literally) to the user and wait:
        True only on an explicit yes. Awaited inside the exchange (the view's worker)."""
        ...

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        """Put `question` with `choices` to the user and wait: the choice, or None when the
        user declined (or the view offers no way to answer it)."""
        ...

    async def approve_call(self, request: CallRequest) -> Approval:
        """Ask the user whether a tool call may run (its server, tool and arguments drawn
        literally) and wait: the answer, or a denial when the dialog went away."""
        ...

    async def elicit(self, request: ElicitRequest) -> ElicitAnswer:
        """Put a tool server's request for input (a form, or a page to open) to the user
        and wait: accepted with the checked answers, declined, or cancelled."""
        ...


class Surface(ConversationView, Protocol):
    """The view with the widgets and the scheduling the presenters and helpers use."""

    @property
    def message_list(self) -> MessageList:
        ...

    @property
    def prompt(self) -> PromptInput:
        ...

    @property
    def status(self) -> StatusBar:
        ...

    @property
    def sidebar(self) -> ConversationList | None:
        """The sidebar, once opened."""
        ...

    async def mount_sidebar(self, sidebar: ConversationList) -> None:
        """Mount the sidebar (made on first use) at the left of the conversation."""
        ...

    def mount_above_prompt(self, widget: Widget) -> None:
        ...

    def positions_of(self, messages: Sequence[Message]) -> Mapping[str, Position]:
        """Where each message stands among its siblings (‹ 2/3 › in its header)."""
        ...

    def set_timer(self, delay: float, callback: Callable[[], object]) -> Timer:
        ...

    def set_interval(self, interval: float, callback: Callable[[], object], *,
                     name: str | None = None) -> Timer:
        ...

    def run_worker(self, work: Coroutine[Any, Any, None], *, group: str,
                   exit_on_error: bool) -> Worker[None]:
        ...

    def post_message(self, message: TextualMessage) -> bool:
        ...


class ConversationUI(Surface, Dialogs, Protocol):
    """All the presenters and helpers of this package take (with the controller)."""
