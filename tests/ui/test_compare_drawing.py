"""What a comparison costs to draw while it streams, counted in layouts and figures (issue 24:
two replies should cost what one costs, twice). Counts of the work done, never times; the
speed itself is benchmarks/bench_ui_compare.py's.

- A column's figures line changed asks for no layout (it is one row at any width).
- A column's end swaps its finished view in with no layout between the mount and the removal.

(A column's growth costs two layouts again: skipping the second, by taking the containers'
new virtual size without Textual's reactive, left a finished comparison scrolled past its
end once in CI, a blank screen; correctness first.)
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, rendered_text, wait_until
from tests.ui.test_compare import compare
from tui_chat.ui.widgets.compare_view import ColumnFigures, CompareView
from tui_chat.ui.widgets.message_view import MessageView
from tui_chat.ui.widgets.reply_view import ReplyView


@pytest.fixture
def with_sutra(sutra_server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> FakeProvider:
    monkeypatch.setenv("SUTRA_BASE_URL", sutra_server.url)
    monkeypatch.setenv("SUTRA_API_KEY", "sutra-test-key-0001")
    return sutra_server


@contextmanager
def counted_layouts(screen: Screen[Any]) -> Iterator[list[int]]:
    """The screen's full layouts while the block runs (a list holding their count)."""
    count = [0]
    original = screen._refresh_layout

    def counting(size: Any = None, scroll: bool = False) -> None:
        if not scroll:
            count[0] += 1
        original(size, scroll)

    screen._refresh_layout = counting  # type: ignore[method-assign]
    try:
        yield count
    finally:
        screen._refresh_layout = original  # type: ignore[method-assign]


async def settled(pilot: Pilot[Any]) -> None:
    """Every message handled and every layout or repaint asked for done, twice over."""
    for _ in range(3):
        await pilot.pause()


async def streaming_comparison(pilot: Pilot[Any]) -> CompareView:
    view = await compare(pilot, "hello")
    await wait_until(pilot, lambda: all(c.reply is not None and c.reply.content
                                        and c.reply.caught_up for c in view.columns))
    await settled(pilot)
    return view


@pytest.fixture
def held(chutes_server: FakeProvider, with_sutra: FakeProvider) -> Iterator[None]:
    """Both replies start, then wait (for the end of the test)."""
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["first ", "words"]), gate=gate, gate_after=2))
    with_sutra.script(Reply(stream_of(["other ", "words"], flavour="sutra"),
                            gate=gate, gate_after=2))
    try:
        yield
    finally:
        gate.set()


@pytest.mark.usefixtures("held")
async def test_new_figures_on_as_many_rows_are_no_layout(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        view = await streaming_comparison(pilot)
        column = view.column(1)
        with counted_layouts(conversation(app)) as layouts:
            column.show_figures(ColumnFigures("streaming…", time_to_first_token=0.5,
                                              tokens_per_second=42.0))
            await settled(pilot)
        assert layouts == [0]
        assert "42.0 tok/s" in rendered_text(column.query_one(".figures"))
        # Figures too long for the column stay on their one row (issue 25: they wrapped
        # into the headers' row), cut, and still lay nothing out.
        with counted_layouts(conversation(app)) as layouts:
            column.show_figures(ColumnFigures("streaming… " + "very " * 30))
            await settled(pilot)
        assert layouts == [0]
        assert column.query_one(".figures").size.height == 1


@pytest.mark.usefixtures("held")
async def test_a_columns_speed_counts_the_text_not_the_deltas(make_app: AppFactory) -> None:
    """core.compare joins the deltas that wait: a column's live tokens per second are
    estimated from its text, as a single reply's are."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        view = await streaming_comparison(pilot)
        presenter = await conversation(app).compare_presenter.column(0)
        assert presenter is not None
        await presenter.content("word " * 1000)  # one delta, a thousand words
        for _ in range(4):  # the test clock moves a quarter second at each reading
            await presenter.content("x ")
        speed = view.column(0).figures.tokens_per_second
        assert speed is not None and speed > 100  # deltas counted: 6 in about 2 s


async def test_a_column_swaps_in_its_finished_view_in_one_layout(
        make_app: AppFactory, chutes_server: FakeProvider, with_sutra: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A column's live reply and its finished view are never laid out together: each
    layout of a comparison visits every row of its nested containers, and one taken between
    the mount of the finished view and the removal of the live one was a layout and a frame
    more at each column's end (as the message list swaps a reply, in one batch)."""
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["first ", "words"]), gate=gate, gate_after=2))
    with_sutra.script(Reply(stream_of(["other ", "words"], flavour="sutra"),
                            gate=gate, gate_after=2))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        view = await streaming_comparison(pilot)
        screen = conversation(app)
        both: list[int] = []
        original = screen._refresh_layout

        def layout(size: Any = None, scroll: bool = False) -> None:
            both.extend(column.number for column in view.columns
                        if column.query(ReplyView) and column.query(MessageView))
            original(size, scroll)

        screen._refresh_layout = layout  # type: ignore[method-assign]
        remove = ReplyView.remove

        async def remove_after_an_update(reply: ReplyView) -> None:
            await pilot.pause()  # the screen's update, as its timer may run it here
            await remove(reply)

        monkeypatch.setattr(ReplyView, "remove", remove_after_an_update)
        gate.set()
        # The finished view is drawn in a thread before the swap: wait for the swap itself.
        await wait_until(pilot, lambda: not view.query(ReplyView) and all(
            column.message is not None and column.query(MessageView)
            for column in view.columns))
        await settled(pilot)
        assert [len(column.query(MessageView)) for column in view.columns] == [1, 1]
        assert both == []


async def test_the_comparisons_end_asks_for_no_layout_when_its_hint_keeps_one_row(
        make_app: AppFactory, held: None) -> None:
    """The end of a comparison says so in its hint (and highlights a column): at 120 cells
    the new hint is one row as the old one was, so no layout is asked for (each visits every
    row of the columns' nested containers); the hint is drawn anew all the same."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        view = await streaming_comparison(pilot)
        with counted_layouts(conversation(app)) as count:
            view.ended()
            await settled(pilot)
        assert count[0] == 0
        assert "Compared 2 models" in rendered_text(view.query_one(".hint", Static))


async def test_the_columns_appends_are_taken_together_in_one_layout(
        make_app: AppFactory, held: None) -> None:
    """The columns' replies are paced together: text that reaches both columns at once is
    taken into both in one step of the event loop, so one layout shows both growths (each
    layout of a comparison visits every row of its nested containers). Paced each on its
    own, a column whose append took longer to draw (here: held in its worker thread) grew
    a layout later than the other, and each growth cost its own layouts and frame."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        view = await streaming_comparison(pilot)
        replies = [column.reply for column in view.columns]
        first_drawn, release = threading.Event(), threading.Event()
        seen: list[tuple[int, int]] = []  # (column, layouts so far) at each take
        with counted_layouts(conversation(app)) as layouts:
            for number, reply in enumerate(replies):
                assert reply is not None
                live = reply.answer
                take, prepare = live.take, live.prepare

                def taking(drawn: Any, number: int = number, take: Any = take) -> None:
                    seen.append((number, layouts[0]))
                    take(drawn)

                def drawing(text: str, width: int, number: int = number,
                            prepare: Any = prepare) -> Any:
                    if number == 1:  # in a worker thread: held, it holds no event loop
                        release.wait(60)
                    drawn = prepare(text, width)
                    if number == 0:
                        first_drawn.set()
                    return drawn

                live.take = taking  # type: ignore[method-assign]
                live.prepare = drawing  # type: ignore[method-assign]
            try:
                for reply in replies:
                    assert reply is not None
                    reply.add_content("\n\n" + "\n\n".join(f"more {n}" for n in range(20)))
                await wait_until(pilot, first_drawn.is_set)
                await settled(pilot)  # the first column's growth, laid out if taken alone
            finally:
                release.set()
            await wait_until(pilot, lambda: len(seen) == 2 and all(
                reply is not None and reply.caught_up for reply in replies))
            await settled(pilot)
        assert sorted(number for number, _ in seen) == [0, 1]
        assert seen[0][1] == seen[1][1]  # no layout between the two takes
        assert layouts[0] >= 1  # they grew
