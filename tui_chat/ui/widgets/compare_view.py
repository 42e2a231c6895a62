"""A comparison: the replies of 2-4 models to one prompt, side by side in columns (stacked
when the terminal is narrower than STACK_BELOW cells), each under a line of figures. Prose
wraps at the reading width as in every other message (see reading_column): it matters when a
column is wider than it (stacked, or few columns with a low reading width).

Each column streams through its own `ReplyView` (the one live reply widget, drawing its own
lines, paced), swapped for a finished `MessageView` when its reply ends, as the message list
does. Once the replies have ended the view takes the focus to let the user choose one to
continue with (←/→ and Enter, or its number); it posts `ReplyChosen`. It draws only: the
conversation screen feeds it (compare_presenter) and decides. The message list holding it
follows the ends of the replies while they stream (until the user scrolls), and taking the
focus at their end does not scroll; the reply chosen is then shown from its top
(`MessageList.show_from_top`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message as TextualMessage
from textual.widgets import Static

from tui_chat.core.models import Message, Usage
from tui_chat.ui.widgets.message_view import MessageView, Position, ProviderLabels

if TYPE_CHECKING:  # with the first reply: Markdown is not on the start-up path
    from tui_chat.ui.widgets.reply_view import PaceGroup, ReplyView

STACK_BELOW = 100
"""Terminal width (cells) under which the columns are stacked one above the other."""
CHOOSE = Binding.Group("Choose")
COMPLETE = "complete"


@dataclass(frozen=True)
class ColumnFigures:
    """What the line above a column says."""

    state: str = "waiting for the first token…"
    time_to_first_token: float | None = None
    tokens_per_second: float | None = None
    usage: Usage | None = None


def figures_text(number: int, figures: ColumnFigures, *, form: int = 0) -> Text:
    """" 1  first token 0.42 s · 61.0 tok/s · 18 in · 96 out", the state first when the
    reply is not complete. Shorter `form`s for narrower columns: 1, " 1  first token 0.42 s
    · 61 tok/s · 18→96 tok"; 2, " 1  first 0.42 s · 61 tok/s · 18→96 tok"."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f" {number} ", style="bold reverse")
    if figures.state != COMPLETE:
        text.append(f" {figures.state}", style="italic")
    if figures.time_to_first_token is not None:
        text.append(" ·" if figures.state != COMPLETE else "")
        label = "first" if form >= 2 else "first token"
        text.append(f" {label} {figures.time_to_first_token:.2f} s")
    if figures.tokens_per_second is not None:
        text.append(f" · {figures.tokens_per_second:.0f} tok/s" if form
                    else f" · {figures.tokens_per_second:.1f} tok/s")
    if figures.usage is not None:
        usage = figures.usage
        text.append(f" · {usage.prompt_tokens}→{usage.completion_tokens} tok" if form
                    else f" · {usage.prompt_tokens} in · {usage.completion_tokens} out")
    return text


FIGURES_FORMS = 3
"""How many forms of a column's figures there are, longest first (see figures_text)."""


class FiguresLine:
    """A column's figures on one row of whatever width the column has: the longest form
    that fits, else the shortest cut with an ellipsis (they never wrap into the row of the
    headers beside them, issue 25)."""

    def __init__(self, number: int, figures: ColumnFigures) -> None:
        self.forms = [figures_text(number, figures, form=form) for form in range(FIGURES_FORMS)]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        fits = [form for form in self.forms if form.cell_len <= options.max_width]
        yield fits[0] if fits else self.forms[-1]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, self.forms[0].cell_len)


class CompareColumn(Vertical):
    """One model's reply: its figures, then the reply (live, then finished)."""

    DEFAULT_CSS = """
    CompareColumn { width: 1fr; height: auto; padding: 0 1 0 0; }
    CompareColumn > .figures { height: 1; color: $text-muted; }
    CompareColumn > MessageView, CompareColumn > ReplyView { margin: 0; }
    """

    def __init__(self, number: int, *, code_theme: str,
                 labels: ProviderLabels | None = None, reading_width: int | None = None,
                 pace: Callable[[], PaceGroup] | None = None) -> None:
        """`pace`: the group its reply is paced with (its comparison's), else its own."""
        super().__init__()
        self.number = number
        self._pace = pace
        self.code_theme = code_theme
        self.labels = labels
        self.reading_width = reading_width
        """Widest line of its prose, in cells (None: the column's width; see reading_column)."""
        self.figures = ColumnFigures()
        self.reply: ReplyView | None = None
        self.message: Message | None = None
        """The reply as it ended (None while it streams, or if it never started)."""

    def compose(self) -> ComposeResult:
        yield Static(FiguresLine(self.number, self.figures), classes="figures", markup=False)

    def show_figures(self, figures: ColumnFigures) -> None:
        """New figures: a layout only if they take another number of rows (they change
        about once a second in each column while it streams)."""
        self.figures = figures
        line = self.query_one(".figures", Static)
        # One row whatever the width (FiguresLine): laid out again only before it has one.
        line.update(FiguresLine(self.number, figures), layout=not line.content_size.width)

    async def start(self, message: Message) -> ReplyView:
        from tui_chat.ui.widgets.reply_view import ReplyView

        self.reply = ReplyView(message, code_theme=self.code_theme, labels=self.labels,
                               reading_width=self.reading_width,
                               pace=self._pace() if self._pace is not None else None)
        await self.mount(self.reply)
        return self.reply

    async def finish(self, message: Message | None, position: Position | None) -> None:
        """The reply ended as `message` (None: never saved): its finished view replaces the
        live one, drawn from the lines the live one drew where they are the same."""
        reply, self.reply = self.reply, None
        self.message = message
        if reply is not None:
            await reply.finish()
        if message is None:
            if reply is not None:
                await reply.remove()
            return
        # Its tokens are on the figures line above: the header does not say them again (in
        # a narrow column they wrapped it).
        message = message.model_copy(update={"usage": None})
        view = MessageView(message, code_theme=self.code_theme, position=position,
                           labels=self.labels, reading_width=self.reading_width)
        width = reply.content_size.width if reply is not None else 0
        lines = (await asyncio.to_thread(reply.finished_lines, message, width, position)
                 if reply is not None and width > 0
                 and reply.reading_width == view.reading_width else None)  # else: changed
        if lines is not None:
            view.cached.adopt(lines, width)
        elif width > 0:
            await view.prepare(self.app, width)  # in a thread, not on the event loop
        # One swap, one layout (as the message list swaps a reply): laid out between the
        # mount and the removal, the screen was laid out and painted once more with both
        # views in the column, and each layout of a comparison visits every row of its
        # nested containers (tests/ui/test_compare_drawing.py).
        with self.app.batch_update():
            await self.mount(view, before=reply)
            if reply is not None:
                await reply.remove()

    def set_reading_width(self, width: int | None) -> None:
        """Wrap prose at `width` cells from now on: the finished reply is drawn again; a
        reply streaming keeps its width until it ends (as in the message list)."""
        if width == self.reading_width:
            return
        self.reading_width = width
        for view in self.query(MessageView):
            view.reading_width = width
            view.set_message(view.message)


class ColumnsRow(Horizontal):
    """The columns side by side (stacked: one above the other)."""


class CompareView(Vertical, can_focus=True):
    """2-4 columns of replies to one prompt; see the module docstring."""

    DEFAULT_CSS = """
    CompareView { height: auto; margin: 0 0 1 0; }
    CompareView > .hint { height: auto; color: $text-muted; padding: 0 1; }
    CompareView > ColumnsRow { height: auto; }
    CompareView.-stacked > ColumnsRow { layout: vertical; }
    CompareView.-stacked CompareColumn { width: 1fr; margin: 0 0 1 0; }
    CompareView:focus CompareColumn.-highlighted { background: $tc-selection 10%; }
    CompareView:focus CompareColumn.-highlighted > .figures { color: $tc-selection; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "highlight(-1)", "Previous reply", id="compare.previous",
                group=CHOOSE, tooltip="Highlight the reply before"),
        Binding("right", "highlight(1)", "Next reply", id="compare.next", group=CHOOSE,
                tooltip="Highlight the reply after"),
        Binding("enter", "choose", "Continue with it", id="compare.choose",
                tooltip="Continue the conversation with the highlighted reply (the others "
                "stay as branches)"),
        *[Binding(str(n), f"choose({n - 1})", f"Continue with reply {n}", show=False,
                  id=f"compare.choose_{n}") for n in range(1, 5)],
        Binding("escape", "leave", "Back to prompt", id="compare.leave"),
    ]

    class ReplyChosen(TextualMessage):
        """The user chose `message` to continue the conversation with."""

        def __init__(self, message: Message) -> None:
            super().__init__()
            self.message = message

    class LeaveRequested(TextualMessage):
        """Esc in the comparison: focus goes back to the prompt."""

    def __init__(self, models: list[tuple[str, str]], *, code_theme: str,
                 labels: ProviderLabels | None = None, reading_width: int | None = None
                 ) -> None:
        super().__init__()
        self.models = models
        self.code_theme = code_theme
        self.streaming = True
        self.highlighted = 0
        self._pace: PaceGroup | None = None
        self._columns = [CompareColumn(number, code_theme=code_theme, labels=labels,
                                       reading_width=reading_width, pace=self.pace)
                         for number in range(1, len(models) + 1)]

    def pace(self) -> PaceGroup:
        """The columns' replies are appended at the same moments: each append that grows a
        column lays the screen out (every row of the nested containers) and paints a frame;
        paced each on its own, two columns took twice one reply's layouts and frames, each
        dearer (issue 24). Together, one layout and one frame show both growths."""
        if self._pace is None:
            from tui_chat.ui.widgets.reply_view import PaceGroup

            self._pace = PaceGroup()
        return self._pace

    def compose(self) -> ComposeResult:
        yield Static(self._hint(), classes="hint", markup=False)
        with ColumnsRow():
            yield from self._columns

    def _hint(self) -> Text:
        count = len(self.models)
        if self.streaming:
            return Text(f"Comparing {count} models · Esc stops them all", style="italic")
        return Text(f"Compared {count} models: ←/→ and Enter (or 1–{count}) continue with one; "
                    "the others stay as branches.", style="italic")

    def on_mount(self) -> None:
        self._stack()

    def focus(self, scroll_visible: bool = False) -> CompareView:
        """Take the focus where the view stands: the message list follows the replies' ends
        (anchored) while they stream, and they ended in view; Textual's default, scrolling
        the view's top into sight, jumped back to the top of every column (issue 25)."""
        super().focus(scroll_visible=scroll_visible)
        return self

    def on_resize(self, event: events.Resize) -> None:
        self._stack()

    def _stack(self) -> None:
        """Stacked or side by side, and side by side each column a fixed number of cells: a
        live reply asked its height at two widths draws its whole text again for each (the
        `1fr` of a horizontal layout is resolved at more than one width)."""
        stacked = self.app.size.width < STACK_BELOW
        self.set_class(stacked, "-stacked")
        columns = self.columns
        width = self.content_size.width
        if not columns or not width:
            return
        for index, column in enumerate(columns):
            if stacked:
                cells: int | str = "1fr"
            else:
                cells = width // len(columns) + (1 if index < width % len(columns) else 0)
            if column.styles.width is None or str(column.styles.width) != str(cells):
                column.styles.width = cells

    @property
    def columns(self) -> list[CompareColumn]:
        """Mounted with the view (not a query: every delta of every column asks)."""
        return list(self._columns) if self.is_mounted else []

    def column(self, index: int) -> CompareColumn:
        return self._columns[index]

    def set_reading_width(self, width: int | None) -> None:
        """See CompareColumn.set_reading_width."""
        for column in self.columns:
            column.set_reading_width(width)

    def ended(self) -> None:
        """Every reply has ended: the user chooses now."""
        self.streaming = False
        hint = self.query_one(".hint", Static)
        text = self._hint()
        # A layout of a comparison visits every row of its columns: asked for only if the
        # hint may take another number of rows (it was one row and the new one fits one).
        fits = hint.content_size.height == 1 and text.cell_len <= hint.content_size.width
        hint.update(text, layout=not fits)
        self._show_highlight()
        self.refresh_bindings()

    def _show_highlight(self) -> None:
        for index, column in enumerate(self.columns):
            column.set_class(index == self.highlighted, "-highlighted")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("highlight", "choose"):
            return not self.streaming
        if action == "leave":
            return not self.streaming  # while streaming, Esc stops them (the screen's key)
        return True

    def action_highlight(self, step: int) -> None:
        self.highlighted = (self.highlighted + step) % len(self.models)
        self._show_highlight()
        column = self.column(self.highlighted)
        self.screen.scroll_to_widget(column, animate=False)

    def action_choose(self, index: int | None = None) -> None:
        chosen = self.highlighted if index is None else index
        if not 0 <= chosen < len(self.models):
            return
        message = self.column(chosen).message
        if message is None:
            self.notify("That reply was not saved: choose another.", markup=False,
                        severity="warning")
            return
        self.post_message(self.ReplyChosen(message))

    def action_leave(self) -> None:
        self.post_message(self.LeaveRequested())
