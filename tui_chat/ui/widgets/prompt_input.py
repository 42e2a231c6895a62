"""The multi-line prompt: Enter sends, Ctrl+J inserts a newline, Up on empty recalls.

TextArea inserts a newline on plain Enter and swallows the key, so a binding on `enter` would
never fire: `_on_key` handles Enter and Ctrl+J itself (see TEXTUAL_NOTES.md). Shift+Enter and
Alt+Enter (a new line in other chat clients) also insert a newline in terminals that report
them (kitty keyboard protocol); elsewhere Textual's parser reads Alt+Enter (ESC CR) as plain
Enter, which sends, so Ctrl+J is the key that works in every terminal.

Ctrl+L clears the prompt (one edit: Ctrl+Z undoes it). A message given back after it was not
sent is selected (`restore`), so typing replaces it.

Ctrl+E asks for the text in the user's editor (`EditorRequested`); the page keys, Ctrl+Home,
Ctrl+End and Ctrl+Up/Down ask for the conversation to scroll (`ScrollRequested`), so the
prompt keeps the focus (they replace TextArea's own cursor moves for those keys). A text
longer than the box shows its size (characters, estimated tokens) on the box's lower edge.

Tab after `@path` completes the path (as far as the files agree; the current folder's), and
asks for a file it completes to be attached; anywhere else Tab moves the focus on.

TextArea applies its theme's CSS fallbacks (`TextAreaTheme.apply_css`: the base, cursor,
selection and gutter styles read from the CSS) at every render, and the prompt is rendered at
every blink of its cursor and with every frame of a streaming reply that reaches its rows.
Those styles change only when the CSS is applied to the prompt again (a theme, focus, hover
or the box's state: `notify_style_update`), when its component styles are replaced, or when
its TextArea theme changes: `render_lines` applies them only then.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar, Literal

from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.message import Message as TextualMessage
from textual.strip import Strip
from textual.widgets import TextArea

from tui_chat.core.attachments import complete_path
from tui_chat.core.tokens import TextCounts
from tui_chat.ui import textual_compat

ScrollTo = Literal["page_up", "page_down", "top", "bottom", "line_up", "line_down"]
"""Where the prompt's scrolling keys take the conversation."""

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
    PromptInput { border-subtitle-color: $text-muted; }
    """

    BINDING_GROUP_TITLE = "Prompt"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+e", "open_editor", "Editor", id="prompt.editor",
                tooltip="Write the prompt in your editor ($VISUAL or $EDITOR)"),
        Binding("ctrl+l", "clear_prompt", "Clear", id="prompt.clear",
                tooltip="Clear the prompt (Ctrl+Z brings the text back)", show=False),
        # Not in the footer, so each says in full what it does (the help and palette show it).
        Binding("pageup", "scroll_conversation('page_up')", "Scroll the conversation up a page",
                id="prompt.page_up", show=False),
        Binding("pagedown", "scroll_conversation('page_down')",
                "Scroll the conversation down a page", id="prompt.page_down", show=False),
        Binding("ctrl+home", "scroll_conversation('top')",
                "Scroll to the start of the conversation", id="prompt.top", show=False),
        Binding("ctrl+end", "scroll_conversation('bottom')",
                "Scroll to the end of the conversation (and follow it)", id="prompt.bottom",
                show=False),
        Binding("ctrl+up", "scroll_conversation('line_up')", "Scroll the conversation up a line",
                id="prompt.line_up", show=False),
        Binding("ctrl+down", "scroll_conversation('line_down')",
                "Scroll the conversation down a line", id="prompt.line_down", show=False),
    ]

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

    class EditorRequested(TextualMessage):
        """The user asked to write the prompt in their editor."""

    class ScrollRequested(TextualMessage):
        """The user asked to scroll the conversation."""

        def __init__(self, where: ScrollTo) -> None:
            super().__init__()
            self.where = where

    def __init__(self, *, id: str | None = None, placeholder: str = "") -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False,
                         tab_behavior="focus", placeholder=placeholder,
                         highlight_cursor_line=False)
        self.prompt_history: list[str] = []
        self._recall_index: int | None = None
        self._counts = TextCounts()  # the size shown, counted again only where edited
        self._styles_applied = 0  # CSS applications seen (notify_style_update)
        self._theme_css_for: tuple[object, ...] | None = None  # what apply_css last read

    def notify_style_update(self) -> None:
        self._styles_applied += 1
        super().notify_style_update()

    def render_lines(self, crop: Region) -> list[Strip]:
        """TextArea's, with the theme's CSS fallbacks applied only when what they are read
        from may have changed (see the module doc)."""
        theme = textual_compat.text_area_theme(self)
        if theme:
            inputs = (theme, self._styles_applied, self.app.theme,
                      *map(id, textual_compat.component_styles(self).values()))
            if inputs != self._theme_css_for:
                theme.apply_css(self)
                self._theme_css_for = inputs
        return super(TextArea, self).render_lines(crop)  # TextArea.render_lines, less its apply_css

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
            return
        if event.key in ("ctrl+j", "shift+enter", "alt+enter"):
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

    def restore(self, text: str) -> None:
        """Give back a message that was not sent, selected, so that typing replaces it and
        Enter sends it again."""
        self.load_text(text)
        self.select_all()

    def action_clear_prompt(self) -> None:
        """Empty the prompt as one edit (undo brings the text back)."""
        if self.text:
            self.clear()
        self._recall_index = None

    def action_open_editor(self) -> None:
        self.post_message(self.EditorRequested())

    def action_scroll_conversation(self, where: ScrollTo) -> None:
        self.post_message(self.ScrollRequested(where))

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.call_after_refresh(self.show_size)  # once the box has grown to fit, or not

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.show_size)

    def show_size(self) -> None:
        """The text's size on the lower edge, while it is longer than the box."""
        overflows = self.wrapped_document.height > self.scrollable_content_region.height
        if not overflows:
            self.border_subtitle = ""
            return
        text = self.text
        self._counts.update(text)
        self.border_subtitle = size_label(len(text), self._counts.tokens())


def size_label(characters: int, tokens: int) -> str:
    """`1,234 characters · ~310 tokens` (an estimate: see core.tokens)."""
    return f"{characters:,} characters · ~{tokens:,} tokens"
