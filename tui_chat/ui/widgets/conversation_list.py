"""The sidebar: saved conversations newest first, a filter over titles and full text, and the
open / new / rename / delete / export keys. It reads the store to draw the list; what the keys
ask for it posts (`…Requested`), and the conversation screen decides and does it.

A row is one line, two at most, so that more titles show and more of each: the title first
(bold), its meta dim and right-aligned on the title's last line: when it was last written to
(the time for today's rows, else the date) and its number of messages, always, then the model
when it fits too. A title too long for its line goes on onto a second one, cut there with "…".
Widths are cells as the terminal counts them (ui/cells.py installs that table in Rich, which
`Content` measures with), so a Hindi or CJK title never pushes the border. A search hit adds
one line: the matching text.

Titles and snippets are untrusted: drawn as `Content`, matches styled by span. A snippet is
plain text (the store reads Markdown as it reads: `core.plain_markdown`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import unicodedata
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import ClassVar

from rich.cells import cell_len, get_character_cell_size
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content, Span
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui_chat.core.errors import TuiChatError
from tui_chat.core.models import ConversationSummary, SearchHit
from tui_chat.core.store import Store
from tui_chat.core.text import one_line
from tui_chat.ui.highlight import around_first_match, find_terms, highlighted_content

LIST_LIMIT = 2000  # conversations read for the title filter
MAX_SHOWN = 300  # rows drawn at most
SEARCH_DELAY = 0.15  # seconds of typing pause before the full-text search runs


TITLE_CHARS = 200  # of a title, at most, before it is cut to its lines
INDENT = "  "  # the marker's width: a title's second line and a snippet start under it
META_GAP = 2  # cells at least between a title and its meta
_JOINERS = frozenset("\u200c\u200d\ufe0e\ufe0f")  # ZWNJ, ZWJ, variation selectors


def title_lines(marker: str, title: Content, details: tuple[str, ...], width: int) -> Content:
    """`title` after `marker` in one line of `width` cells, two when it needs them, with as
    many of `details` (most important first) as fit dim and right-aligned on the last line;
    the first detail (the date) always shows. Measured and put together on the plain text
    (the title's spans moved along): this runs for every row drawn, at each keystroke in the
    filter, where Content's own slicing and joining cost twice as much again."""
    # Cached by text AND spans: a Content equals any other with the same text, whatever its
    # styles, so it cannot be the key itself (a match highlighted would be drawn plain).
    return _title_lines(marker, title.plain, tuple(title.spans), details, width)


@functools.lru_cache(maxsize=2048)
def _title_lines(marker: str, plain: str, spans: tuple[Span, ...], details: tuple[str, ...],
                 width: int) -> Content:
    title = Content(plain, list(spans), strip_control_codes=False)
    room = width - cell_len(marker)
    cut = _fit(plain, room, at_space=True) if cell_len(plain) > room else len(plain)
    rest = cut + len(plain[cut:]) - len(plain[cut:].lstrip())
    if rest == len(plain):  # one line, if the date fits beside it
        meta = _meta(details, room - cell_len(plain) - META_GAP)
        if meta or not details:
            return _row(title, [(marker, 0, len(plain), "", meta)], width)
    room = width - len(INDENT)
    rest_cells = cell_len(plain[rest:])
    meta = _meta(details, room - rest_cells - META_GAP) or _meta(details[:1], room * 2 // 3)
    space = room - (cell_len(meta) + META_GAP if meta else 0)
    end, ellipsis = len(plain), ""
    if rest_cells > space:
        end, ellipsis = rest + _fit(plain[rest:], space - 1), "…"
    return _row(title, [(marker, 0, cut, "", ""), (INDENT, rest, end, ellipsis, meta)], width)


def _row(title: Content, lines: list[tuple[str, int, int, str, str]], width: int) -> Content:
    """Lines of (lead, title[start:end], an ellipsis, meta right-aligned) as one Content."""
    text: list[str] = []
    spans: list[Span] = []
    at = 0
    for index, (lead, start, end, ellipsis, meta) in enumerate(lines):
        if index:
            text.append("\n")
            at += 1
        shown = title.plain[start:end] + ellipsis
        text += [lead, shown]
        if not index and lead.strip():
            spans.append(Span(at, at + len(lead), "bold"))  # the marker of the open one
        at += len(lead)
        spans += [Span(max(span.start, start) - start + at, min(span.end, end) - start + at,
                       span.style)
                  for span in title.spans if span.start < end and span.end > start]
        at += len(shown)
        if meta:
            gap = " " * (width - cell_len(lead) - cell_len(shown) - cell_len(meta))
            text += [gap, meta]
            spans.append(Span(at + len(gap), at + len(gap) + len(meta), "dim"))
            at += len(gap) + len(meta)
    return Content("".join(text), spans, strip_control_codes=False)


def _fit(text: str, room: int, *, at_space: bool = False) -> int:
    """How many characters of `text` fit in `room` cells (`at_space`: up to the last space
    among them, when there is one), never parting a mark or joiner from what it follows."""
    cells = fit = 0
    for index, char in enumerate(text):
        cells += get_character_cell_size(char)
        if cells > room:
            break
        fit = index + 1
    if at_space and fit < len(text):
        space = text.rfind(" ", 0, fit + 1)
        if space > 0:
            return space
    while 0 < fit < len(text) and (text[fit] in _JOINERS or text[fit - 1] in _JOINERS
                                   or unicodedata.category(text[fit]).startswith("M")):
        fit -= 1
    return fit


def _meta(details: tuple[str, ...], room: int) -> str:
    """The most of `details` (in order) that fits in `room` cells; "" if not even the first."""
    for count in range(len(details), 0, -1):
        meta = " · ".join(details[:count])
        if cell_len(meta) <= room:
            return meta
    return ""


class ConversationList(Vertical):
    """Saved conversations. Give it the store; call `reload()` after the store changes."""

    DEFAULT_CSS = """
    ConversationList {
        width: 36;
        height: 1fr;
        background: $surface;
        border-right: vkey $primary 30%;
    }
    ConversationList > #conversation-filter {
        margin: 0 0 1 0;
    }
    ConversationList > #conversations {
        height: 1fr;
        border: none;
        background: $surface;
    }
    ConversationList > #conversation-status {
        height: auto;
        color: $text-muted;
        padding: 0 1;
    }
    """
    BINDING_GROUP_TITLE = "Conversations"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Search", id="sidebar.search"),
        Binding("down", "focus_list", "To the list", show=False, id="sidebar.to_list"),
        Binding("n", "new", "New", id="sidebar.new"),
        Binding("r", "rename", "Rename", id="sidebar.rename"),
        Binding("delete,d", "delete", "Delete", id="sidebar.delete"),
        Binding("e", "export", "Export Markdown", id="sidebar.export"),
    ]

    class ConversationChosen(Message):
        """The user opened a conversation (from a search hit: also the message that matched)."""

        def __init__(self, conversation_id: str, message_id: str | None = None) -> None:
            super().__init__()
            self.conversation_id = conversation_id
            self.message_id = message_id

    class NewConversationRequested(Message):
        """The user asked for a new, empty conversation."""

    class RenameRequested(Message):
        """The user asked to rename a conversation (the screen asks for the title)."""

        def __init__(self, conversation_id: str, title: str) -> None:
            super().__init__()
            self.conversation_id = conversation_id
            self.title = title

    class DeleteRequested(Message):
        """The user asked to delete a conversation (the screen asks first)."""

        def __init__(self, conversation_id: str, title: str) -> None:
            super().__init__()
            self.conversation_id = conversation_id
            self.title = title

    class ExportRequested(Message):
        """The user asked to export a conversation (the screen asks where)."""

        def __init__(self, conversation_id: str, title: str) -> None:
            super().__init__()
            self.conversation_id = conversation_id
            self.title = title

    def __init__(self, store: Store, *, active: Callable[[], str | None] = lambda: None,
                 local_time: Callable[[datetime], datetime] | None = None,
                 id: str | None = "sidebar", classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.store = store
        self._active = active
        self._local_time = local_time or (lambda moment: moment.astimezone())
        self.now: Callable[[], datetime] = lambda: datetime.now(UTC)
        """The clock that says which rows are today's (a test sets its own)."""
        self._today: date | None = None
        self._summaries: list[ConversationSummary] = []
        self._loaded_ids: set[str] = set()
        self._counts: dict[str, int] = {}
        """The message counts of the rows drawn since the list was read (read as drawn:
        counting every loaded conversation would be most of the read)."""
        self._hits: dict[str, SearchHit] = {}
        """The newest matching message of each of the newest conversations the search found."""
        self._matching: frozenset[str] = frozenset()
        """Every conversation the full-text search found (the count is theirs)."""
        self._all_matching = True
        """False: the search stopped counting (store_search.COUNT_LIMIT); there are more."""
        self._searched = ""

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Search titles and messages…", id="conversation-filter")
        yield OptionList(id="conversations", markup=False)
        yield Static("", id="conversation-status", markup=False)

    def on_mount(self) -> None:
        self.reload()

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#conversations", OptionList)

    @property
    def filter_text(self) -> str:
        return self.query_one("#conversation-filter", Input).value

    # -- drawing ------------------------------------------------------------------------

    def reload(self) -> None:
        """Read the list from the store again (after a reply, a new conversation…)."""
        self._counts = {}
        try:
            self._summaries = self.store.list_conversations(limit=LIST_LIMIT, counted=False)
            self._loaded_ids = {summary.id for summary in self._summaries}
        except TuiChatError as error:
            self._summaries = []
            self._status(error.message)
        if self.filter_text.strip():
            self._start_search(self.filter_text, delay=0)
        else:
            self._hits, self._matching, self._all_matching = {}, frozenset(), True
            self._draw()

    @property
    def active_id(self) -> str | None:
        """The conversation on screen, asked of its owner each time (no copy to go stale)."""
        return self._active()

    def refresh_active(self) -> None:
        """The conversation on screen changed: mark it."""
        self._draw()

    def _draw(self) -> None:
        terms = self.filter_text.casefold().split()
        drawn: list[tuple[ConversationSummary, list[tuple[int, int]]]] = []
        matched = 0
        for summary in self._summaries:
            spans = find_terms(summary.title, terms) if terms else []
            if spans is None and summary.id not in self._matching:
                continue
            matched += 1
            if len(drawn) < MAX_SHOWN:  # every drawn row costs at each keystroke
                drawn.append((summary, spans or []))
        self._count([summary.id for summary, _spans in drawn])
        self._today = self._local_time(self.now()).date()
        options = [Option(self._prompt(summary, spans, self._hits.get(summary.id)),
                          id=summary.id) for summary, spans in drawn]
        shown = {summary.id for summary, _spans in drawn}
        # Beyond the loaded list: counted all, drawn where the search brought their hit.
        matched += len(self._matching - self._loaded_ids)
        for conversation_id, hit in self._hits.items():
            if (conversation_id not in shown and conversation_id not in self._loaded_ids
                    and len(options) < MAX_SHOWN):
                options.append(Option(self._hit_prompt(hit), id=conversation_id))
        listing = self.option_list
        previous = listing.highlighted_option
        listing.set_options(options)
        ids = [option.id for option in options]
        keep = previous.id if previous is not None else self.active_id
        listing.highlighted = ids.index(keep) if keep in ids else (0 if ids else None)
        self._status(self._count_line(matched, len(options), bool(terms)))

    def _count(self, conversation_ids: list[str]) -> None:
        """Read the message counts of those of `conversation_ids` not yet counted."""
        missing = [cid for cid in conversation_ids if cid not in self._counts]
        # A detail of the row: when the store fails, drawn without it (read at the next draw).
        with contextlib.suppress(TuiChatError):
            self._counts.update(self.store.message_counts(missing) if missing else {})

    def _count_line(self, count: int, drawn: int, filtered: bool) -> str:
        more = f"; the newest {drawn} shown, search for the others" if drawn < count else ""
        if not filtered:
            if count == 0:
                return "No saved conversations yet."
            return ("1 conversation" if count == 1 else f"{count} conversations") + more
        if count == 0:
            return "Nothing matches."
        return f"{count} matching{more}" if self._all_matching else f"Over {count} matching{more}"

    def _prompt(self, summary: ConversationSummary, spans: list[tuple[int, int]],
                hit: SearchHit | None) -> Content:
        count = self._counts.get(summary.id, summary.message_count)
        when = self._local_time(summary.updated)
        first = when.strftime("%H:%M" if when.date() == self._today else "%b %d")
        if count is not None:  # with the date, always: the two that are always shown
            first += " · " + ("1 msg" if count == 1 else f"{count} msgs")
        details = [first]
        if summary.model:
            details.append(one_line(summary.model.rsplit("/", 1)[-1], 30))
        title = highlighted_content(summary.title, spans, style="bold", limit=TITLE_CHARS)
        marker = "● " if summary.id == self.active_id else INDENT
        row = title_lines(marker, title, tuple(details), self._line_width())
        return row if hit is None else Content.assemble(row, "\n", INDENT, self._snippet(hit))

    def _snippet(self, hit: SearchHit) -> Content:
        width = self._line_width() - len(INDENT)
        text, spans = around_first_match(hit.snippet, hit.spans, width)
        return highlighted_content(text, spans, style="italic", limit=200).truncate(
            width, ellipsis=True)

    def _line_width(self) -> int:
        """Cells that fit on one row of the list (options wrap otherwise)."""
        width = self.option_list.scrollable_content_region.width
        return max(12, (width or 34) - 1)

    def on_resize(self) -> None:
        self._draw()

    def _hit_prompt(self, hit: SearchHit) -> Content:
        title = highlighted_content(hit.title, [], style="bold", limit=TITLE_CHARS)
        row = title_lines(INDENT, title, (), self._line_width())
        return Content.assemble(row, "\n", INDENT, self._snippet(hit))

    def _status(self, text: str) -> None:
        self.query_one("#conversation-status", Static).update(Text(one_line(text, 300)))

    # -- filtering ------------------------------------------------------------------------

    @on(Input.Changed, "#conversation-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._hits, self._matching, self._all_matching = {}, frozenset(), True
        self._draw()  # titles filter at once; full text follows
        if event.value.strip():
            self._start_search(event.value, delay=SEARCH_DELAY)

    @on(Input.Submitted, "#conversation-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.option_list.focus()

    def _start_search(self, query: str, delay: float) -> None:
        self._searched = ""
        self._search(query, delay)

    @work(exclusive=True, group="sidebar-search", exit_on_error=False)
    async def _search(self, query: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        try:
            found = await asyncio.to_thread(self.store.search_conversations, query, MAX_SHOWN)
        except TuiChatError as error:
            self._status(error.message)
            return
        if query != self.filter_text:
            return  # typing went on; a newer search follows
        self._hits = {hit.conversation_id: hit for hit in found.hits}
        self._matching = found.conversation_ids
        self._all_matching = found.complete
        self._searched = query
        self._draw()

    @property
    def search_done(self) -> bool:
        """True once the full-text search for the current filter has been drawn."""
        return not self.filter_text.strip() or self._searched == self.filter_text

    # -- actions --------------------------------------------------------------------------

    def _highlighted_id(self) -> str | None:
        option = self.option_list.highlighted_option
        return option.id if option is not None else None

    def _title_of(self, conversation_id: str) -> str:
        for summary in self._summaries:
            if summary.id == conversation_id:
                return summary.title
        hit = self._hits.get(conversation_id)
        return hit.title if hit else conversation_id[:8]

    @on(OptionList.OptionSelected, "#conversations")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is None:
            return
        hit = self._hits.get(event.option.id)
        self.post_message(self.ConversationChosen(event.option.id,
                                                  hit.message_id if hit else None))

    def action_focus_list(self) -> None:
        self.option_list.focus()

    def action_focus_filter(self) -> None:
        self.query_one("#conversation-filter", Input).focus()

    def action_new(self) -> None:
        self.post_message(self.NewConversationRequested())

    def action_rename(self) -> None:
        self._request(self.RenameRequested)

    def action_delete(self) -> None:
        self._request(self.DeleteRequested)

    def action_export(self) -> None:
        self._request(self.ExportRequested)

    def _request(self, kind: Callable[[str, str], Message]) -> None:
        conversation_id = self._highlighted_id()
        if conversation_id is not None:
            self.post_message(kind(conversation_id, self._title_of(conversation_id)))

    def forget(self, conversation_id: str) -> None:
        """`conversation_id` was deleted: list the others."""
        self.reload()
