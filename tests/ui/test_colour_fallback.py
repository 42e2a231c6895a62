"""Colour fallbacks and the focus cue, by snapshot: the conversation (a warning row, a selected
message) under NO_COLOR and in a 256-colour terminal, and the focused pane.

Textual draws NO_COLOR through its Monochrome filter (every colour made grey, attributes
kept): the selection keeps its two bars, the error row its reverse video. A 256-colour
terminal gets Rich's nearest palette colour for each one when the screen is written; a
screenshot is always true colour, so the 256-colour snapshot draws through a filter that does
what the terminal's console does (`Color.downgrade`)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import pytest
from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter
from textual.pilot import Pilot

from tests.ui.conftest import AppFactory, conversation, wait_until
from tests.ui.test_colour_roles import SHIPPED, seed_warning_rows
from tui_chat.core.store import Store
from tui_chat.ui import colour_roles
from tui_chat.ui.colour_roles import Palette
from tui_chat.ui.widgets.conversation_list import ConversationList
from tui_chat.ui.widgets.message_view import MessageView
from tui_chat.ui.widgets.prompt_input import PromptInput

SIZE = (90, 30)


@functools.lru_cache(maxsize=4096)
def eight_bit(style: Style) -> Style:
    colour = style.color.downgrade(ColorSystem.EIGHT_BIT) if style.color else None
    back = style.bgcolor.downgrade(ColorSystem.EIGHT_BIT) if style.bgcolor else None
    return style + Style.from_color(colour, back)


class EightBit(LineFilter):
    """What a 256-colour terminal's console writes: each colour's nearest palette entry."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [Segment(text, eight_bit(style) if style else style, control)
                for text, style, control in segments]


def palette_number(colour: Color) -> int | None:
    return Style(color=colour.rich_color).color.downgrade(  # type: ignore[union-attr]
        ColorSystem.EIGHT_BIT).number


@pytest.mark.parametrize("theme", SHIPPED, ids=[theme.name for theme in SHIPPED])
def test_roles_stay_apart_in_256_colours(theme: Any) -> None:
    palette = Palette.of(theme)
    styles = colour_roles.rich_theme(theme).styles
    selection = Color.parse(colour_roles.css_variables(theme)["tc-selection"])
    error = Color(*styles["tc.error"].color.triplet)  # type: ignore[union-attr,misc]
    warning = Color(*styles["tc.warning"].color.triplet)  # type: ignore[union-attr,misc]
    numbers = {palette_number(colour) for colour in (selection, error, warning)}
    assert len(numbers) == 3
    assert palette_number(palette.background) not in numbers
    tint = palette.background.blend(selection, 0.2)  # the selected message's background
    assert palette_number(tint) != palette_number(palette.background)


async def selected_failure(pilot: Pilot[Any]) -> None:
    """The conversation with its failed reply selected, every message drawn."""
    screen = conversation(pilot.app)
    screen.prompt.cursor_blink = False
    views = screen.message_list.query(MessageView)
    await wait_until(pilot, lambda: len(views) == 4 and all(v.cached.lines for v in views))
    await pilot.press("ctrl+o")
    screen.message_list.selected = 3
    await wait_until(pilot, lambda: views[3].has_class("-selected"))
    await pilot.pause()


def test_conversation_without_colour_snapshot(snap_compare: Any, make_app: AppFactory,
                                              store: Store,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(conversation=seed_warning_rows(store).id)
    assert app.no_color
    assert snap_compare(app, terminal_size=SIZE, run_before=selected_failure)


def test_conversation_in_256_colours_snapshot(snap_compare: Any, make_app: AppFactory,
                                              store: Store) -> None:
    app = make_app(conversation=seed_warning_rows(store).id)
    filters = app.get_line_filters

    def with_eight_bit() -> Sequence[LineFilter]:
        return [*filters(), EightBit()]

    app.get_line_filters = with_eight_bit  # type: ignore[method-assign]
    assert snap_compare(app, terminal_size=SIZE, run_before=selected_failure)


def test_focused_sidebar_snapshot(snap_compare: Any, make_app: AppFactory,
                                  store: Store) -> None:
    async def sidebar_focused(pilot: Pilot[Any]) -> None:
        screen = conversation(pilot.app)
        screen.prompt.cursor_blink = False
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: bool(screen.query(ConversationList)))
        await pilot.press("down")
        await wait_until(pilot, lambda: screen.query_one(ConversationList).has_focus_within)
        await pilot.pause()

    app = make_app(conversation=seed_warning_rows(store).id)
    assert snap_compare(app, terminal_size=SIZE, run_before=sidebar_focused)


async def test_only_the_focused_pane_has_the_focus_colour(make_app: AppFactory,
                                                          store: Store) -> None:
    app = make_app(conversation=seed_warning_rows(store).id)
    async with app.run_test(size=SIZE) as pilot:
        screen = conversation(app)
        focus = Color.parse(app.theme_variables["border"])
        prompt = screen.query_one(PromptInput)
        await wait_until(pilot, lambda: prompt.has_focus)
        assert prompt.styles.border_top[1] == focus
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: bool(screen.query(ConversationList)))
        sidebar = screen.query_one(ConversationList)
        await pilot.press("down")
        await wait_until(pilot, lambda: sidebar.has_focus_within)
        await pilot.pause()
        assert sidebar.styles.border_right[1] == focus
        assert prompt.styles.border_top[1] != focus
        await pilot.press("ctrl+o")
        messages = screen.message_list
        await wait_until(pilot, lambda: messages.has_focus)
        await pilot.pause()
        assert messages.styles.outline_left[1] == focus
        assert sidebar.styles.border_right[1] != focus
        assert prompt.styles.border_top[1] != focus


async def test_the_focused_settings_field_has_its_label_in_the_focus_colour(
        make_app: AppFactory) -> None:
    from textual.widgets import Label

    from tui_chat.ui.screens.settings import SettingsScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen)
                         and app.focused is not None)
        await pilot.pause()
        focus = Color.parse(app.theme_variables["border"])
        labels = list(app.screen.query(".row > .label").results(Label))
        lit = [label for label in labels if label.styles.color == focus]
        assert len(labels) > 3 and len(lit) == 1
        assert app.focused is not None and lit[0].parent in app.focused.ancestors_with_self
