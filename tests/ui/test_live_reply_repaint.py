"""What a growing live reply costs a frame: its new rows drawn, the rows above kept, and one
layout of the screen per growth (Textual's defaults drew every visible row of the reply again
and laid the screen out twice, once for the reply's new height and once more for the list's
new virtual size)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from textual._compositor import Compositor
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.strip import Strip

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, live_reply, wait_until
from tui_chat.ui.screens.conversation import ConversationScreen
from tui_chat.ui.widgets import reply_view as reply_view_module
from tui_chat.ui.widgets.reply_view import ReplyView

PARAGRAPHS = [f"Paragraph {i} of the reply.\n\n" for i in range(24)]
HELD_AFTER = 13  # frames: the role chunk and 12 paragraphs, then the gate


def _held_reply(chutes_server: FakeProvider) -> threading.Event:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(PARAGRAPHS), gate=gate, gate_after=HELD_AFTER,
                               stall_after=len(PARAGRAPHS) + 1, stall_seconds=600))
    return gate


async def _held_shown(pilot: Pilot[Any]) -> tuple[ConversationScreen, ReplyView]:
    """Send; the screen and its reply once the part before the gate is drawn, laid out."""
    screen = conversation(pilot.app)
    await pilot.press("x", "enter")
    reply = await live_reply(pilot, screen, lambda text: "Paragraph 11 " in text)
    await wait_until(pilot, lambda: reply.size.height == reply.virtual_size.height > 0)
    await pilot.pause()
    return screen, reply


async def test_a_growing_live_reply_draws_its_new_rows_only(
        make_app: AppFactory, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    gate = _held_reply(chutes_server)
    drawn: list[int] = []
    render_line = ReplyView.render_line

    def spy(self: ReplyView, y: int) -> Strip:
        drawn.append(y)
        return render_line(self, y)

    app = make_app()
    async with app.run_test(size=(100, 90)) as pilot:
        screen, reply = await _held_shown(pilot)
        height = reply.size.height
        monkeypatch.setattr(ReplyView, "render_line", spy)
        gate.set()
        reply = await live_reply(pilot, screen, lambda text: "Paragraph 23 " in text)
        await wait_until(pilot, lambda: reply.size.height > height and bool(drawn))
        await pilot.pause()
        assert reply.region.bottom < screen.message_list.region.bottom  # all of it shown
        # Rows 0-20 (the header and paragraphs 0-9) did not change: not drawn again.
        assert min(drawn) > 20, sorted(set(drawn))
        assert max(drawn) >= height  # the new rows were
        await screen.stop_streaming()


async def test_a_growing_live_reply_lays_the_screen_out_once_per_new_height(
        make_app: AppFactory, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    gate = _held_reply(chutes_server)
    heights: list[int] = []
    refresh_layout = Screen._refresh_layout

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:  # the reply overflows: the list scrolls
        screen, reply = await _held_shown(pilot)
        height = reply.size.height

        def spy(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
            refresh_layout(self, *args, **kwargs)
            heights.append(reply.size.height)

        monkeypatch.setattr(Screen, "_refresh_layout", spy)
        gate.set()
        reply = await live_reply(pilot, screen, lambda text: "Paragraph 23 " in text)
        await wait_until(pilot, lambda: reply.size.height > height)
        await pilot.pause()
        await pilot.pause()
        assert heights and len(heights) == len(set(heights)), heights
        messages = screen.message_list
        assert messages.scroll_y == messages.max_scroll_y  # still following the reply
        await screen.stop_streaming()


async def test_a_growing_live_reply_paints_the_scrollbar_in_the_layouts_frame(
        make_app: AppFactory, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The layout that grows the list repaints its whole region, scrollbar included: the
    scrollbar's own refresh, set during that layout, drew it again in a frame of its own."""
    gate = _held_reply(chutes_server)
    frames: list[set[Region]] = []
    render_partial_update = Compositor.render_partial_update

    def spy(self: Compositor) -> Any:
        frames.append(set(self._dirty_regions))
        return render_partial_update(self)

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:  # the reply overflows: the list scrolls
        screen, reply = await _held_shown(pilot)
        height = reply.size.height
        messages = screen.message_list
        bar = messages.vertical_scrollbar
        monkeypatch.setattr(Compositor, "render_partial_update", spy)
        gate.set()
        reply = await live_reply(pilot, screen, lambda text: "Paragraph 23 " in text)
        await wait_until(pilot, lambda: reply.size.height > height)
        await pilot.pause()
        await pilot.pause()
        painted = [frame for frame in frames if frame]
        assert any(region.contains_region(bar.region) for frame in painted
                   for region in frame), painted  # the layout's frame painted it
        alone = [frame for frame in painted
                 if all(bar.region.contains_region(region) for region in frame)]
        assert not alone, alone  # no frame for the scrollbar alone
        assert bar.window_virtual_size == messages.virtual_size.height
        assert bar.position == messages.scroll_y == messages.max_scroll_y
        await screen.stop_streaming()


async def test_a_live_row_painted_again_is_not_styled_or_placed_again(
        make_app: AppFactory, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A growth that scrolls the list paints the reply's rows on screen again: the same row,
    in the same style, is the same styled strip, whose placement (for the mouse selection)
    Textual keeps; styling it anew placed every segment again."""
    _held_reply(chutes_server)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        _, reply = await _held_shown(pilot)
        first = [reply.render_line(y) for y in range(6)]
        styled_rows: list[Strip] = []
        real = reply_view_module.styled

        def counted(strip: Strip, style: Any) -> Strip:
            styled_rows.append(strip)
            return real(strip, style)

        monkeypatch.setattr(reply_view_module, "styled", counted)
        again = [reply.render_line(y) for y in range(6)]
        assert not styled_rows
        assert all(row is same for row, same in zip(again, first, strict=True))
