"""The summary in force, shown in the message list (issue 25: "shown folded, editable").

Design:
- A summary (core.summaries) is sent in place of the turns it covers; it is no message of the
  path, so it is no `MessageView`: one `SummaryRow` of its own, right after the view of the
  last message it covers (its parent), i.e. where the context starts. Folded it is one line,
  `▶ Summary of 6 earlier messages, sent in their place · Enter shows it · e edits` (the
  `tc.summary` colour role, italic); unfolded, the summary's text below it as Markdown.
- The summary is a model's output: untrusted. It is `sanitize`d and drawn as Rich Markdown
  (which reads no markup; links shown as text, never opened), the heading as `Text`.
- `SummaryPlace` keeps the summary the list shows and its row: `set` when the context's start
  is worked out again (ContextStatus: a summary made, a conversation opened, the path
  changed, the summary left out), `place` after every change of the views mounted (the row
  follows its parent's view; no row while that view is not mounted). Whether the row is the
  one chosen with the keys in message mode (`chosen`) is the list's selection, kept here:
  ↑/↓ stop on it between its parent and the message after, Enter/`t` unfold it, `e` edits
  it (the list posts `EditRequested` with the summary: the controller edits it), `c` copies
  its text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text
from textual.widgets import Static

from tui_chat.core.models import Message
from tui_chat.core.text import sanitize

if TYPE_CHECKING:
    from textual.widget import Widget

    from tui_chat.ui.widgets.message_view import MessageView

ROW_ACTIONS = frozenset({"select", "edit_summary", "toggle_thinking", "fold", "copy_message",
                         "leave", "first", "last"})
"""The message list's actions that apply to the summary row when it is chosen (the others
are for a message: they are not offered meanwhile)."""


def heading(covered: int, unfolded: bool) -> str:
    """The row's first line (`covered`: the messages above it that the summary stands for)."""
    what = f"{covered} earlier message{'s' if covered != 1 else ''}"
    keys = "Enter folds it" if unfolded else "Enter shows it"
    return f"{'▼' if unfolded else '▶'} Summary of {what}, sent in their place · {keys} · e edits"


class SummaryRow(Static):
    """The summary sent in place of the oldest turns: folded, or unfolded with its text."""

    DEFAULT_CSS = """
    SummaryRow {
        padding: 0 1;
        margin: 0 0 1 0;
        border-left: thick $panel;
    }
    SummaryRow.-selected {
        background: $tc-selection 20%;
        border-left: thick $tc-selection;
        outline-right: thick $tc-selection;
    }
    """

    def __init__(self, summary: Message, covered: int, *, code_theme: str,
                 reading_width: int | None = None) -> None:
        super().__init__(markup=False)
        self.summary = summary
        self.covered = covered
        self.code_theme = code_theme
        self.reading_width = reading_width
        self.unfolded = False
        self.update(self._renderable())

    def show(self, summary: Message, covered: int) -> None:
        """Another summary, or the same one edited, or another count above it."""
        if (summary.id, summary.content, covered) != (self.summary.id, self.summary.content,
                                                      self.covered):
            if summary.id != self.summary.id:
                self.unfolded = False
            self.summary, self.covered = summary, covered
            self.update(self._renderable())

    def toggle(self) -> None:
        self.unfolded = not self.unfolded
        self.update(self._renderable())
        if self.unfolded:  # the text below the heading in view, as far as it fits
            self.call_after_refresh(self.scroll_visible, animate=False, top=False)

    def _renderable(self) -> RenderableType:
        # A span, not the Text's own style: Textual reads that as a CSS style, not a Rich
        # theme's name, and would draw the folded row without its colour role.
        head = Text.assemble((heading(self.covered, self.unfolded), "tc.summary"))
        if not self.unfolded:
            return head
        text = SummaryText(sanitize(self.summary.content), self.code_theme, self.reading_width)
        return Group(head, Text(""), text)


class SummaryText:
    """The summary's text as Markdown, without the blank rows Rich puts before a leading list
    (one blank row between the heading and the text, whatever the text starts with)."""

    def __init__(self, text: str, code_theme: str, reading_width: int | None) -> None:
        self.text, self.code_theme, self.reading_width = text, code_theme, reading_width

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from tui_chat.ui.widgets.markdown_render import markdown_rows  # drawn on demand

        rows = markdown_rows(self.text, console, options, code_theme=self.code_theme,
                             reading_width=self.reading_width)
        while rows and not rows[0].text.strip():
            rows.pop(0)
        for row in rows:
            yield from row
            yield Segment.line()


class SummaryPlace:
    """The summary a message list shows, its row, and whether the row is chosen."""

    def __init__(self, host: Widget, views: Callable[[], list[MessageView]]) -> None:
        self.host = host
        self._views = views
        """The message views mounted in `host`, in order."""
        self.summary: Message | None = None
        self.covered = 0
        self.row: SummaryRow | None = None
        self.chosen = False
        self._code_theme = ""
        self._reading_width: int | None = None

    def set(self, summary: Message | None, covered: int, *, code_theme: str,
            reading_width: int | None) -> None:
        """Show `summary` (None: none is in force) as standing for `covered` messages."""
        self.summary, self.covered = summary, covered
        self._code_theme, self._reading_width = code_theme, reading_width
        self.place()

    def place(self) -> None:
        """Put the row right after its parent's view, or take it away when there is no
        summary or that view is not mounted."""
        host, summary, row = self.host, self.summary, self.row
        if row is not None and row not in host.children:
            row = self.row = None  # removed with the views (another window mounted)
        anchor = None
        if summary is not None:
            anchor = next((v for v in self._views() if v.message.id == summary.parent_id),
                          None)
        if summary is None or anchor is None:
            if row is not None:
                row.remove()
                self.row = None
            self.choose(False)
            return
        if row is None:
            self.row = SummaryRow(summary, self.covered, code_theme=self._code_theme,
                                  reading_width=self._reading_width)
            host.mount(self.row, after=anchor)
            return
        row.show(summary, self.covered)
        children = list(host.children)
        if children.index(row) != children.index(anchor) + 1:
            host.move_child(row, after=anchor)

    def choose(self, chosen: bool) -> None:
        """The row is (or is no longer) the one the keys act on."""
        chosen = chosen and self.row is not None
        if chosen != self.chosen:
            self.chosen = chosen
            if self.row is not None:
                self.row.set_class(chosen, "-selected")
            self.host.refresh_bindings()

    def after(self, messages: list[Message]) -> int | None:
        """The index in `messages` of the message the row follows (None: no row shown)."""
        if self.row is None or self.summary is None:
            return None
        ids = [m.id for m in messages]
        return ids.index(self.summary.parent_id) if self.summary.parent_id in ids else None
