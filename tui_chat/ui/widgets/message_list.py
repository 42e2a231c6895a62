"""The scrolling list of messages: a window of the conversation, mounted lazily.

Only the newest PAGE messages are mounted when a conversation opens; older pages are mounted
when the view reaches the top (Home jumps to the first page, End back to the last). While the
view follows the end, the oldest pages go again once more than KEEP_MOUNTED are mounted, so a
conversation held on screen all day holds a window, not every message's view. A short
conversation is drawn from the top; once it fills the view, the view follows its end. Each
finished message is one `MessageView`; the reply in progress is one `ReplyView`.
The list is focusable: it then selects a message for the keyboard actions below (and those
on branches: message_branch_keys). A message with siblings shows its place among them
(`positions`, from the store); `show_branch` redraws from a branch point down.

A long conversation is read newest first: `load(newest, above=...)` shows the newest messages
at once and reads the rest of the path (`above`, in a thread) after the first frame with them
is laid out, or as soon as something needs it. Until then `messages` holds the newest part
only and `reading` is True; what needs the whole path (Home, moving the selection above the
first message read, revealing a message not read yet; the screen's sends, regenerations and
branch keys) waits for it with `whole_path()`. Once read, the older messages go in front of
`messages` (the same objects stay for the newest), the window's indices move with them, and
`path_read` (the screen's) is called with the whole path before any waiter goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Offset, Size
from textual.layouts.stream import StreamLayout
from textual.message import Message as TextualMessage
from textual.reactive import reactive
from textual.widget import Widget
from textual.worker import Worker

from tui_chat.core.errors import TuiChatError
from tui_chat.core.models import AttachmentInfo, Message, Role
from tui_chat.core.tool_turns import call_arguments
from tui_chat.ui import textual_compat
from tui_chat.ui.colour_roles import code_theme_for
from tui_chat.ui.widgets.code_blocks import code_blocks
from tui_chat.ui.widgets.line_cache import forget_painted
from tui_chat.ui.widgets.message_branch_keys import BRANCH_BINDINGS, BranchKeys
from tui_chat.ui.widgets.message_view import (
    LINES,
    MessageView,
    Position,
    ProviderLabels,
    links_in,
)
from tui_chat.ui.widgets.summary_row import ROW_ACTIONS, SummaryPlace
from tui_chat.ui.widgets.tool_files import nothing_to_open, tool_targets
from tui_chat.ui.widgets.view_drawing import draw_views, drawn_before

if TYPE_CHECKING:  # imported with the first reply: Markdown is not on the start-up path
    from tui_chat.ui.widgets.prompt_input import ScrollTo
    from tui_chat.ui.widgets.reply_view import ReplyView

PAGE = 20
"""Messages mounted per page."""
KEEP_MOUNTED = 3 * PAGE
"""Messages kept mounted at least while the view follows the end; a page more and the oldest
pages are unmounted (`_trim_above`), mounted again when scrolled back to (as a conversation
opened long): one conversation held on screen all day grew by each message's view, about
65 KB a message (benchmarks/bench_ui_soak.py)."""
NEWEST = 2 * PAGE
"""Messages of a long path read before its first frame (the rest after: `load`'s `above`):
the newest page, and one more for a view that page does not fill."""
_LAYOUT_WAITS = 20
"""Refreshes to wait for the layout that measures a page mounted above (it comes in the next
one or two; the bound only keeps a page of no height from waiting for ever)."""

_DRAWN_AT_ONCE = 4
"""Views below a branch point drawn per trip to the worker thread (usually enough to fill
the view)."""

PositionsOf = Callable[[Sequence[Message]], Mapping[str, Position]]
"""Where each message stands among its siblings (the store's `positions`, for a page)."""
ReadAbove = Callable[[], list[Message]]
"""Reads the path above the messages loaded, oldest first (blocking: run in a thread)."""
READ_ABOVE_AFTER = 0.25
"""Seconds after a load by which the rest of the path is read even if no layout came (the
screen not current): normally its first layout starts it."""


class MessageList(BranchKeys, VerticalScroll, can_focus=True):
    """Messages of one conversation; follows the stream unless the user scrolls up."""

    DEFAULT_CSS = """
    MessageList {
        layout: stream;
        height: 1fr;
        /* The scrollbar's column is kept when it does not show, in place of the padding
           on the right: the text's width does not change when the list starts to
           overflow (every row on screen was drawn again, the live reply's on the event
           loop in the middle of a layout: the slowest frame of a long reply). */
        padding: 0 0 0 1;
        scrollbar-size-vertical: 1;
        scrollbar-gutter: stable;
    }
    MessageList:focus { background-tint: $foreground 3%; }
    MessageList > #empty { color: $text-muted; padding: 1 2; }
    """

    BINDINGS = [
        Binding("up,k", "select(-1)", "Previous", id="messages.previous", show=False),
        Binding("down,j", "select(1)", "Next", id="messages.next", show=False),
        Binding("c", "copy_message", "Copy", id="messages.copy",
                tooltip="Copy the message, or the text selected with the mouse"),
        Binding("y", "copy_code", "Copy code", id="messages.copy_code",
                tooltip="Copy the last code block; a number typed right after copies block [n]"),
        Binding("e", "edit", "Edit & resend", id="messages.edit",
                tooltip="Edit a message of yours and resend from it"),
        # The same key on the summary row, under the name of what it does there (the footer
        # shows the first binding of a key that is not disabled: check_action).
        Binding("e", "edit_summary", "Edit summary", id="messages.edit_summary",
                tooltip="Edit the summary sent in place of earlier turns (Enter saves it)"),
        Binding("r", "regenerate(False)", "Regenerate", id="messages.regenerate"),
        Binding("m", "regenerate(True)", "Regenerate with…", id="messages.regenerate_with"),
        Binding("g", "continue_reply", "Continue", id="messages.continue_reply"),
        Binding("t,enter", "toggle_thinking", "Unfold", id="messages.toggle_thinking",
                tooltip="Unfold or fold the selected message's thinking, tool calls or "
                        "tool result, or the summary sent in place of earlier turns"),
        # The same keys once unfolded, under the name of what they do then (check_action).
        Binding("t,enter", "fold", "Fold", id="messages.fold",
                tooltip="Fold the selected message's thinking, tool calls or tool result, "
                        "or the summary, again"),
        Binding("o", "open_link", "Open link", id="messages.open_link",
                tooltip="Open a link of the selected message, or an image or link of a tool's "
                        "result (asks first)"),
        *BRANCH_BINDINGS,
        Binding("escape", "leave", "Back to prompt", id="messages.leave"),
        Binding("home", "first", "First", id="messages.first", show=False),
        Binding("end", "last", "Last", id="messages.last", show=False),
    ]

    FOOTER_ACTIONS = (*BranchKeys.FOOTER_ACTIONS, "fold")

    selected: reactive[int | None] = reactive(None, init=False)
    """Index (in the whole conversation) of the selected message, when the list has focus."""

    class EditRequested(TextualMessage):
        """The user asked to edit a user message and resend from there, or to edit the
        summary in force (`summary_row`)."""

        def __init__(self, message: Message) -> None:
            super().__init__()
            self.message = message

    class RegenerateRequested(TextualMessage):
        """The user asked for a reply again (`reply`, the selected one, or the one answering
        the selected message of theirs; None: the last), maybe choosing another model first."""

        def __init__(self, choose_model: bool, reply: Message | None = None) -> None:
            super().__init__()
            self.choose_model = choose_model
            self.reply = reply

    class ContinueRequested(TextualMessage):
        """The user asked to continue the selected reply where it ends, as a new branch."""

        def __init__(self, reply: Message) -> None:
            super().__init__()
            self.reply = reply

    class LinkRequested(TextualMessage):
        """The user asked to open a link written in a message (to be confirmed)."""

        def __init__(self, url: str) -> None:
            super().__init__()
            self.url = url

    class FileRequested(TextualMessage):
        """The user asked to open a file of a message (a tool's image; to be confirmed)."""

        def __init__(self, message: Message, file: AttachmentInfo) -> None:
            super().__init__()
            self.message, self.file = message, file

    class LeaveRequested(TextualMessage):
        """The user pressed Esc in the list: focus goes back to the prompt."""

    def __init__(self, *, code_theme: str | None = None, id: str | None = None,
                 positions: PositionsOf | None = None, reading_width: int = 0,
                 path_read: Callable[[Sequence[Message]], None] | None = None) -> None:
        super().__init__(id=id)
        self._code_theme = code_theme
        self.reading_width = reading_width
        """Widest line of message text, in cells; 0: the whole width (see reading_column)."""
        self._positions_of = positions
        self._path_read = path_read
        self.messages: list[Message] = []
        self._above: ReadAbove | None = None  # the rest of the path, while not read yet
        self._reader: Worker[None] | None = None
        self._read = asyncio.Event()  # set once the path of the current load is whole
        self._read.set()
        self._lo = 0  # window of mounted messages: [lo, hi)
        self._hi = 0
        self._loading = False
        self._link_key = ""
        self._link_step = 0
        self._code_pick: list[str] | None = None  # after the copy-code key: its message's blocks
        self._code_typed = ""  # the digits of a block number typed so far
        self._scroll_to_selected = True
        self.reply: ReplyView | None = None
        self._out_of_context: set[str] = set()
        self.summary_place = SummaryPlace(self, self._views)
        """The summary in force, shown after the last message it covers (summary_row)."""
        self.labels: ProviderLabels = {}
        """Providers' display names for the messages' headers (the screen sets them)."""

    def _forget_placements(self) -> None:
        """Call after removing children. Textual (8.2) keeps a container's last arrangements
        (the widget's arrangement cache, four of them, and the stream layout's placements,
        which it is not asked to replace while the list is empty): after Ctrl+N or opening
        an empty conversation they held the views of the conversation left, and the
        messages those hold, until the next message. Emptied, drop them."""
        if self.children:
            return
        textual_compat.clear_arrangement_cache(self)
        layout = self.styles.layout
        if isinstance(layout, StreamLayout):
            textual_compat.forget_stream_placements(layout)

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        """Only what the list holds grew (the live reply, several times a second): Textual
        sets the new virtual size as a reactive that lays the whole screen out again and
        repaints the list, one frame after the layout that measured it. Set it without
        that second layout (the scrollbar is still updated; a scrollbar that appears or
        goes lays out again by itself), and without a second frame for the scrollbar."""
        in_layout = layout  # the screen's full layout; its frame paints the list's region
        grown = virtual_size != self.virtual_size
        if (size == textual_compat.laid_out_size(self)
                and container_size == textual_compat.laid_out_container_size(self)
                and virtual_size.width == self.virtual_size.width):
            layout = False
        resized = super()._size_updated(size, virtual_size, container_size, layout)
        bar = textual_compat.vertical_scrollbar(self)
        if in_layout and grown and bar is not None:
            # The scrollbar took its new size and position above, before this layout's frame,
            # which repaints the whole region of the list (its virtual size changed), the bar
            # included: its own refresh would paint it once more in a frame of its own.
            textual_compat.skip_scrollbar_repaint(bar)
        return resized

    # --- content -------------------------------------------------------------------------

    async def load(self, messages: Sequence[Message], *, above: ReadAbove | None = None
                   ) -> None:
        """Show a conversation: its newest page at once, older pages on demand. `above`:
        `messages` are the newest part of the path, and this reads the rest (see the
        module's doc)."""
        self._stop_reading()
        self.messages = list(messages)
        self.selected = None
        self.summary_place.summary = None  # another conversation's (its own: set_summary)
        # Only pages of the conversation shown can be mounted again: drop the drawn lines
        # of any other (after a day of Ctrl+N, every long reply of it was still there).
        LINES.keep_only(self.messages[0].conversation_id if self.messages else None)
        await self._mount_window(max(0, len(self.messages) - PAGE), len(self.messages))
        self.anchor()
        self.call_after_refresh(self._fill_viewport)
        if above is not None and self.messages:
            self._above = above
            self._read = asyncio.Event()
            self.set_timer(READ_ABOVE_AFTER, self._read_above)

    # --- the rest of a path read newest first ------------------------------------------

    @property
    def reading(self) -> bool:
        """Only the newest part of the path is loaded; the rest is still to be read."""
        return self._above is not None

    async def whole_path(self) -> bool:
        """Wait until `messages` is the whole path (at once when it is). False: another
        conversation (or none) was loaded meanwhile."""
        if self._above is None:
            return True
        done, loaded = self._read, self.messages
        self._read_above()
        await done.wait()
        return self.messages is loaded and self._above is None

    def _laid_out(self, _screen: object) -> None:
        """A layout was drawn (the screen's signal, published right after the frame): the
        newest messages are on screen, the rest of the path can be read."""
        if self._above is not None and self._reader is None:
            self.call_later(self._read_above)

    def _read_above(self) -> None:
        if self._above is not None and self._reader is None:
            self._reader = self.run_worker(self._read_rest(self._above), group="path-read",
                                           exit_on_error=False)

    async def _read_rest(self, above: ReadAbove) -> None:
        done, loaded = self._read, self.messages
        try:
            try:
                older = await asyncio.to_thread(above)
            except TuiChatError:
                older = []  # the store failed (the conversation went?): the newest part stays
            if self.messages is loaded and self._read is done:
                self._above = self._reader = None
                self._extend_above(older)
        finally:
            done.set()  # cancelled too (another load, or the list left): nobody waits for ever

    def _extend_above(self, older: list[Message]) -> None:
        """The older part of the path goes in front; what is mounted stays as it is."""
        shift = len(older)
        self.messages[:0] = older
        self._lo += shift
        self._hi += shift
        if self.selected is not None:
            self.set_reactive(MessageList.selected, self.selected + shift)
        if self._path_read is not None:
            self._path_read(self.messages)
        if self._lo > 0:
            self.run_worker(self._draw_first_page(self.messages), group="draw-ahead",
                            exclusive=True, exit_on_error=False)
        if shift and not self._loading:
            if self.scroll_y <= 1 and self.max_scroll_y > 1:
                self._loading = True  # at the top of the newest part: older pages follow
                self.call_after_refresh(self._mount_older)
            else:
                self._fill_viewport()

    async def _draw_first_page(self, loaded: list[Message]) -> None:
        """Draw Home's page ahead, in a thread (LINES keeps the lines): the first Home after
        an open then mounts it without drawing its Markdown on the event loop."""
        if self.messages is not loaded or self._lo == 0:
            return  # another path, or the first page is mounted already
        # draw_views: one trip to a thread for the page, not one a view.
        await draw_views(self.app, self._views_for(self.messages[:PAGE]),
                         self.scrollable_content_region.width - self._gutter())

    def _stop_reading(self) -> None:
        """Another load: a read still running is for a path no longer shown."""
        if self._reader is not None:
            self._reader.cancel()
        self._above = self._reader = None
        self._read.set()  # waiters go on, and find another path

    async def _mount_window(self, lo: int, hi: int) -> None:
        with self.app.batch_update():
            await self.remove_children()
            self._forget_placements()
            self.reply = None
            self._lo, self._hi = lo, hi
            await self.mount_all(self._views_for(self.messages[lo:hi]))
            self.summary_place.place()

    @property
    def code_theme(self) -> str:
        """Code block colours: a Pygments style if given, else built from the app's theme."""
        if self._code_theme:
            return self._code_theme
        return code_theme_for(self.app.current_theme)

    def _view(self, message: Message) -> MessageView:
        view = self._views_for([message])[0]
        return view

    def _views_for(self, messages: Sequence[Message]) -> list[MessageView]:
        """Views of `messages`, each knowing its place among its siblings (one look-up) and
        whether it is out of the context."""
        positions = self._positions_of(messages) if self._positions_of and messages else {}
        tail = self.messages[-1].id if self.messages else None
        answered = calls_answered(self.messages, messages)
        arguments = self._arguments_for(messages)
        views = [MessageView(m, code_theme=self.code_theme, position=positions.get(m.id),
                             labels=self.labels, reading_width=self.reading_width or None,
                             last=m.id == tail, calls_run=m.id in answered,
                             arguments=arguments.get(m.id))
                 for m in messages]
        for view in views:
            view.set_out_of_context(view.message.id in self._out_of_context)
        return views

    def _arguments_for(self, messages: Sequence[Message]) -> dict[str, str]:
        """The arguments of the calls the tool messages among `messages` answer, from the
        replies shown (tool_turns.call_arguments), by tool message id."""
        if not any(m.role is Role.TOOL for m in messages):
            return {}
        known = {m.id for m in self.messages}
        return call_arguments([*self.messages, *(m for m in messages if m.id not in known)])

    def set_context_from(self, message_id: str | None) -> None:
        """Mark the messages before `message_id` (when it is shown) as out of the context, and
        `message_id` itself when it is a reply (a reply is sent only after its prompt)."""
        ids = [m.id for m in self.messages]
        out: set[str] = set()
        if message_id in ids:
            at = ids.index(message_id)
            out = set(ids[:at + (self.messages[at].role is Role.ASSISTANT)])
        if out == self._out_of_context:
            return
        self._out_of_context = out
        for view in self._views():
            view.set_out_of_context(view.message.id in out)

    def set_summary(self, summary: Message | None) -> None:
        """Show `summary` (the one in force; None: none is) after the last message it
        covers (see summary_row)."""
        ids = [m.id for m in self.messages]
        covered = ids.index(summary.parent_id) + 1 if summary and summary.parent_id in ids else 0
        self.summary_place.set(summary if covered else None, covered,
                               code_theme=self.code_theme,
                               reading_width=self.reading_width or None)

    def _views(self) -> list[MessageView]:
        return [child for child in self.children if isinstance(child, MessageView)]

    async def add_message(self, message: Message) -> None:
        """Append a finished message (the user's prompt, usually) and follow it."""
        self._followed(message)
        self.messages.append(message)
        if self._hi < len(self.messages) - 1:
            await self._mount_window(max(0, len(self.messages) - PAGE), len(self.messages))
        else:
            self._hi = len(self.messages)
            await self.mount(self._view(message), before=self.reply)
        self.anchor()

    def _followed(self, following: Message | None = None) -> None:
        """A message is about to follow the last one: its view is the last no more (and a
        tool message answers its calls)."""
        view = self._view_at(len(self.messages) - 1) if self.messages else None
        if view is not None:
            view.set_last(False)
            if following is not None and following.role is Role.TOOL:
                view.set_calls_run(True)

    async def start_reply(self, message: Message) -> ReplyView:
        """Mount the live view of a reply that is about to stream."""
        from tui_chat.ui.widgets.reply_view import ReplyView

        positions = self._positions_of([message]) if self._positions_of else {}
        self.reply = ReplyView(message, code_theme=self.code_theme,
                               position=positions.get(message.id), labels=self.labels,
                               reading_width=self.reading_width or None)
        await self.mount(self.reply)
        self.anchor()
        return self.reply

    async def finish_reply(self, message: Message | None) -> None:
        """Swap the live reply for its one-widget finished form (None: just drop it)."""
        reply, self.reply = self.reply, None
        if reply is None:
            return
        await reply.finish()
        if message is not None:
            self._followed()
            self.messages.append(message)
            self._hi = len(self.messages)
            view = self._view(message)
            # The width the finished view is drawn at in the list (prepared at another, it
            # would be drawn again on the event loop). The scrollbar's column is kept
            # whether it shows or not (scrollbar-gutter: stable), so it is the live view's.
            width = self._drawing_width()
            lines = (await asyncio.to_thread(reply.finished_lines, message, width,
                                             view.position)
                     if reply.reading_width == view.reading_width else None)  # else: changed
            if lines is not None:
                view.cached.adopt(lines, width)
            else:
                await view.prepare(self.app, width)
            with self.app.batch_update():
                await self.mount(view, before=reply)
                await reply.remove()
            self.call_after_refresh(self._forget_painted_far_above)  # where the view is now
            await self._trim_above()
            if self.has_focus and self.selected is None:
                # Written again from message mode (r, m): the new reply is the one to act
                # on next (← and → to its alternatives), as the old one was. Not scrolled
                # to: the eye is on its end, where the view followed it.
                self._scroll_to_selected = False
                try:
                    self.selected = len(self.messages) - 1
                finally:
                    self._scroll_to_selected = True
        else:
            await reply.remove()
            self._forget_placements()

    async def _trim_above(self) -> None:
        """While the view follows the end, unmount the oldest mounted messages down to
        KEEP_MOUNTED (whole pages, so that it happens once in a while): nothing of them is
        in view, and they are mounted again when scrolled back to (watch_scroll_y), Home or
        a selection reaching them. Not while a page is being mounted, nor when the
        selection is among them."""
        excess = self._hi - self._lo - KEEP_MOUNTED
        if (excess < PAGE or self._loading or not textual_compat.follows_end(self)
                or (self.selected is not None and self.selected < self._lo + excess)):
            return
        excess -= excess % PAGE
        gone = self._views()[:excess]
        self._lo += len(gone)
        await self.remove_children(gone)
        self.summary_place.place()

    def _forget_painted_far_above(self) -> None:
        """Views a page or more above the part shown let go of the rows Textual painted for
        them (painted again if scrolled back): every mounted view kept them, so one long
        conversation held on screen grew by a copy of each message's rows
        (benchmarks/bench_ui_soak.py, one conversation; tests/ui/test_soak_bounds.py)."""
        top = self.scroll_y - self.size.height
        for view in self._views():
            if view.virtual_region.bottom >= top:
                break
            forget_painted(view)

    def _gutter(self) -> int:
        """A message view's border and padding, in cells."""
        views = self._views()
        return views[-1].styles.gutter.width if views else 3

    async def truncate(self, count: int) -> None:
        """Keep only the first `count` messages (the active path changed below them)."""
        self.messages = self.messages[:count]
        self.selected = None
        await self._mount_window(max(0, count - PAGE), count)
        self.anchor()

    async def show_branch(self, keep: int, below: Sequence[Message]) -> None:
        """The active path changed below its first `keep` messages: show `below` after them.
        Only the views from the branch point down change: the views mounted there show the
        new messages (`_replace_views`), drawn first off the event loop; at once those that
        fill the view and those drawn before, the rest of the window after that frame. The
        selection stays where it was (on the alternative now shown)."""
        self.messages = [*self.messages[:keep], *below]
        total = len(self.messages)
        # The window keeps its top and its size: the branch point stays where the eye is.
        hi = min(total, self._lo + max(PAGE, self._hi - self._lo))
        if not self._lo <= keep <= self._hi:
            lo = max(0, min(keep, total - PAGE))
            await self._mount_window(lo, min(total, lo + PAGE))
        else:
            paging, self._loading = self._loading, True  # no page mounted by a scroll meanwhile
            try:
                views = await self._views_filling(self.messages[keep:hi])
                for index, view in enumerate(views, keep):  # styled once, when mounted
                    view.set_class(index == self.selected, "-selected", update=False)
                with self.app.batch_update():
                    await self._replace_views(keep - self._lo, views)
                    self._hi = keep + len(views)
            finally:
                self._loading = paging
            if self._hi < hi:
                self.call_after_refresh(self._mount_rest, (self.messages, self._lo, self._hi),
                                        hi)
        if self.selected is not None and self.selected >= total:
            self.selected = total - 1 if total else None
        self.watch_selected(None, self.selected)
        self.summary_place.place()

    async def _replace_views(self, start: int, views: list[MessageView]) -> None:
        """Show `views` in place of the mounted views from `start` on. The views there show
        the new messages instead (no widget removed and another mounted: each costs its
        styles, its task and a layout); the rest are mounted, or removed."""
        mounted = self._views()[start:]
        reused = mounted[:len(views)]
        if any(view in self.screen.selections for view in reused):
            self.screen.clear_selection()  # the text selected is gone from the screen
        for view, new in zip(reused, views, strict=False):
            view.take(new)
            view.set_class(new.has_class("-selected"), "-selected")
        if len(mounted) > len(views):
            await self.remove_children(mounted[len(views):])
            self._forget_placements()
        elif len(views) > len(mounted):
            await self.mount_all(views[len(mounted):], before=self.reply)

    async def _views_filling(self, messages: Sequence[Message]) -> list[MessageView]:
        """Views of the first of `messages` to show at once: those that fill the list's
        height (at least one), drawn for the width they will be shown at (off the event loop
        unless drawn before), then those after them drawn before (LINES). The rest follow
        the frame (`_mount_rest`)."""
        height = self.scrollable_content_region.height
        width = self._drawing_width()
        views = self._views_for(messages)
        shown = rows = 0
        while shown < len(views) and (rows < height or not shown):
            batch = views[shown:shown + _DRAWN_AT_ONCE]
            await draw_views(self.app, batch, width)
            for view in batch:
                shown += 1
                rows += len(view.cached.lines) + 1  # and its margin
                if rows >= height:
                    break
        while shown < len(views) and drawn_before(views[shown], width):
            await draw_views(self.app, views[shown:shown + 1], width)  # at once, from LINES
            shown += 1
        return views[:shown]

    async def _mount_rest(self, window: tuple[list[Message], int, int], hi: int) -> None:
        """Mount the rest of the window below a branch just shown (see show_branch), unless
        the list changed meanwhile (another branch, a page, a message added)."""
        def unchanged() -> bool:
            return (window[0] is self.messages and (window[1], window[2]) == (self._lo, self._hi)
                    and not self._loading and self.is_mounted)

        if not unchanged():
            return
        views = self._views_for(self.messages[self._hi:hi])
        await draw_views(self.app, views, self._drawing_width())
        if not unchanged():
            return
        self._loading = True
        try:
            mounting = self.mount_all(views, before=self.reply)  # children now, mounted later
            self._hi = hi  # at once: a switch while they mount sees the window as it is
            await mounting
            self.summary_place.place()
        finally:
            self._loading = False

    def _drawing_width(self) -> int:
        """The content width a message view is drawn at in the list as it is now."""
        return self.scrollable_content_region.width - self._gutter()

    async def reveal(self, message_id: str) -> None:
        """Mount the page holding `message_id`, select it and scroll it into view."""
        index = next((i for i, m in enumerate(self.messages) if m.id == message_id), None)
        if index is None and self.reading and await self.whole_path():
            index = next((i for i, m in enumerate(self.messages) if m.id == message_id), None)
        if index is None:
            return
        if not self._lo <= index < self._hi:
            lo = max(0, min(index - PAGE // 2, len(self.messages) - PAGE))
            await self._mount_window(lo, min(len(self.messages), lo + PAGE))
        self.selected = index
        view = self._view_at(index)
        if view is not None:
            self.call_after_refresh(self.scroll_to_widget, view, animate=False, top=True)

    def show_from_top(self, message_id: str) -> None:
        """Stop following the end and scroll `message_id`'s top into view (a compared reply
        just chosen: its end was seen as it streamed)."""
        view = next((v for v in self._views() if v.message.id == message_id), None)
        if view is None:
            return
        self.release_anchor()
        self.call_after_refresh(self.scroll_to_widget, view, animate=False, top=True)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self.screen.screen_layout_refresh_signal.subscribe(self, self._laid_out,
                                                           immediate=True)

    def set_reading_width(self, width: int) -> None:
        """Wrap message text at `width` cells from now on (0: the whole width): the mounted
        messages are drawn again; the reply streaming keeps its width until it ends."""
        if width == self.reading_width:
            return
        self.reading_width = width
        for view in self._views():
            view.reading_width = width or None
            view.set_message(view.message)

    def _theme_changed(self, _theme: object) -> None:
        """Code blocks follow the theme: redraw the mounted messages in the new style."""
        theme = self.code_theme
        for view in self._views():
            if view.code_theme != theme:
                view.code_theme = theme
                view.set_message(view.message)

    @property
    def scroll_offset(self) -> Offset:
        """Never above the top: a short conversation is drawn from the top of the list.
        While anchored (following the end), Textual scrolls the list to its content's bottom
        less the view's height, negative when the content is shorter than the view (Textual
        #6652), which drew the messages at the bottom under a void; once they fill the view
        the offset is positive and the view follows the end as before."""
        offset = super().scroll_offset
        return offset if offset.y >= 0 else Offset(offset.x, 0)

    # --- lazy pages --------------------------------------------------------------------

    @property
    def paging(self) -> bool:
        """True while a page is being mounted and the view moved back under the eye."""
        return self._loading

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if not self.is_mounted:
            return
        self._draw_ahead(new_value)
        if self._loading:
            return
        if new_value <= 1 and self._lo > 0:
            self._loading = True
            self.call_after_refresh(self._mount_older)
        elif new_value >= self.max_scroll_y - 1 and self._hi < len(self.messages):
            self._loading = True
            self.call_after_refresh(self._mount_newer)

    def _draw_ahead(self, top: float) -> None:
        """Draw the pieces of long replies (drawn when read: see piece_rows) that the view
        scrolled to `top` shows, before the frame that shows them, and keep the rows on
        screen in place where a piece drawn moved them."""
        first, last = int(top), int(top) + self.scrollable_content_region.height
        views: list[MessageView | ReplyView] = [
            child for child in self.children
            if isinstance(child, MessageView) and child.has_lazy_rows]
        if self.reply is not None:
            views.append(self.reply)
        for view in views:
            region = view.virtual_region
            if region.height and region.y < last and region.bottom > first:
                view.draw_ahead(first - region.y, last - region.y)

    async def _mount_older(self) -> None:
        lo = max(0, self._lo - PAGE)
        views = self._views_for(self.messages[lo:self._lo])
        first = self.children[0] if self.children else None
        before_height = self.virtual_size.height
        try:
            await self.mount_all(views, before=first)
            self._lo = lo
            self.summary_place.place()
        finally:
            # Keep the same message under the eye: shift by the height just added above it.
            self.call_after_refresh(self._keep_position, before_height, self.scroll_y)

    def _keep_position(self, before_height: int, before_y: float, waits: int = 0) -> None:
        added = self.virtual_size.height - before_height
        if added <= 0 and waits < _LAYOUT_WAITS:
            # The refresh came before the layout that measures the new page (a loaded
            # machine paints first): shifted by 0, the view jumped to the new page's top.
            self.call_after_refresh(self._keep_position, before_height, before_y, waits + 1)
            return
        self.scroll_to(y=before_y + added, animate=False, immediate=True,
                       release_anchor=False)
        self._loading = False
        self._fill_viewport()

    def _fill_viewport(self) -> None:
        """A page shorter than the view has no scrollbar to reach older ones: add pages."""
        if (not self._loading and self._lo > 0
                and self.virtual_size.height < self.scrollable_content_region.height):
            self._loading = True
            self.call_later(self._mount_older)

    async def _mount_newer(self) -> None:
        """The next page below the window. The view stays where it is: the end of the
        window is not the end of the conversation, though Textual takes a scroll to the
        bottom (Down onto its last message, the wheel) as a return to following the end
        (`_check_anchor`), and would follow the page mounted, 20 messages on (issue 25)."""
        self.release_anchor()
        try:
            hi = min(len(self.messages), self._hi + PAGE)
            await self.mount_all(self._views_for(self.messages[self._hi:hi]),
                                 before=self.reply)
            self._hi = hi
            self.summary_place.place()
        finally:
            self._loading = False

    async def action_first(self) -> None:
        loaded = self.messages
        await self.show_first()
        if self.messages and self.messages is loaded:
            self._choose(0)

    async def action_last(self) -> None:
        await self.show_last()
        if self.messages:
            self._choose(len(self.messages) - 1)

    def _choose(self, index: int) -> None:
        """Select a message by the keys: the mouse selection goes, so that `c` copies the
        message chosen and not words dragged over before."""
        self.screen.clear_selection()
        self.selected = index

    async def show_first(self) -> None:
        """Scroll to the first message (its page mounted first), selecting nothing."""
        if not await self.whole_path():
            return  # another conversation came meanwhile: its own place stands
        self._loading = True
        try:
            if self._lo > 0:
                await self._mount_window(0, min(len(self.messages), PAGE))
            self.scroll_home(animate=False, immediate=True)
        finally:
            self.call_after_refresh(self._end_loading)

    async def show_last(self) -> None:
        """Scroll to the end, which follows the stream again."""
        self._loading = True
        try:
            if self._hi < len(self.messages):
                await self._mount_window(max(0, len(self.messages) - PAGE), len(self.messages))
            self.scroll_end(animate=False, immediate=True)
        finally:
            self.call_after_refresh(self._end_loading)

    async def scroll_from_prompt(self, where: ScrollTo) -> None:
        """Scroll as the prompt's keys ask (`PromptInput.ScrollRequested`), selecting
        nothing; older pages are mounted as the top is reached, as with the mouse."""
        if where == "top":
            await self.show_first()
        elif where == "bottom":
            await self.show_last()
        else:
            scroll = {"page_up": self.scroll_page_up, "page_down": self.scroll_page_down,
                      "line_up": self.scroll_up, "line_down": self.scroll_down}[where]
            scroll(animate=False)

    def _end_loading(self) -> None:
        self._loading = False

    # --- selection and actions ---------------------------------------------------------

    def on_focus(self) -> None:
        """Select the last message in view, without scrolling: the focus may come from the
        mouse press that starts a drag selection, and a jump to another message would move
        the words out from under the pointer."""
        if self.selected is None and self.messages:
            self._scroll_to_selected = False
            try:
                self.selected = self._last_in_view()
            finally:
                self._scroll_to_selected = True

    def _last_in_view(self) -> int:
        top, bottom = self.region.y, self.region.bottom
        for view in reversed(self._views()):
            if view.region.y < bottom and view.region.bottom > top:
                index = self._index_of(view)
                if index is not None:
                    return index
        return min(len(self.messages), self._hi) - 1

    def on_blur(self) -> None:
        self.selected = None
        self.summary_place.choose(False)
        self._code_pick = None

    def watch_selected(self, old: int | None, new: int | None) -> None:
        if new is not None:
            self.summary_place.choose(False)
        for view in self._views():
            index = self._index_of(view)
            view.set_class(index is not None and index == new, "-selected")
        chosen = self._view_at(new)
        if chosen is not None and self._scroll_to_selected:
            self.scroll_to_widget(chosen, animate=False)
        if self.footer_keys_changed():
            self.refresh_bindings()

    def _index_of(self, view: Widget) -> int | None:
        if not isinstance(view, MessageView):
            return None
        try:
            return self._lo + self._views().index(view)
        except ValueError:
            return None

    def _view_at(self, index: int | None) -> MessageView | None:
        if index is None or not self._lo <= index < self._hi:
            return None
        views = self._views()
        return views[index - self._lo] if index - self._lo < len(views) else None

    async def action_select(self, step: int) -> None:
        if not self.messages or self._onto_summary(step):
            return
        current = self.selected if self.selected is not None else self._hi
        after = self.summary_place.after(self.messages) if self.summary_place.chosen else None
        if after is not None:  # off the summary row, onto the message above or below it
            if step > 0 and after + 1 >= len(self.messages):
                return  # nothing below it
            current = after + (step < 0)
        if current + step < 0 and self.reading:  # above the first message read: wait
            if not await self.whole_path():
                return
            current = self.selected if self.selected is not None else self._hi
        target = max(0, min(len(self.messages) - 1, current + step))
        if target < self._lo:
            await self._mount_window(max(0, target - PAGE + 1), min(len(self.messages),
                                                                    target + 1 + PAGE))
        elif target >= self._hi:
            await self._mount_window(max(0, target - PAGE + 1), target + 1)
        self._choose(target)

    def _onto_summary(self, step: int) -> bool:
        """↑/↓ onto the summary row, from the last message it covers or the one after it
        (False: the row is not in the way of this step)."""
        place = self.summary_place
        after = place.after(self.messages)
        if after is None or place.chosen or (self.selected, step) not in ((after, 1),
                                                                        (after + 1, -1)):
            return False
        self.screen.clear_selection()
        self.selected = None
        place.choose(True)
        if place.row is not None:
            self.scroll_to_widget(place.row, animate=False)
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """On the summary row only the keys that act on it (summary_row.ROW_ACTIONS); its
        own edit only there."""
        chosen = self.summary_place.chosen
        if action == "edit_summary":
            return chosen and self.summary_place.summary is not None
        if action in ("toggle_thinking", "fold") and self._unfolded() != (action == "fold"):
            return False  # t/Enter is named Unfold or Fold, by what it does now
        if chosen and action not in ROW_ACTIONS and action in self._own_actions():
            return False
        return super().check_action(action, parameters)

    def selected_message(self) -> Message | None:
        if self.selected is None or not 0 <= self.selected < len(self.messages):
            return self.messages[-1] if self.messages else None
        return self.messages[self.selected]

    def action_copy_message(self) -> None:
        """The text selected with the mouse if there is some, else the selected message."""
        dragged = self.screen.get_selected_text()
        if dragged:
            self.app.copy_to_clipboard(dragged)
            self.notify("Selection copied to the clipboard.", markup=False)
            return
        summary = self.summary_place.summary if self.summary_place.chosen else None
        message = summary or self.selected_message()
        if message is None:
            return
        self.app.copy_to_clipboard(message.content)
        self.notify(f"{'Summary' if summary else 'Message'} copied to the clipboard.",
                    markup=False)

    def action_copy_code(self) -> None:
        """The last code block at once; a number typed right after copies that block instead."""
        message = self.selected_message()
        blocks = code_blocks(message.content) if message else []
        if not blocks:
            self.notify("That message has no code block.", markup=False, severity="warning")
            return
        self.app.copy_to_clipboard(blocks[-1])
        self._code_pick = blocks
        self._code_typed = ""
        count = len(blocks)
        self.notify("Code block copied to the clipboard." if count == 1 else
                    f"Code block {count} of {count} (the last) copied; press "
                    f"{digits(count)} now to copy another instead.", markup=False)

    def on_key(self, event: events.Key) -> None:
        """A number typed right after the copy-code key picks that block (keys reach the
        focused widget before the bindings): digits add up while the number can still grow
        (with 12 blocks, `1` copies block 1 and a `2` after it block 12); any other key ends
        the choice."""
        blocks = self._code_pick
        if blocks is None or not event.character or event.character not in "0123456789":
            self._code_pick = None
            self._code_typed = ""
            return
        event.stop()
        event.prevent_default()
        typed = self._code_typed + event.character
        number = int(typed)
        if typed.startswith("0") or number > len(blocks):
            self._code_typed = ""
            self.notify(f"That message has {len(blocks)} code blocks: press "
                        f"{digits(len(blocks))}.", markup=False, severity="warning")
            return
        self._code_typed = typed if number * 10 <= len(blocks) else ""
        self.app.copy_to_clipboard(blocks[number - 1])
        self.notify(f"Code block {number} of {len(blocks)} copied to the clipboard.",
                    markup=False)

    def action_edit_summary(self) -> None:
        """Edit the summary in force (its row chosen): the controller saves it on Enter."""
        if self.summary_place.chosen and self.summary_place.summary is not None:
            self.post_message(self.EditRequested(self.summary_place.summary))

    def action_edit(self) -> None:
        """Edit the selected message of the user's: it is resent from there."""
        message = self.selected_message()
        if message is None or message.role is not Role.USER:
            self.notify("Select one of your messages (↑/↓) to edit it.", markup=False,
                        severity="warning")
            return
        self.post_message(self.EditRequested(message))

    def action_regenerate(self, choose_model: bool) -> None:
        """Write the selected reply again; on a message of the user's, the reply to it."""
        reply = self.selected_message()
        if reply is not None and reply.role is Role.USER and reply is not self.messages[-1]:
            following = self.messages[self.messages.index(reply) + 1]
            if following.role is Role.ASSISTANT:
                reply = following
        self.post_message(self.RegenerateRequested(choose_model, reply))

    def action_continue_reply(self) -> None:
        """Continue the selected reply (a reply of the model's, with text) as a new branch."""
        reply = self.selected_message()
        if reply is None or reply.role is not Role.ASSISTANT or not reply.content:
            self.notify("Select a reply of the model's (↑/↓) to continue it.", markup=False,
                        severity="warning")
            return
        self.post_message(self.ContinueRequested(reply))

    def action_open_link(self) -> None:
        """Each press offers the next link of the selected message, last one first; on a
        tool's result, its images and links in the order shown (tool_files)."""
        message = self.selected_message()
        tool = message is not None and message.role is Role.TOOL
        links = (tool_targets(message) if tool else links_in(message.content)) if message else []
        if not links or message is None:
            said = nothing_to_open(message) if message and tool else "That message has no link."
            self.notify(said, markup=False, severity="warning")
            return
        step = self._link_step + 1 if self._link_key == message.id else 0
        self._link_key, self._link_step = message.id, step
        target = links[step % len(links)] if tool else links[-1 - step % len(links)]
        self.post_message(self.LinkRequested(target) if isinstance(target, str)
                          else self.FileRequested(message, target))

    def _unfolded(self) -> bool:
        """Whether what t/Enter acts on (the summary row chosen, else the selected message)
        is unfolded now."""
        place = self.summary_place
        if place.chosen and place.row is not None:
            return place.row.unfolded
        view = self._view_at(self.selected)
        return view is not None and view.show_reasoning

    def action_toggle_thinking(self) -> None:
        if self.summary_place.chosen and self.summary_place.row is not None:
            self.summary_place.row.toggle()
        elif (view := self._view_at(self.selected)) is not None:
            view.toggle_reasoning()
        if self.footer_keys_changed():
            self.refresh_bindings()

    def action_fold(self) -> None:
        self.action_toggle_thinking()

    def action_leave(self) -> None:
        self.post_message(self.LeaveRequested())


def calls_answered(shown: Sequence[Message], more: Sequence[Message]) -> set[str]:
    """Ids of the replies whose tool calls a tool message among `shown` and `more` answers
    (the first call's tool message is the reply's child), whatever order they came in."""
    return {m.parent_id for messages in (shown, more) for m in messages
            if m.role is Role.TOOL and m.parent_id is not None}


def digits(count: int) -> str:
    """The numbers that pick one of `count` code blocks ("1–3")."""
    return "1" if count == 1 else f"1–{count}"
