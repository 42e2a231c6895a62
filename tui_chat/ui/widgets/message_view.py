"""How a finished message looks: ONE widget holding one Rich renderable.

A finished message is a single `Static` holding a Rich renderable (Markdown for the assistant,
plain text for the user): 1 widget instead of ~11 for Textual's `Markdown`, which is what
makes a 2,000-message history cheap. (The reply in progress is `reply_view.ReplyView`.)
Everything shown here is untrusted: it goes through `sanitize()` and never through markup.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.constrain import Constrain
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.app import App
from textual.css.styles import RulesMap
from textual.geometry import Region
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widget import Widget
from textual.widgets import Static

from tui_chat.core.costs import cost_text
from tui_chat.core.models import Message, MessageStatus, Role
from tui_chat.core.protection import protection_badges
from tui_chat.core.providers import BUILTIN_PROVIDERS
from tui_chat.core.text import sanitize
from tui_chat.ui import textual_compat
from tui_chat.ui.key_hints import hint_key
from tui_chat.ui.widgets.attachment_lines import folded_attachments
from tui_chat.ui.widgets.line_cache import LineCache, forget_painted, styled
from tui_chat.ui.widgets.piece_rows import ChainRows
from tui_chat.ui.widgets.row_moves import PaintedRows, RowMoves
from tui_chat.ui.widgets.selectable import (
    PlacesWhenAsked,
    highlighted,
    highlighted_row,
    selected_text,
    selection_paint,
)
from tui_chat.ui.widgets.tool_rows import call_rows, result_rows

if TYPE_CHECKING:  # Markdown parsing and drawing are imported on first use, not at start-up
    from rich.markdown import Markdown as RichMarkdown


ProviderLabels = Mapping[str, str]
"""Providers' display names by name (`Settings.provider_labels()`)."""


def provider_label(name: str | None, labels: ProviderLabels | None = None) -> str:
    """A provider's display name ("Chutes", or its config section's `display_name`) from its
    name ("chutes")."""
    if not name:
        return "unknown provider"
    label = (labels or {}).get(name)
    if label:
        return sanitize(label)
    spec = BUILTIN_PROVIDERS.get(name)
    return spec.display_name if spec else sanitize(name)


Position = tuple[int, int]
"""(position from 1, number of siblings) of a message at its branch point."""


def branch_label(position: Position | None) -> str:
    """"‹ 2/3 ›" for the second of three alternatives; "" for a message without siblings."""
    if position is None or position[1] < 2:
        return ""
    return f"‹ {position[0]}/{position[1]} ›"


STOPPED_BEFORE_START = "stopped before it began; Ctrl+R tries again"
"""The header's note on a reply stopped before any of it arrived (it has no other row), when
it ends the conversation: Ctrl+R writes the last reply again."""
STOPPED_BEFORE_START_EARLIER = "stopped before it began; r on it (Ctrl+O) tries again"
"""The same note when messages follow it: Ctrl+R would write the last reply again, not this
one; `r` in the message list writes the selected one again."""


def stopped_before_start_note(last: bool) -> str:
    """STOPPED_BEFORE_START (`last`), else STOPPED_BEFORE_START_EARLIER, with the user's keys."""
    if last:
        return (f"stopped before it began; {hint_key('conversation.regenerate', 'Ctrl+R')} "
                "tries again")
    return (f"stopped before it began; {hint_key('messages.regenerate', 'r')} on it "
            f"({hint_key('conversation.messages', 'Ctrl+O')}) tries again")


MIN_MODEL_CELLS = 8
"""Cells a model id in a header keeps at least when it is cut to fit (see AuthorLine)."""


class AuthorLine(Text):
    """A message's header that keeps to the width it is drawn at: when it is wider, the model
    id at its start (`shrinkable` characters) is cut with an ellipsis, down to
    MIN_MODEL_CELLS, so that what follows it (provider, `‹ n/m ›`, state) stays on its row
    (a compared reply's column is narrow: the badge broke across lines, issue 25)."""

    shrinkable = 0

    def __rich_console__(self, console: Console, options: ConsoleOptions
                         ) -> Iterable[Segment]:
        return fit_header(self, self.shrinkable, options.max_width).__rich_console__(
            console, options)


def fit_header(line: Text, shrinkable: int, width: int) -> Text:
    """`line` as a plain Text, its first `shrinkable` characters cut with an ellipsis so that
    it is at most `width` cells where that leaves them MIN_MODEL_CELLS (else as short as
    that: the rest wraps)."""
    plain = Text(style=line.style, end=line.end)
    excess = line.cell_len - width
    if excess <= 0 or not 0 < shrinkable < len(line):
        plain.append_text(line)
        return plain
    head, tail = line.divide([shrinkable])
    head.truncate(max(MIN_MODEL_CELLS, head.cell_len - excess), overflow="ellipsis")
    plain.append_text(head)
    plain.append_text(tail)
    return plain


def author_line(message: Message, *, live: bool = False, position: Position | None = None,
                labels: ProviderLabels | None = None, last: bool = True) -> Text:
    """The header of a message: who wrote it, which of its branch's alternatives it is, and
    its state when not complete (`last`: nothing follows it, which the keys it names
    depend on). Drawn narrower than it is, its model id is cut (AuthorLine)."""
    if message.role is Role.USER:
        line = AuthorLine("You", style="bold")
    else:
        line = AuthorLine(sanitize(message.model or "assistant"), style="bold")
        line.shrinkable = len(line)
        line.append(f"  {provider_label(message.provider, labels)}", style="dim")
        badges = protection_badges(message.sent_as)  # how it was sent: never more than known
        if badges:
            line.append(f"  {badges}", style="bold")
        if message.reasoning_sent:  # what the request asked of the model's reasoning
            line.append(f"  · reasoning {sanitize(message.reasoning_sent)}", style="dim")
    branch = branch_label(position)
    if branch:
        line.append(f"  {branch}", style="bold")
    if message.stopped_before_start:  # the one row it has: nothing arrived, nothing to keep
        line.append(f"  · {stopped_before_start_note(last)}", style="italic")
    elif message.status is MessageStatus.INTERRUPTED:
        line.append("  ").append("· interrupted", style="tc.warning")
    elif message.status is MessageStatus.ERROR:
        line.append("  ").append("· failed", style="tc.error")
    elif live:
        line.append("  · writing…", style="italic")
    elif message.status is MessageStatus.STREAMING:
        line.append("  ").append("· incomplete", style="tc.warning")
    if message.role is Role.ASSISTANT and not message.streamed:
        line.append("  · sent whole, not streamed", style="dim")
    if message.role is Role.ASSISTANT and message.finish_reason == "length" and not live:
        line.append("  ").append("· cut at the max-tokens limit", style="tc.warning")
    figures = usage_note(message)
    if figures and not live:
        line.append(f"  · {figures}", style="dim")
    return line


def usage_note(message: Message) -> str:
    """A reply's tokens and cost where known: "1,204 in · 230 out · 0.0012 USD" ("" for a
    message of yours, or a reply whose provider said nothing)."""
    usage = message.usage
    if message.role is not Role.ASSISTANT or usage is None:
        return ""
    if not usage.prompt_tokens and not usage.completion_tokens:
        return ""
    note = f"{usage.prompt_tokens:,} in · {usage.completion_tokens:,} out"
    if usage.cost_usd is not None:
        note += f" · {cost_text(usage.cost_usd)}"
    return note


def markdown_renderable(text: str, code_theme: str, reading_width: int | None = None
                        ) -> RichMarkdown:
    """Rich Markdown for untrusted text: links shown as text (URL), never as hyperlinks;
    prose no wider than `reading_width` (see reading_column)."""
    from tui_chat.ui.widgets.markdown_render import markdown_renderable as make

    return make(text, code_theme, reading_width=reading_width)


def capped(renderable: RenderableType, width: int | None) -> RenderableType:
    """`renderable` no wider than `width` cells (None or 0: as wide as it is given)."""
    return Constrain(renderable, width) if width else renderable


def message_chrome(message: Message, *, show_reasoning: bool = False,
                   position: Position | None = None, labels: ProviderLabels | None = None,
                   reading_width: int | None = None, last: bool = True,
                   calls_run: bool = False
                   ) -> tuple[list[RenderableType], list[RenderableType]]:
    """The rows drawn above a message's text (author, Thinking) and below it (its error);
    the reasoning and the error wrap at `reading_width`. `calls_run`: its tool calls were
    answered (tool messages follow it)."""
    above: list[RenderableType] = [author_line(message, position=position, labels=labels,
                                               last=last)]
    if message.reasoning:
        words = len(message.reasoning.split())
        if show_reasoning:
            above.append(Text(f"▼ Thinking ({words} words)", style="dim"))
            above.append(capped(Text(sanitize(message.reasoning.strip()), style="dim italic"),
                                reading_width))
        else:
            above.append(Text(f"▶ Thinking ({words} words; t shows it)", style="dim"))
    # The calls, folded as Thinking is, by the same key (widgets/tool_rows), at the
    # reading width as the result rows under them are.
    below: list[RenderableType] = [
        capped(row, reading_width)
        for row in call_rows(message, run=calls_run, expanded=show_reasoning)]
    if not below and message.error and not message.stopped_before_start:
        below.append(capped(Text(f"⚠ {sanitize(message.error)}", style="tc.error"),
                            reading_width))
    if message.note:  # advisory: the reply is complete (store schema 8), no error
        below.append(capped(Text(f"ℹ {sanitize(message.note)}", style="dim"), reading_width))
    return above, below


def render_message(message: Message, *, code_theme: str = "monokai",
                   show_reasoning: bool = False, position: Position | None = None,
                   labels: ProviderLabels | None = None, reading_width: int | None = None,
                   last: bool = True, calls_run: bool = False,
                   arguments: str | None = None) -> RenderableType:
    """The whole message as one Rich renderable (literal text; Markdown for the assistant),
    its text no wider than `reading_width` (see reading_column); `last`: nothing follows it
    (see author_line); a tool message is its folded result (`t` shows it: tool_rows), with
    the `arguments` of its call when known."""
    if message.role is Role.TOOL:
        return capped(Group(*result_rows(message, expanded=show_reasoning,
                                         arguments=arguments)), reading_width)
    above, below = message_chrome(message, show_reasoning=show_reasoning, position=position,
                                  labels=labels, reading_width=reading_width, last=last,
                                  calls_run=calls_run)
    content = sanitize(message.content)
    body: list[RenderableType] = []
    if message.role is not Role.ASSISTANT:
        body.append(capped(Text(content), reading_width))
        body.extend(folded_attachments(message.attachments))
    elif content.strip():
        body.append(markdown_renderable(content, code_theme, reading_width))
    return Group(*above, *body, *below)


OUT_OF_CONTEXT = "out of context: not sent to the model"

PIECED_CHARS = 8000
"""A reply at least this long is drawn by pieces when read (see pieced_message); a shorter
one is drawn whole."""

Pieced = Callable[[Console, ConsoleOptions], Sequence[Strip]]
"""Draws a message's rows by pieces (see pieced_message), for `options.max_width`."""

LINES_BUDGET = 32 * 2**20
"""Bytes (line_cache.strips_bytes) of drawn messages of the conversation on screen kept for
when their page is mounted again: Home and End in a long conversation mount a page of new
views, drawn from here. Enough for one very long reply (20,000 chunks) beside many short."""
LINES = LineCache(LINES_BUDGET)


class CachedRender(Visual):
    """A Rich renderable drawn once per width into Strips, as a Textual Visual.

    Textual draws a Rich renderable on every layout (height) and again per refresh (lines),
    and Markdown with highlighted code is the costly part of a frame. This draws it once per
    width; `prepare()` may run in a worker thread before the widget is mounted, so a long
    reply is never drawn on the event loop (where it would hold up key presses).
    """

    def __init__(self, renderable: RenderableType | Callable[[], RenderableType],
                 owner: Widget, *, key: Hashable | None = None,
                 conversation_id: str | None = None, pieced: Pieced | None = None) -> None:
        """`renderable` may be a function making it (called each time it is drawn, and not
        kept: a parsed long Markdown is large); with a `key`, the lines drawn are kept in
        LINES, shared by every view of the same message in `conversation_id`. With
        `pieced`, the rows are drawn by it instead, by pieces when read."""
        self._renderable = renderable
        self._pieced = pieced
        self.owner = owner
        self.key = key
        self.conversation_id = conversation_id
        self._width: int | None = None
        self._strips: Sequence[Strip] = []
        self._previous: tuple[int, Sequence[Strip]] | None = None
        self._rows: tuple[Sequence[Strip], int, RichStyle, dict[int, Strip]] | None = None
        self.moves = RowMoves(owner)

    @property
    def renderable(self) -> RenderableType:
        made = self._renderable
        return made() if callable(made) else made

    def adopt(self, strips: Sequence[Strip], width: int) -> None:
        """Take `strips` as this renderable drawn for `width` (already drawn elsewhere; a
        ChainRows may hold pieces not drawn yet, drawn when read: see piece_rows)."""
        self._remember(strips, width)
        self._use(strips, width)

    def draw_rows(self, start: int, stop: int) -> bool:
        """Draw rows `start` to `stop` if they are pieces not drawn yet; whether that moved
        rows (their moves are applied soon after: see RowMoves)."""
        strips = self._strips
        if not isinstance(strips, ChainRows):
            return False
        moves = strips.moves
        for offset, part in strips.lazy_parts():
            part.draw_range(start - offset, stop - offset)
        return strips.moves != moves

    @property
    def moved(self) -> tuple[object, int]:
        """The rows and how many times they moved (PieceRows.moves; see PaintedRows)."""
        strips = self._strips
        return strips, strips.moves if isinstance(strips, ChainRows) else 0

    def draw_ahead(self, start: int, stop: int) -> None:
        """Draw rows `start` to `stop` (as `draw_rows`) before a frame shows them, and keep
        what is on screen in place at once if that moved rows."""
        if self.draw_rows(start, stop):
            self.moves.apply()

    def prepare(self, console: Console, options: ConsoleOptions) -> None:
        """Draw for `options.max_width`, keeping the previous width's lines too: a layout
        asks for the width without the scrollbar, then with it, when the list starts to
        overflow (a long reply drawn twice, and then twice more, on the event loop)."""
        width = options.max_width
        if width == self._width:
            return
        cached = (LINES.get(self.conversation_id, self.key, width)
                  if self.key is not None else None)
        if self._previous is not None and self._previous[0] == width:
            strips = self._previous[1]
        elif cached is not None:
            strips = cached
        elif self._pieced is not None:
            strips = self._pieced(console, options)
            self._remember(strips, width)
        else:
            lines = console.render_lines(self.renderable, options, pad=False)
            strips = [Strip(line) for line in lines]
            self._remember(strips, width)
        self._use(strips, width)

    def release(self) -> None:
        """Let go of the lines drawn (its view left the screen; LINES may keep them)."""
        self._width, self._strips, self._previous, self._rows = None, [], None, None

    def _remember(self, strips: Sequence[Strip], width: int) -> None:
        if self.key is not None:
            LINES.put(self.conversation_id, self.key, width, strips)

    def _use(self, strips: Sequence[Strip], width: int) -> None:
        if self._width is not None:
            self._previous = (self._width, self._strips)
        self._strips, self._width = strips, width
        if isinstance(strips, ChainRows):  # its moves are this view's now (see RowMoves)
            for offset, part in strips.lazy_parts():
                part.on_resize = (lambda row, delta, offset=offset:
                                  self.moves.add(offset + row, delta))

    def _ensure(self, width: int) -> Sequence[Strip]:
        if width != self._width:
            app = self.owner.app
            self.prepare(app.console,
                         app.console_options.update_width(width).update(highlight=False))
        return self._strips

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self._ensure(width))

    def render_strips(self, width: int, height: int | None, style: Style,
                      options: RenderOptions) -> list[Strip]:
        """Every row in the widget's style (the Visual interface; MessageView paints row by
        row through `styled_row` instead)."""
        strips = self._ensure(width)
        result = [styled(strip, style.rich_style)
                  for strip in (strips[:height] if height is not None else strips)]
        if options.selection is not None and options.selection_style is not None:
            paint = selection_paint(options.selection_style, style.background)
            return highlighted(result, options.selection, paint)
        return result

    def styled_row(self, y: int, width: int, style: RichStyle) -> Strip | None:
        """Row `y` for `width` in the widget's `style` (None: below the last), styled on its
        first paint and kept for the next: a long reply is thousands of rows, and only the
        few on screen are painted (styling every row, as `render_strips` must, cost a long
        reply's view about a third of a second on the event loop)."""
        strips = self._ensure(width)
        if not 0 <= y < len(strips):
            return None
        rows = self._rows
        moves = strips.moves if isinstance(strips, ChainRows) else 0  # rows moved: restyle
        if rows is None or rows[0] is not strips or rows[1] != moves or rows[2] != style:
            rows = self._rows = (strips, moves, style, {})
        row = rows[3].get(y)
        if row is None:
            row = rows[3][y] = styled(strips[y], style)
        return row

    @property
    def lines(self) -> Sequence[Strip]:
        """The rows as last drawn."""
        return self._strips


def links_in(markdown: str) -> list[str]:
    """The targets of the links in `markdown`, in order, without duplicates."""
    from markdown_it import MarkdownIt

    links: list[str] = []
    for token in MarkdownIt("commonmark").parse(markdown):
        for child in token.children or ():
            href = child.attrGet("href") if child.type == "link_open" else None
            if isinstance(href, str) and href and href not in links:
                links.append(href)
    return links


_OWN_CLASSES = ("-user", "-assistant", "-tool", "-failed", "-out-of-context")
"""The classes a view takes from what it shows (see MessageView.take)."""


class MessageView(PlacesWhenAsked, Static):
    """A finished message: one widget, one renderable, drawn only when on screen."""

    DEFAULT_CSS = """
    MessageView {
        padding: 0 1;
        margin: 0 0 1 0;
        border-left: thick $panel;
    }
    MessageView.-user { border-left: thick $primary; background: $primary 8%; }
    MessageView.-assistant { border-left: thick $secondary; }
    MessageView.-tool { border-left: thick $secondary 50%; }
    MessageView.-failed { border-left: thick $error; }
    MessageView.-selected {  /* a bar on both sides: seen without colour, or in 256 */
        background: $tc-selection 20%;
        border-left: thick $tc-selection;
        outline-right: thick $tc-selection;
    }
    MessageView.-out-of-context { border-left: thick $panel; text-opacity: 60%; }
    """

    def __init__(self, message: Message, *, code_theme: str = "monokai",
                 position: Position | None = None, labels: ProviderLabels | None = None,
                 reading_width: int | None = None, last: bool = True,
                 calls_run: bool = False, arguments: str | None = None) -> None:
        self.message = message
        self.code_theme = code_theme
        self.position = position
        """Its place among its siblings, shown in the header when it has any."""
        self.labels = labels
        self.reading_width = reading_width
        """Widest line of its text, in cells (None: the view's width; see reading_column)."""
        self.last = last
        """Nothing follows it on the path shown (see author_line)."""
        self.calls_run = calls_run
        """Its tool calls were answered: tool messages follow it (see tool_rows)."""
        self.arguments = arguments
        """A tool message's: the arguments of the call it answers (None: not known)."""
        self.show_reasoning = False
        self.out_of_context = False
        self._painted_rows = PaintedRows()
        classes = ("-user" if message.role is Role.USER
                   else "-tool" if message.role is Role.TOOL else "-assistant")
        if message.status is MessageStatus.ERROR:
            classes += " -failed"
        super().__init__(markup=False, classes=classes)
        # Untrusted text is never markup, so there are no links to click: without this,
        # Textual makes one more copy of every row drawn, to style links there are not.
        self.set_reactive(MessageView.auto_links, False)
        self.update(self._renderable())

    def _renderable(self) -> CachedRender:
        message, theme, reasoning = self.message, self.code_theme, self.show_reasoning
        position = self.position if self.position and self.position[1] > 1 else None
        out, labels, reading = self.out_of_context, self.labels, self.reading_width
        # Only the header of a reply stopped before it began depends on what follows it: the
        # others keep their drawn lines when the path grows below them.
        last = self.last or not message.stopped_before_start
        note = stopped_before_start_note(last) if message.stopped_before_start else None
        key = (message.id, hash(message.content), message.status, message.error,
               hash(message.reasoning), message.model, message.provider,
               provider_label(message.provider, labels), theme, reasoning,
               position, message.finish_reason, out, reading, last, note, message.sent_as,
               message.note, self.calls_run, repr(message.tool_run), message.streamed,
               message.reasoning_sent, hash(self.arguments))
        calls_run, arguments = self.calls_run, self.arguments

        def draw() -> RenderableType:
            drawn = render_message(message, code_theme=theme, show_reasoning=reasoning,
                                   position=position, labels=labels, reading_width=reading,
                                   last=last, calls_run=calls_run, arguments=arguments)
            return Group(Text(OUT_OF_CONTEXT, style="dim italic"), drawn) if out else drawn

        def pieced(console: Console, options: ConsoleOptions) -> Sequence[Strip]:
            from tui_chat.ui.widgets.pieced_message import pieced_rows

            above, below = message_chrome(message, show_reasoning=reasoning,
                                          position=position, labels=labels,
                                          reading_width=reading, last=last,
                                          calls_run=calls_run)
            if out:
                above.insert(0, Text(OUT_OF_CONTEXT, style="dim italic"))
            return pieced_rows(message.content, above, below, console, options,
                               code_theme=theme, reading_width=reading)

        long = message.role is Role.ASSISTANT and len(message.content) >= PIECED_CHARS
        self.cached = CachedRender(draw, self, key=key, conversation_id=message.conversation_id,
                                   pieced=pieced if long else None)
        return self.cached

    def set_out_of_context(self, out: bool) -> None:
        """Mark the message as left out of the context (it is not sent), or not."""
        if out != self.out_of_context:
            self.out_of_context = out
            self.set_class(out, "-out-of-context")
            self.update(self._renderable())

    def set_calls_run(self, run: bool) -> None:
        """Its tool calls are answered (a tool message follows it), or not."""
        if run != self.calls_run:
            self.calls_run = run
            if self.message.tool_calls:
                self.update(self._renderable())

    def set_last(self, last: bool) -> None:
        """Messages now follow it (False), or none do."""
        if last != self.last:
            self.last = last
            if self.message.stopped_before_start:
                self.update(self._renderable())

    def on_unmount(self) -> None:
        # Textual may keep a removed widget a while (in its parent's arrangements), and
        # what it painted longer: its lines must not stay with it.
        self.cached.release()
        self._painted_rows.forget()
        forget_painted(self)

    async def prepare(self, app: App[object], width: int) -> None:
        """Draw the message for `width` cells in a worker thread (see CachedRender.prepare)."""
        if width > 0:
            options = app.console_options.update_width(width).update(highlight=False)
            await asyncio.to_thread(self.cached.prepare, app.console, options)

    def take(self, other: MessageView) -> None:
        """Show what `other` (made, maybe drawn, never mounted) shows, in this mounted view:
        a view reused for another message (a branch switched below it) costs no widget
        mounted and none removed. Its selection class is the caller's."""
        self.message, self.position, self.labels = other.message, other.position, other.labels
        self.code_theme, self.reading_width, self.last = (other.code_theme,
                                                          other.reading_width, other.last)
        self.calls_run, self.arguments = other.calls_run, other.arguments
        self.show_reasoning, self.out_of_context = other.show_reasoning, other.out_of_context
        self.update_classes({name: other.has_class(name) for name in _OWN_CLASSES})
        self.cached.release()
        self.cached = other.cached
        self.cached.owner = self
        self.cached.moves = RowMoves(self)
        self.update(self.cached)

    def set_message(self, message: Message) -> None:
        self.message = message
        self.set_class(message.status is MessageStatus.ERROR, "-failed")
        self.update(self._renderable())

    def render_lines(self, crop: Region) -> list[Strip]:
        # Pieces of a long reply not drawn yet are drawn before the rows are painted (see
        # piece_rows): if that, or a drawing elsewhere since the last paint (a selection, a
        # worker thread), moved rows, those Textual kept from the last paint are stale.
        top = self.styles.gutter.top
        self.cached.draw_rows(crop.y - top, crop.bottom - top)
        if self._painted_rows.changed(*self.cached.moved):
            textual_compat.clear_styles_cache(self)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        # Row by row, not through Widget.render_line, which styles every row of the
        # message (Visual.to_strips) to paint the few on screen. Each row is padded to the
        # full width, so that a blank row, or the space after a row's text, is a place in the
        # text too for the mouse selection (where each character is: see PlacesWhenAsked).
        width = self.size.width
        rich_style = self.visual_style.rich_style
        row = self.cached.styled_row(y, width, rich_style)  # an empty row is falsy: not `or`
        line = Strip.blank(width, rich_style) if row is None else row
        selection = self.text_selection
        if selection is not None:
            selected = Style.from_styles(self.screen.get_component_styles("screen--selection"))
            line = highlighted_row(line, y, selection,
                                   selection_paint(selected, self.visual_style.background))
        if line.cell_length < width:
            line = line.extend_cell_length(width, rich_style)
        return self.placed(line, y)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selected_text(self.cached.lines, selection)

    @property
    def has_lazy_rows(self) -> bool:
        """Some of its rows are drawn only when read (see piece_rows)."""
        return isinstance(self.cached.lines, ChainRows)

    def draw_ahead(self, start: int, stop: int) -> None:
        """Draw its rows `start` to `stop` (in the view's rows, gutter included) if they
        are not drawn yet, ahead of the frame that shows them."""
        top = self.styles.gutter.top
        self.cached.draw_ahead(start - top, stop - top)

    def toggle_reasoning(self) -> None:
        self.show_reasoning = not self.show_reasoning
        self.update(self._renderable())
