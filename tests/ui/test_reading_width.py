"""Replies read well at any width: prose wraps at Settings' reading width (tables and code take
the room they need), the blank rows a live reply grows into show no bar, a short conversation
is drawn from the top, and blocks are set apart by one blank row, not two."""

from __future__ import annotations

import threading
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from textual.geometry import Region
from textual.pilot import Pilot
from textual.strip import Strip

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, live_reply, wait_idle, wait_until
from tests.ui.reading_demo import ANSWER, LIST_ITEM, PROSE, QUOTE, seed_reading
from tests.ui.test_settings_applied import save_settings
from tui_chat.core.models import Message, Role
from tui_chat.core.store import Store
from tui_chat.ui.screens.settings import SettingsScreen
from tui_chat.ui.widgets.message_view import MessageView, render_message
from tui_chat.ui.widgets.reply_view import ReplyView

WIDE = (200, 60)


def widths(rows: list[Strip], text: str) -> list[int]:
    """The widths (trailing spaces left out) of the rows made of `text`'s words alone."""
    words = set(text.split())
    return [cell_len(row.text.rstrip()) for row in rows
            if row.text.split() and set(row.text.split()) <= words | {"•", "▌"}]


def table_rows(rows: list[Strip]) -> list[int]:
    return [cell_len(row.text.rstrip()) for row in rows if "Devanagari" in row.text
            or "deliberately" in row.text]


def last_view(pilot: Pilot[Any]) -> MessageView:
    return conversation(pilot.app).query(MessageView)[-1]


async def test_prose_wraps_at_the_reading_width_and_tables_take_what_they_need(
        make_app: AppFactory, store: Store) -> None:
    chat = seed_reading(store)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: bool(conversation(app).query(MessageView)))
        await pilot.pause()
        view = last_view(pilot)
        assert view.content_region.width > 150
        rows = view.cached.lines
        prose = widths(rows, PROSE)
        assert len(prose) >= 3 and max(prose) <= 100, prose
        for text in (LIST_ITEM, QUOTE):
            found = widths(rows, text)
            assert len(found) >= 2 and max(found) <= 100, (text, found)
        assert max(table_rows(rows)) > 100  # one row a line: the table uses the room it needs
        question = conversation(app).query(MessageView)[0]
        assert question.message.role is Role.USER


async def test_a_new_reading_width_saved_in_settings_is_in_force_at_once(
        make_app: AppFactory, store: Store) -> None:
    chat = seed_reading(store)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: bool(conversation(app).query(MessageView)))
        await save_settings(pilot, reading_width="0")
        assert app.workspace.settings.reading_width == 0
        assert max(widths(last_view(pilot).cached.lines, PROSE)) > 150  # the whole width
        await save_settings(pilot, reading_width="60")
        await pilot.pause()
        prose = widths(last_view(pilot).cached.lines, PROSE)
        assert max(prose) <= 60 and len(prose) >= 5, prose


async def test_a_reading_width_saved_while_a_reply_streams_applies_to_it_once_finished(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of([PROSE]), gate=gate, gate_after=2))
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = conversation(app)
        screen.prompt.load_text("x")
        screen.prompt.submit()
        reply = await live_reply(pilot, screen, lambda text: text == PROSE)
        assert max(widths(reply.answer.lines, PROSE)) > 60  # drawn at 100
        await save_settings(pilot, reading_width="60")
        gate.set()
        await wait_idle(pilot)
        prose = widths(last_view(pilot).cached.lines, PROSE)
        assert prose and max(prose) <= 60, prose


async def test_a_reading_width_too_narrow_is_refused_in_settings(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen))
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        field = screen._ids[("reading_width",)]
        screen.query_one(f"#{field}").value = "5"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)  # not saved
        error = str(screen.query_one(f"#error-{field}").render())
        assert "0 (the whole width) or at least 20" in error
    assert app.workspace.settings.reading_width == 100


def text_rows(reply: ReplyView) -> list[str]:
    width, height = reply.outer_size
    return [line.text for line in reply.render_lines(Region(0, 0, width, height))]


def blank_runs(rows: list[Strip]) -> list[int]:
    """The lengths of the runs of rows with nothing drawn (no text and no background) between
    rows with something."""
    def drawn(row: Strip) -> bool:
        return bool(row.text.strip()) or any(
            segment.style is not None and segment.style.bgcolor is not None
            and segment.text.strip() == "" for segment in row)

    runs, run, seen = [], 0, False
    for row in rows:
        if drawn(row):
            if seen and run:
                runs.append(run)
            run, seen = 0, True
        else:
            run += 1
    return runs


async def test_a_streaming_reply_shows_no_bar_on_the_rows_it_grows_into(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    pieces = [ANSWER[i:i + 40] for i in range(0, len(ANSWER), 40)]
    gate = threading.Event()  # held after every piece of text, before the reply's end
    chutes_server.script(Reply(stream_of(pieces), gate=gate, gate_after=1 + len(pieces)))
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = conversation(app)
        screen.prompt.load_text("x")
        screen.prompt.submit()
        reply = await live_reply(pilot, screen, lambda text: text == ANSWER)
        await pilot.pause()
        rows = text_rows(reply)
        last_text = max(index for index, row in enumerate(rows) if row[1:].strip())
        bar = rows[0][0]
        assert bar.strip()  # the header row has the bar
        assert all(row[0] == bar for row in rows[:last_text + 1])
        assert len(rows) > last_text + 1  # there are rows to grow into below the text...
        assert all(not row.strip() for row in rows[last_text + 1:]), rows  # ...and blank
        # The live rows wrap at the reading width too, and are set apart by one blank row.
        assert max(widths(reply.answer.lines, PROSE)) <= 100
        assert set(blank_runs(reply.answer.lines)) == {1}
        gate.set()
        await wait_idle(pilot)


async def test_a_short_conversation_is_drawn_from_the_top_and_a_long_one_follows_the_end(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chat = seed_reading(store)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 80)) as pilot:
        screen = conversation(app)
        messages = screen.message_list
        await wait_until(pilot, lambda: bool(screen.query(MessageView)))
        await pilot.pause()
        first, reply = screen.query(MessageView)
        assert reply.region.bottom < messages.region.bottom - 10  # a short conversation...
        assert first.region.y == messages.scrollable_content_region.y  # ...under the title bar
        for number in range(8):  # until the messages fill the view, and beyond
            screen.prompt.load_text(f"message {number}")
            screen.prompt.submit()
            await wait_idle(pilot)
        await pilot.pause()
        assert messages.max_scroll_y > 0
        assert messages.scroll_offset.y == messages.max_scroll_y  # following the end
        last = screen.query(MessageView)[-1]
        assert "message 7" in last.message.content
        assert last.region.bottom <= messages.region.bottom


def test_one_blank_row_sets_tables_and_code_blocks_apart() -> None:
    console = Console(width=100, color_system="truecolor", force_terminal=True)
    message = Message(conversation_id="c", role=Role.ASSISTANT, content=ANSWER)
    for reading_width in (None, 60):
        drawn = (render_message(message, reading_width=reading_width) if reading_width
                 else render_message(message))
        rows = [Strip(line) for line in console.render_lines(drawn, pad=False)]
        assert set(blank_runs(rows)) == {1}, [row.text for row in rows]

