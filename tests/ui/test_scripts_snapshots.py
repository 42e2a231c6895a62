"""Snapshots of screens in many scripts: a Devanagari, Tamil, Bengali, CJK and emoji Markdown
table and titles, at 80×24 and 200×60, laid out with the terminal's cell widths (a vowel sign
such as `ी` takes a cell). The same screens in a real terminal: test_tmux_borders.py."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from tests.ui.conftest import AppFactory, conversation
from tests.ui.scripts_demo import seed_scripts
from tui_chat.core.store import Store

SIZES = [(80, 24), (200, 60)]


async def steady(pilot: Pilot[Any]) -> None:
    screen = conversation(pilot.app)
    screen.prompt.cursor_blink = False
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "200x60"])
def test_a_table_in_many_scripts_snapshot(snap_compare: Any, make_app: AppFactory,
                                          store: Store, size: tuple[int, int]) -> None:
    chat = seed_scripts(store)
    assert snap_compare(make_app(conversation=chat.id), terminal_size=size, run_before=steady)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "200x60"])
def test_titles_in_many_scripts_in_the_sidebar_snapshot(snap_compare: Any,
                                                        make_app: AppFactory, store: Store,
                                                        size: tuple[int, int]) -> None:
    chat = seed_scripts(store)

    async def sidebar(pilot: Pilot[Any]) -> None:
        await steady(pilot)
        await pilot.press("ctrl+b")
        await pilot.pause()
        sidebar = conversation(pilot.app).sidebar
        assert sidebar is not None
        await pilot.pause()

    assert snap_compare(make_app(conversation=chat.id), terminal_size=size, run_before=sidebar)
