"""A long reply streamed fast is drawn by pieces as they are read (see piece_rows): the
finished view holds rows not drawn yet, and paging up through it shows every row once, in
order, the rows on screen never jumping as the pieces above them are drawn."""

from __future__ import annotations

import itertools
import re
import threading
from typing import Any

from textual.geometry import Offset, Region
from textual.pilot import Pilot
from textual.selection import Selection

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, live_reply, wait_idle, wait_until
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.ui.app import TuiChatApp
from tui_chat.ui.widgets.message_view import MessageView, render_message
from tui_chat.ui.widgets.reply_view import ReplyView

PARAGRAPHS = [f"Paragraph {i} of the long reply, with **bold** and `code`.\n\n"
              for i in range(600)]
"""About 1,200 rows at 100 columns, sent in two deltas: appends of MAX_BATCH_CHARS, each
settling far more than a screenful."""
_SEQUENCE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def screen_rows(app: TuiChatApp, view: MessageView | ReplyView) -> list[str]:
    """The text of `view`'s content on screen, as a full repaint draws it, row by row."""
    update = app.screen._compositor.render_full_update()
    lines = _SEQUENCE.sub("", update.render_segments(app.console)).split("\n")
    shown = view.content_region.intersection(view.parent.region)  # type: ignore[union-attr]
    return [line[shown.x:shown.right].rstrip() for line in lines[shown.y:shown.bottom]]


def window_at(rows: list[str], shown: list[str]) -> int:
    """Where the rows on screen are among all the view's rows (they must be there)."""
    starts = [k for k in range(len(rows) - len(shown) + 1) if rows[k:k + len(shown)] == shown]
    assert len(starts) == 1, (shown, starts)
    return starts[0]


async def long_reply(pilot: Pilot[Any], server: FakeProvider) -> MessageView:
    text = "".join(PARAGRAPHS)
    server.script(Reply(stream_of([text[:len(text) // 2], text[len(text) // 2:]])))
    screen = conversation(pilot.app)
    await pilot.press("x", "enter")
    await wait_idle(pilot)
    view = screen.query(MessageView)[-1]
    assert view.message.content == text
    return view


async def test_a_long_reply_streamed_fast_leaves_most_of_its_rows_undrawn(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        view = await long_reply(pilot, chutes_server)
        await pilot.pause()
        assert view.has_lazy_rows
        lazy = [part for _, part in view.cached.lines.lazy_parts()]  # type: ignore[attr-defined]
        assert sum(part.drawn_rows() for part in lazy) < len(view.cached.lines) // 2
        assert "Paragraph 599 of the long reply, with bold and code." in screen_rows(app, view)


async def page_through(pilot: Pilot[Any], view: MessageView | ReplyView, keys: list[str]
                       ) -> None:
    """Press each of `keys` (PageUp, PageDown) and check that each page shown lies right
    above or below the one before: rows moved by pieces drawn above the screen, or rows
    kept from a paint before they moved, would show as a page that overlaps or skips rows."""
    app = pilot.app
    assert isinstance(app, TuiChatApp)
    messages = conversation(app).message_list
    pages = []
    for key in keys:
        top = messages.scroll_y
        await pilot.press(key)
        await wait_until(pilot, lambda top=top: messages.scroll_y != top)
        await pilot.pause()
        pages.append(screen_rows(app, view))
    lines = view.cached.lines if isinstance(view, MessageView) else view._lines
    rows = [row.text.rstrip() for row in lines]  # all drawn now: the truth
    starts = [window_at(rows, page) for page in pages]
    page = messages.scrollable_content_region.height  # what a page key scrolls by
    steps = [-page if key == "pageup" else page for key in keys[1:]]
    assert [later - earlier for earlier, later in itertools.pairwise(starts)] == steps, starts


async def test_paging_through_a_long_reply_shows_each_row_once_in_order(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        view = await long_reply(pilot, chutes_server)
        await pilot.pause()
        await page_through(pilot, view, ["pageup"] * 30 + ["pagedown"] * 10)
        messages = conversation(app).message_list
        await pilot.press("ctrl+home")
        await wait_until(pilot, lambda: messages.scroll_y == 0)
        await pilot.pause()
        assert any(row.startswith("Paragraph 0 of") for row in screen_rows(app, view))


def stored_long_reply(store: Store) -> Conversation:
    chat = store.create_conversation(Conversation(title="Long answer"))
    question = store.add_message(Message(conversation_id=chat.id, role=Role.USER,
                                         content="x"))
    store.add_message(Message(conversation_id=chat.id, role=Role.ASSISTANT,
                              content="".join(PARAGRAPHS), parent_id=question.id,
                              provider="chutes", model="old/model"))
    return chat


def whole_rows(view: MessageView, width: int) -> list[str]:
    """The view's message drawn whole at `width`, as every message was before pieces."""
    app = view.app
    options = app.console_options.update_width(width).update(highlight=False)
    drawn = app.console.render_lines(render_message(view.message, reading_width=view.reading_width),
                                     options, pad=False)
    return ["".join(segment.text for segment in line).rstrip() for line in drawn]


async def test_a_long_stored_reply_opens_drawn_by_pieces_and_resizes_so(
        make_app: AppFactory, store: Store) -> None:
    """Opening a conversation that ends with a long reply draws the screenful at its end,
    not all its rows; at another width too; and its rows, all read, are the whole's."""
    chat = stored_long_reply(store)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        messages = conversation(app).message_list
        await wait_until(pilot, lambda: len(messages.query(MessageView)) == 2
                         and messages.scroll_y == messages.max_scroll_y > 0)
        view = messages.query(MessageView)[-1]
        await pilot.pause()
        for size in ((100, 30), (80, 30)):
            if size != app.size:
                await pilot.resize_terminal(*size)
                await wait_until(pilot, lambda cells=size[0]: view.content_size.width < cells - 4
                                 and messages.scroll_y == messages.max_scroll_y)
                await pilot.pause()
            assert view.has_lazy_rows
            lazy = [part for _, part in view.cached.lines.lazy_parts()]  # type: ignore[attr-defined]
            assert sum(part.drawn_rows() for part in lazy) < len(view.cached.lines) // 2
            shown = screen_rows(app, view)
            assert "Paragraph 599 of the long reply, with bold and code." in shown
        width = view.content_size.width
        assert [row.text.rstrip() for row in view.cached.lines] == whole_rows(view, width)


async def test_selecting_text_in_a_long_reply_draws_only_the_rows_it_spans(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        view = await long_reply(pilot, chutes_server)
        await pilot.pause()
        lazy = [part for _, part in view.cached.lines.lazy_parts()]  # type: ignore[attr-defined]
        drawn = sum(part.drawn_rows() for part in lazy)
        end = len(view.cached.lines) - 1  # the last paragraph's row, on screen
        text, _ = view.get_selection(Selection(Offset(0, end - 2), Offset(12, end)))  # type: ignore[misc]
        assert "Paragraph 598 of" in text and text.endswith("\nParagraph 59")
        assert sum(part.drawn_rows() for part in lazy) == drawn


async def half_a_reply_held(pilot: Pilot[Any], server: FakeProvider, gate: threading.Event
                            ) -> ReplyView:
    """The live reply of PARAGRAPHS, its first half arrived and drawn, the list at its end;
    the rest comes when `gate` is set."""
    text = "".join(PARAGRAPHS)
    server.script(Reply(stream_of([text[:len(text) // 2], text[len(text) // 2:]]),
                        gate=gate, gate_after=2))
    screen = conversation(pilot.app)
    await pilot.press("x", "enter")
    reply = await live_reply(pilot, screen, lambda got: "Paragraph 299 " in got)
    messages = screen.message_list
    await wait_until(pilot, lambda: messages.scroll_y == messages.max_scroll_y > 0)
    await pilot.pause()
    return reply


async def test_paging_through_a_reply_while_it_streams_shows_each_row_once_in_order(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """The same, in the live reply: its first half arrived, the rest held back."""
    gate = threading.Event()
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        reply = await half_a_reply_held(pilot, chutes_server, gate)
        assert reply.answer.rows.drawn_rows() < len(reply.answer.rows) // 2
        await page_through(pilot, reply, ["pageup"] * 12 + ["pagedown"] * 11)
        gate.set()
        await wait_idle(pilot)


async def test_rows_moved_by_a_drawing_between_two_paints_are_painted_anew(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """Pieces drawn outside a paint (here every row read at once, as a selection of all
    does) move the rows below them: the next paint shows them where they are now, not the
    rows Textual kept from the paint before, even before the move is applied."""
    gate = threading.Event()
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        reply = await half_a_reply_held(pilot, chutes_server, gate)
        rows = reply.answer.rows
        end = reply._answer_top() + len(rows)
        bottom = Region(0, end - 10, reply.size.width, 10)
        reply.render_lines(bottom)  # painted once: Textual keeps these rows
        before = len(rows)
        list(rows)  # every piece drawn: estimates err tall, so the rows below move up
        assert len(rows) != before
        end = reply._answer_top() + len(rows)
        painted = reply.render_lines(Region(0, end - 10, reply.size.width, 10))
        assert [strip.text.lstrip("█").strip() for strip in painted] == [
            row.text.strip() for row in reply._lines[end - 10:end]]
        gate.set()
        await wait_idle(pilot)
