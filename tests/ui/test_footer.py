"""The footer fits its row at any width (tui_chat/ui/widgets/fitted_footer.py): the focused
pane's keys first, F1 Help and the palette always, nothing cut off at the right edge."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets._footer import FooterKey

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, live_reply, wait_idle, wait_until
from tui_chat.ui.widgets.fitted_footer import FittedFooter, fitting, key_width, palette_width


def keys(pilot: Pilot[Any]) -> list[FooterKey]:
    footer = conversation(pilot.app).query_one(FittedFooter)
    return list(footer.query(FooterKey))


def described(pilot: Pilot[Any]) -> list[str]:
    return [key.description for key in keys(pilot)]


def assert_fits(pilot: Pilot[Any], width: int) -> None:
    shown = keys(pilot)
    assert shown, "the footer shows keys"
    for key in shown:
        assert key.region.right <= width, f"{key.description!r} is cut off"
        measure = palette_width if "-command-palette" in key.classes else key_width
        assert key.region.width == measure(key.key_display, key.description), key.description
    assert "Help" in described(pilot)
    assert shown[-1].description == "palette"


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 60)])
async def test_every_key_shown_fits_on_the_main_screen(make_app: AppFactory,
                                                       size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: bool(keys(pilot)))
        assert_fits(pilot, size[0])
        if size[0] >= 120:  # wide enough for every key of the screen and the app
            assert {"Chats", "Quit", "Settings"} <= set(described(pilot))


async def test_the_focused_pane_comes_first_and_everything_fits(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: bool(keys(pilot)))
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: "Search" in described(pilot))
        assert described(pilot)[0] == "Search"
        assert_fits(pilot, 80)
        await pilot.press("ctrl+b", "ctrl+o")
        await wait_until(pilot, lambda: "Copy" in described(pilot))
        assert described(pilot)[0] == "Copy"
        assert_fits(pilot, 80)
        await pilot.resize_terminal(200, 50)
        await wait_until(pilot, lambda: "Open link" in described(pilot))
        assert_fits(pilot, 200)


def test_fitting_keeps_the_order_and_help_whatever_the_width() -> None:
    bindings = [(Binding("a", f"act{index}", "word" * index), "a") for index in range(1, 6)]
    bindings.append((Binding("f1", "help", "Help"), "f1"))
    chosen = fitting(bindings, 30)
    assert chosen[-1].action == "help"
    assert [b.action for b in chosen[:-1]] == ["act1", "act2", "act3"][: len(chosen) - 1]
    assert sum(key_width(key, b.description) for b, key in bindings if b in chosen) <= 30
    assert [b.action for b in fitting(bindings, 0)] == ["help"]


async def test_esc_stop_is_offered_only_while_a_reply_streams(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["partial ", "rest"]), gate=gate, gate_after=2))
    app = make_app()
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            screen = conversation(app)
            await wait_until(pilot, lambda: bool(keys(pilot)))
            assert "Stop" not in described(pilot)  # nothing to stop: Esc is not offered
            await pilot.press(*"go", "enter")
            await live_reply(pilot, screen, lambda text: "partial" in text)
            await wait_until(pilot, lambda: "Stop" in described(pilot))
            gate.set()
            await wait_idle(pilot)
            await wait_until(pilot, lambda: "Stop" not in described(pilot))
    finally:
        gate.set()


async def recomposed_whole(pilot: Pilot[Any]) -> list[tuple[str, str]]:
    """The keys after Textual's own recompose of the footer (every key mounted anew)."""
    footer = conversation(pilot.app).query_one(FittedFooter)
    old = set(keys(pilot))
    footer.call_later(Widget.recompose, footer)  # in the footer's own context
    await wait_until(pilot, lambda: bool(keys(pilot)) and not old & set(keys(pilot)))
    return [(key.key_display, key.description) for key in keys(pilot)]


async def test_a_reply_mounts_only_the_stop_key_and_the_row_reads_as_composed_whole(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """Stop comes and goes with every reply: the other keys stay the same widgets (mounting
    the whole row again restyles every key), in the order a whole composition gives."""
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["partial ", "rest"]), gate=gate, gate_after=2))
    app = make_app()
    try:
        async with app.run_test(size=(160, 30)) as pilot:
            screen = conversation(app)
            await wait_until(pilot, lambda: bool(keys(pilot)))
            before = {key.description: key for key in keys(pilot)}
            await pilot.press(*"go", "enter")
            await live_reply(pilot, screen, lambda text: "partial" in text)
            await wait_until(pilot, lambda: "Stop" in described(pilot))
            await pilot.pause()
            shown = keys(pilot)
            assert all(key is before[key.description] for key in shown
                       if key.description in before)
            assert [(k.key_display, k.description) for k in shown] == await recomposed_whole(
                pilot)
            before = {key.description: key for key in keys(pilot)}
            gate.set()
            await wait_idle(pilot)
            await wait_until(pilot, lambda: "Stop" not in described(pilot))
            await pilot.pause()
            shown = keys(pilot)
            assert "Stop" in before and len(shown) == len(before) - 1
            assert all(key is before[key.description] for key in shown)
            assert [(k.key_display, k.description) for k in shown] == await recomposed_whole(
                pilot)
    finally:
        gate.set()


def keys_alive_off_screen() -> int:
    """FooterKey widgets alive but no longer in a footer, after a full collection (frozen
    ones included: see test_line_cache.live)."""
    from tests.ui.test_line_cache import live
    return live(lambda item: isinstance(item, FooterKey) and not item.is_attached)


async def test_the_keys_a_reply_takes_away_are_not_kept(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """Every reply mounts Esc Stop and removes it. Bound to the footer's `compact` by
    Textual's `data_bind`, each key removed stayed in the footer's list of watchers (Textual
    prunes that list only when `compact` changes, which it never does): one widget with its
    styles, caches and message queue kept per reply, all day (benchmarks/bench_ui_soak.py).
    Whatever the number of replies, at most one is kept (the footer's list of its displayed
    children, cached until it is next asked for)."""
    replies = 4
    for _ in range(replies):
        chutes_server.script(Reply(stream_of(["a ", "reply"])))
    app = make_app()
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_until(pilot, lambda: bool(keys(pilot)))
        before = keys_alive_off_screen()  # other tests' apps may still hold some
        for index in range(replies):
            await pilot.press(*f"q{index}", "enter")
            await wait_idle(pilot)
            await wait_until(pilot, lambda: "Stop" not in described(pilot))
        footer = conversation(app).query_one(FittedFooter)
        await wait_until(pilot, lambda: not footer._pruning and all(
            key.is_attached for key in keys(pilot)))
        await wait_until(pilot, lambda: keys_alive_off_screen() <= before + 1, seconds=20)
