"""The multi-line prompt: Enter sends, Ctrl+J inserts a newline, Up on empty recalls.

TextArea inserts a newline on plain Enter and swallows the key, so a binding on `enter` would
never fire: `_on_key` handles Enter and Ctrl+J itself (see TEXTUAL_NOTES.md). Shift+Enter
also inserts a newline in terminals that report it (kitty keyboard protocol).
Tab after `@path` completes the path (as far as the files agree; the current folder's), and
asks for a file it completes to be attached; anywhere else Tab moves the focus on.
"""

from __future__ import annotations

import re
from pathlib import Path

from textual import events
from textual.message import Message as TextualMessage
from textual.widgets import TextArea

from tui_chat.core.attachments import complete_path

_MENTION_BEFORE_CURSOR = re.compile(r"(?:^|(?<=\s))@(\S*)$")


class PromptInput(TextArea):
    """Where the user writes. Posts `PromptInput.Submitted` on Enter."""

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: tall $primary 40%;
        padding: 0 1;
    }
    PromptInput:focus { border: tall $primary; }
    """

    class AttachRequested(TextualMessage):
        """Tab completed `@path` to a file: it may be listed for the next message."""

        def __init__(self, path: str) -> None:
            super().__init__()
            self.path = path

    class Submitted(TextualMessage):
        """The user pressed Enter with some text in the prompt."""

        def __init__(self, prompt: PromptInput, text: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.text = text

        @property
        def control(self) -> PromptInput:
            return self.prompt

    def __init__(self, *, id: str | None = None, placeholder: str = "") -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False,
                         tab_behavior="focus", placeholder=placeholder,
                         highlight_cursor_line=False)
        self.prompt_history: list[str] = []
        self._recall_index: int | None = None

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
            return
        if event.key in ("ctrl+j", "shift+enter"):
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if event.key == "up" and self._can_recall():
            event.stop()
            event.prevent_default()
            self.recall(-1)
            return
        if event.key == "down" and self._recall_index is not None:
            event.stop()
            event.prevent_default()
            self.recall(1)
            return
        if event.key == "tab" and self._complete_mention():
            event.stop()
            event.prevent_default()
            return
        self._recall_index = None
        await super()._on_key(event)

    def _complete_mention(self) -> bool:
        """Complete the `@path` just before the cursor; False when there is none there (Tab
        then moves the focus). With nothing to add, the bell: the focus stays."""
        row, column = self.cursor_location
        mention = _MENTION_BEFORE_CURSOR.search(self.document.get_line(row)[:column])
        if mention is None or self.selection.start != self.selection.end:
            return False
        written = mention.group(1)
        completed = complete_path(written, Path.cwd())
        if completed is None or completed == written:
            self.app.bell()
        else:
            self.insert(completed[len(written):])
            if not completed.endswith("/"):  # a whole file name: listed now, with its size
                self.post_message(self.AttachRequested(completed))
        return True

    def _can_recall(self) -> bool:
        if not self.prompt_history:
            return False
        if self._recall_index is not None:
            return True
        return not self.text.strip()

    def recall(self, step: int) -> None:
        """Step through earlier prompts: -1 older, +1 newer (past the newest: empty)."""
        index = len(self.prompt_history) if self._recall_index is None else self._recall_index
        index = max(0, index + step)
        if index >= len(self.prompt_history):
            self._recall_index = None
            self.clear()
            return
        self._recall_index = index
        self.load_text(self.prompt_history[index])
        self.move_cursor(self.document.end)

    def submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        self.post_message(self.Submitted(self, text))

    def remember(self, text: str) -> None:
        """Add a sent prompt to the history recalled by Up."""
        if text.strip() and (not self.prompt_history or self.prompt_history[-1] != text):
            self.prompt_history.append(text)
        self._recall_index = None
