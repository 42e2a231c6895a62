"""The conversation's attachments: the picker (Ctrl+T), `@path` in the prompt, and the
checks before a message goes (the core's: `tui_chat.core.attachments`, `Workspace.
check_attachments`), each problem one notification with the prompt kept as it was."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tui_chat.core.attachments import mentioned_paths, read_attachment
from tui_chat.core.errors import TuiChatError
from tui_chat.core.models import Attachment

if TYPE_CHECKING:
    from tui_chat.ui.conversation.controller import ConversationController
    from tui_chat.ui.conversation.view import ConversationUI
    from tui_chat.ui.widgets.attachment_list import AttachmentList


class AttachFlow:
    def __init__(self, controller: ConversationController, view: ConversationUI) -> None:
        self.controller = controller
        self.view = view
        self._list: AttachmentList | None = None
        self._in_flight: list[Attachment] = []
        """The attachments of the exchange in progress (back in the list if nothing arrives;
        none for a regenerate or an edit)."""

    @property
    def cwd(self) -> Path:
        return Path(os.getcwd())

    @property
    def widget(self) -> AttachmentList:
        """The list above the prompt, made when first asked for and mounted with the first
        attachment (`listed`): hidden while empty, it is not on the first frame (an
        OptionList: its stylesheet, mounting and styling were 1.5 % of the instructions to
        it). The help and the palette list its keys before then (`later_widgets`)."""
        if self._list is None:
            from tui_chat.ui.widgets.attachment_list import AttachmentList

            self._list = AttachmentList(id="attachments")
        return self._list

    @property
    def listed(self) -> AttachmentList:
        """The list, mounted above the prompt if it was not yet."""
        widget = self.widget
        if not widget.is_attached:
            self.view.mount_above_prompt(widget)
        return widget

    @property
    def pending(self) -> list[Attachment]:
        """The attachments listed for the next message."""
        return list(self._list.attachments) if self._list is not None else []

    def open_picker(self) -> None:
        def chosen(name: str | None) -> None:
            if name is not None:
                self.attach(name)
            self.view.focus_prompt()

        self.view.open_attach_picker(self.cwd, chosen)

    def attach(self, name: str, path: Path | None = None) -> bool:
        """Read and list the file `name` (at `path`); a problem is one notification."""
        try:
            attachment = read_attachment(path or Path(name), name)
        except TuiChatError as error:
            self._say(error.message)
            return False
        self.listed.add(attachment)
        return True

    def collect(self, text: str) -> list[Attachment] | None:
        """The attachments that go with `text`: the listed ones and its `@path` files, checked
        for the current model; None (and one notification) when one cannot go."""
        for written, path in mentioned_paths(text, self.cwd):
            if not any(a.name == written for a in self.pending) and not self.attach(
                    written, path):
                return None
        attachments = self.pending
        try:
            self.controller.workspace.check_attachments(attachments)
        except TuiChatError as error:  # listed, but not for this model: the message waits
            self._say(error.message, title="Not sent")
            return None
        return attachments

    def take(self) -> list[Attachment]:
        """The listed attachments, now going with a message (the list is empty after)."""
        if self._list is None or not self._list.is_attached:
            return []
        return self._list.take()

    def going(self, attachments: Sequence[Attachment]) -> None:
        """An exchange starts with `attachments` (put back if nothing arrives)."""
        self._in_flight = list(attachments)

    def put_back(self) -> None:
        """Nothing arrived: the message's attachments are listed again."""
        if self._in_flight:
            self.listed.put_back(self._in_flight)
            self._in_flight = []

    def _say(self, sentence: str, title: str = "Not attached") -> None:
        self.view.say(sentence, title=title, severity="error", timeout=10)
