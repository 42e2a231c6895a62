"""What the conversation controller needs from whatever draws it: `ConversationView`.

`ConversationScreen` (ui/screens/conversation.py) implements it with widgets; the
controller's tests implement it with a plain class that records the calls. The view draws
and reports; it decides nothing (whether a reply may start, what Esc does, which exchange an
Enter is: the controller's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from tui_chat.core.models import Message
    from tui_chat.ui.conversation.controller import Exchange

Severity = Literal["information", "warning", "error"]


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
