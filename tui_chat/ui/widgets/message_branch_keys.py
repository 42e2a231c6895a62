"""The message list's keys for branches: switch between the alternatives of the selected
message (←/→), delete it with everything below it, fork from it, continue from a reply cut
off by a failure. A base class of `MessageList`, kept apart so that each file says one thing;
it only posts `…Requested` messages (the conversation screen decides: store, dialogs).

A plain mixin, not a Widget: Textual takes a widget's default CSS along its first base that
is a DOMNode only, so a Widget base here would hide VerticalScroll's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType
from textual.message import Message as TextualMessage

from tui_chat.core.models import Message

if TYPE_CHECKING:
    from textual.widget import Widget

    from tui_chat.ui.widgets.message_view import MessageView

    _Base = Widget
else:
    _Base = object

BRANCH = Binding.Group("Branch")
_OWN_ACTIONS: dict[type, frozenset[str]] = {}
BRANCH_BINDINGS: list[BindingType] = [
    Binding("left", "branch(-1)", "Previous branch", id="messages.branch_previous",
            group=BRANCH, tooltip="Show the previous alternative of the selected message"),
    Binding("right", "branch(1)", "Next branch", id="messages.branch_next", group=BRANCH,
            tooltip="Show the next alternative of the selected message"),
    Binding("d", "delete", "Delete…", id="messages.delete", show=False,
            tooltip="Delete the selected message and everything below it (asks first)"),
    Binding("f", "fork", "Fork", id="messages.fork", show=False,
            tooltip="Branch into a new conversation from the selected message"),
    Binding("p", "continue_partial", "Continue from it", id="messages.continue_partial",
            tooltip="Send the reply cut off by a failure as context with your next message"),
]
"""The message list's bindings for branches (in its BINDINGS)."""


def cut_off(message: Message) -> bool:
    """A reply a failure cut off mid-way: kept and shown, but not context unless chosen."""
    return message.failed and bool(message.content)


class BranchKeys(_Base):
    """Branch actions and the messages they post; `MessageList` provides the selection."""

    if TYPE_CHECKING:
        messages: list[Message]
        selected: int | None

        def selected_message(self) -> Message | None: ...
        def _view_at(self, index: int | None) -> MessageView | None: ...

    class BranchRequested(TextualMessage):
        """The user asked for the alternative `step` places from `message` (-1: before)."""

        def __init__(self, message: Message, step: int) -> None:
            super().__init__()
            self.message = message
            self.step = step

    class DeleteRequested(TextualMessage):
        """The user asked to delete `message` and everything below it (to be confirmed)."""

        def __init__(self, message: Message) -> None:
            super().__init__()
            self.message = message

    class ForkRequested(TextualMessage):
        """The user asked for a new conversation holding the path up to `message`."""

        def __init__(self, message: Message) -> None:
            super().__init__()
            self.message = message

    class ContinuePartialRequested(TextualMessage):
        """The user chose to continue from `message`, a reply cut off by a failure."""

        def __init__(self, message: Message) -> None:
            super().__init__()
            self.message = message

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The branch keys show where the selected message has alternatives; "continue from
        it" on a reply cut off by a failure. (Not dimmed at the first or last alternative:
        each change of these answers recomposes the footer, a frame's worth of work.) None
        of the list's own keys while a widget inside it has the focus (a comparison)."""
        if self.screen.focused is not self and action in self._own_actions():
            return False
        if action == "branch":
            view = self._view_at(self.selected)
            return view is not None and view.position is not None and view.position[1] > 1
        if action == "continue_partial":
            last = self.messages[-1] if self.messages else None
            return (self.selected is not None and last is not None
                    and self.selected == len(self.messages) - 1 and cut_off(last))
        return True

    @classmethod
    def _own_actions(cls) -> frozenset[str]:
        """The actions of the list's own bindings (not the scrolling it inherits)."""
        own = _OWN_ACTIONS.get(cls)
        if own is None:
            own = _OWN_ACTIONS[cls] = frozenset(
                binding.action.partition("(")[0]
                for binding in Binding.make_bindings(getattr(cls, "BINDINGS", [])))
        return own

    FOOTER_ACTIONS: tuple[str, ...] = ("branch", "continue_partial")
    """The actions whose keys come and go with the selected message."""

    def footer_keys_changed(self) -> bool:
        """Whether the answers of `check_action` for FOOTER_ACTIONS changed since last
        asked (the footer is refreshed only then)."""
        state = tuple(self.check_action(action, ()) for action in self.FOOTER_ACTIONS)
        changed = state != getattr(self, "_footer_keys_state", None)
        self._footer_keys_state = state
        return changed

    def action_branch(self, step: int) -> None:
        message = self.selected_message()
        if message is not None:
            self.post_message(self.BranchRequested(message, step))

    def action_delete(self) -> None:
        message = self.selected_message()
        if message is not None:
            self.post_message(self.DeleteRequested(message))

    def action_fork(self) -> None:
        message = self.selected_message()
        if message is not None:
            self.post_message(self.ForkRequested(message))

    def action_continue_partial(self) -> None:
        last = self.messages[-1] if self.messages else None
        if last is None or not cut_off(last):
            self.notify("The conversation does not end with a reply cut off by a failure.",
                        markup=False, severity="warning")
            return
        self.post_message(self.ContinuePartialRequested(last))
