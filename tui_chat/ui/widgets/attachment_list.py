"""The files attached to the message being written, listed above the prompt (name, size,
estimated tokens), each removable (a line each: `attachment_lines`)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.binding import Binding
from textual.message import Message as TextualMessage
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui_chat.core.models import Attachment
from tui_chat.ui.widgets.attachment_lines import attachment_line


class AttachmentList(OptionList):
    """The attachments of the next message. Enter, Del or a click removes the one chosen."""

    DEFAULT_CSS = """
    AttachmentList {
        height: auto;
        max-height: 6;
        border: none;
        padding: 0 1;
        background: $panel;
    }
    AttachmentList.-empty { display: none; }
    """
    BINDINGS = [
        Binding("delete,backspace,x", "remove", "Remove", id="attachments.remove",
                tooltip="Remove the highlighted attachment"),
        Binding("escape", "leave", "Back to prompt", id="attachments.leave"),
    ]

    class Changed(TextualMessage):
        """The attachments changed (one added or removed)."""

    class LeaveRequested(TextualMessage):
        """Esc in the list: focus goes back to the prompt."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False, classes="-empty")
        self.attachments: list[Attachment] = []

    def add(self, attachment: Attachment) -> bool:
        """Add `attachment` (False when one of that name is there already)."""
        if any(a.name == attachment.name for a in self.attachments):
            return False
        self.attachments.append(attachment)
        self._show()
        return True

    def take(self) -> list[Attachment]:
        """The attachments, and an empty list from now on (they go with the message)."""
        taken, self.attachments = self.attachments, []
        self._show()
        return taken

    def put_back(self, attachments: Sequence[Attachment]) -> None:
        """The message was not sent: its attachments are back, before any added since."""
        for attachment in reversed(attachments):
            if all(a.name != attachment.name for a in self.attachments):
                self.attachments.insert(0, attachment)
        self._show()

    def _show(self) -> None:
        self.clear_options()
        self.add_options([Option(Text(attachment_line(a) + "   (Del removes)"), id=str(i))
                          for i, a in enumerate(self.attachments)])
        self.set_class(not self.attachments, "-empty")
        self.post_message(self.Changed())

    def on_focus(self) -> None:
        if self.highlighted is None and self.attachments:  # Del works at once
            self.highlighted = 0

    def action_remove(self) -> None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self.attachments):
            return
        del self.attachments[index]
        self._show()
        if self.attachments:
            self.highlighted = min(index, len(self.attachments) - 1)
        else:
            self.post_message(self.LeaveRequested())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.highlighted = event.option_index
        self.action_remove()

    def action_leave(self) -> None:
        self.post_message(self.LeaveRequested())
