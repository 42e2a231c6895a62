"""What the conversation controller needs from whatever draws it: `ConversationView`.

`ConversationScreen` (ui/screens/conversation.py) implements it with widgets; the
controller's tests implement it with a plain class that records the calls. The view draws
and reports; it decides nothing (whether a reply may start, what Esc does, which exchange an
Enter is: the controller's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from tui_chat.core.compare import CompareEvent
    from tui_chat.core.models import Message
    from tui_chat.core.session import SessionEvent
    from tui_chat.ui.conversation.controller import Exchange
    from tui_chat.ui.widgets.compare_view import CompareView

Severity = Literal["information", "warning", "error"]


class ExchangePresenter(Protocol):
    """Draws one exchange as its events arrive (ReplyPresenter, ComparePresenter)."""

    async def apply(self, event: SessionEvent | CompareEvent) -> None:
        ...

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

    async def show_messages(self, messages: list[Message]) -> None:
        """Show the conversation now open in the workspace (its first messages)."""
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
