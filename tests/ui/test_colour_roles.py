"""Colour roles: warnings, the selection and Markdown content never share a colour, every
Markdown style comes from the theme, and text reads on its background (WCAG contrast)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rich.color import Color as RichColor
from rich.console import Console
from rich.default_styles import DEFAULT_STYLES
from rich.style import Style
from textual.color import Color
from textual.theme import BUILTIN_THEMES, Theme

from tests.ui.conftest import AppFactory, conversation, wait_until
from tests.ui.demo import T0
from tui_chat.core.config import Settings
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.ui import colour_roles
from tui_chat.ui.colour_roles import Palette, contrast, near_hue
from tui_chat.ui.themes import available_theme_names, load_themes
from tui_chat.ui.widgets.message_view import MessageView

SHIPPED, _ = load_themes()
EVERY_THEME = {theme.name: theme for theme in [*BUILTIN_THEMES.values(), *SHIPPED]}
OFFERED = [EVERY_THEME[name] for name in available_theme_names(SHIPPED)]
TRUE_COLOUR = [theme for theme in OFFERED if not theme.ansi]
MARKDOWN_STYLES = [name for name in DEFAULT_STYLES if name.startswith("markdown.")]
CONTENT_COLOURED = ["markdown.h1", "markdown.h2", "markdown.h3", "markdown.block_quote",
                    "markdown.code", "markdown.link", "markdown.list", "markdown.item.number"]
TEXT_STYLES = [*CONTENT_COLOURED, "markdown.h4", "markdown.h5", "markdown.h6",
               "markdown.link_url", "markdown.table.header", "markdown.code_block",
               "markdown.kbd", "tc.error", "tc.warning"]


def ids(themes: list[Theme]) -> list[str]:
    return [theme.name for theme in themes]


def colour_of(style: Style) -> Color:
    assert style.color is not None and style.color.triplet is not None
    return Color(*style.color.triplet)


def background_of(style: Style, palette: Palette) -> Color:
    if style.bgcolor is not None and style.bgcolor.triplet is not None:
        return Color(*style.bgcolor.triplet)
    return palette.background


def test_offered_themes_include_the_shipped_ones() -> None:
    assert {"tui-chat-dusk", "tui-chat-dawn", "tui-chat-forest", "tui-chat-harbor"} <= set(
        ids(OFFERED))


@pytest.mark.parametrize("theme", OFFERED, ids=ids(OFFERED))
def test_no_markdown_style_falls_back_to_rich_defaults(theme: Theme) -> None:
    styles = colour_roles.rich_theme(theme).styles
    for name in MARKDOWN_STYLES:
        assert name in styles, name
    coloured = [name for name in MARKDOWN_STYLES if DEFAULT_STYLES[name].color is not None]
    for name in coloured:  # every style Rich colours is coloured by the theme instead
        assert styles[name].color is not None, name
        if not theme.ansi:  # an ANSI theme's cyan may well be Rich's
            assert styles[name] != DEFAULT_STYLES[name], name
    code = styles["markdown.code"]
    assert code.bgcolor != RichColor.parse("black")  # inline code: no black box


@pytest.mark.parametrize("theme", TRUE_COLOUR, ids=ids(TRUE_COLOUR))
def test_text_reads_on_its_background(theme: Theme) -> None:
    palette = Palette.of(theme)
    styles = colour_roles.rich_theme(theme).styles
    for name in TEXT_STYLES:
        style = styles[name]
        ratio = contrast(colour_of(style), background_of(style, palette))
        assert ratio >= colour_roles.READABLE, f"{name}: {ratio:.2f}"
    code = styles["markdown.code"]
    assert code.bgcolor is not None and code.bgcolor != RichColor.parse("black")


@pytest.mark.parametrize("theme", TRUE_COLOUR, ids=ids(TRUE_COLOUR))
def test_code_block_colours_read_on_the_code_background(theme: Theme) -> None:
    syntax = colour_roles.syntax_theme(colour_roles.code_theme_for(theme))
    assert not isinstance(syntax, str)
    background = syntax.get_background_style().bgcolor
    assert background is not None and background.triplet is not None
    behind = Color(*background.triplet)
    from pygments.token import Comment, Keyword, Name, Number, Operator, String

    for token in (Comment, Comment.Single, Keyword, Name.Function, Name.Builtin, String,
                  Number, Operator):
        style = syntax.get_style_for_token(token)
        if style.color is not None:
            ratio = contrast(colour_of(style), behind)
            assert ratio >= colour_roles.READABLE, f"{token}: {ratio:.2f}"


@pytest.mark.parametrize("theme", TRUE_COLOUR, ids=ids(TRUE_COLOUR))
def test_warnings_selection_and_content_have_distinct_roles(theme: Theme) -> None:
    palette = Palette.of(theme)
    styles = colour_roles.rich_theme(theme).styles
    warnings = [colour_of(styles["tc.error"]), colour_of(styles["tc.warning"]),
                palette.error, palette.warning]
    selection = Color.parse(colour_roles.css_variables(theme)["tc-selection"])
    for name in CONTENT_COLOURED:
        content = colour_of(styles[name])
        assert not any(near_hue(content, warning) for warning in warnings), name
    assert not any(near_hue(selection, warning) for warning in warnings)
    assert near_hue(colour_of(styles["tc.error"]), palette.error) or palette.error.hsl.s < 0.2
    notice = styles["tc.notice"]  # the status line's context warning: a warning-coloured chip
    assert notice.reverse and colour_of(notice) == colour_of(styles["tc.warning"])


def seed_warning_rows(store: Store) -> Conversation:
    """A conversation with a heading, a quote, inline code and a failed reply (fixed dates:
    the sidebar shows them in snapshots)."""
    chat = store.create_conversation(Conversation(title="Roles", created=T0, updated=T0))
    for offset, message in enumerate([
        Message(conversation_id=chat.id, role=Role.USER, content="Quote something"),
        Message(conversation_id=chat.id, role=Role.ASSISTANT, provider="chutes", model="m",
                content="## Heading two\n\n> quoted words\n\nSome `inline_code()` here."),
        Message(conversation_id=chat.id, role=Role.USER, content="Again"),
        Message(conversation_id=chat.id, role=Role.ASSISTANT, provider="chutes", model="m",
                content="", status=MessageStatus.ERROR, error="The provider failed (HTTP 500)."),
    ]):
        message.created = T0 + timedelta(minutes=offset)
        store.add_message(message)
    chat.updated = T0 + timedelta(minutes=3)
    store.update_conversation(chat)
    return chat


def cell_colours(view: MessageView, text: str) -> set[tuple[int, int, int]]:
    """The foreground colours of the cells of `view` that draw `text`."""
    colours: set[tuple[int, int, int]] = set()
    for strip in view.cached.lines:
        for segment in strip:
            if text in segment.text and segment.style and segment.style.color:
                triplet = segment.style.color.get_truecolor()
                colours.add((triplet.red, triplet.green, triplet.blue))
    return colours


@pytest.mark.parametrize("theme", ["tui-chat-dusk", "tui-chat-dawn"])
async def test_the_app_draws_warnings_content_and_selection_apart(
        theme: str, make_app: AppFactory, store: Store) -> None:
    chat = seed_warning_rows(store)
    app = make_app(conversation=chat.id, settings=Settings(theme=theme))
    async with app.run_test(size=(100, 36)) as pilot:
        screen = conversation(app)
        views = screen.message_list.query(MessageView)
        await wait_until(pilot, lambda: len(views) == 4 and all(v.cached.lines for v in views))
        answer, failed = views[1], views[3]
        error = cell_colours(failed, "HTTP 500")
        heading, quote = cell_colours(answer, "Heading two"), cell_colours(answer, "quoted")
        assert error and heading and quote
        assert not error & (heading | quote)
        error_colour = Color(*next(iter(error)))
        assert near_hue(error_colour, Palette.of(app.current_theme).error)
        code = app.console.get_style("markdown.code")
        assert code.bgcolor is not None and code.bgcolor.triplet is not None
        assert contrast(colour_of(code), Color(*code.bgcolor.triplet)) >= 4.5
        await pilot.press("ctrl+o")
        screen.message_list.selected = 1
        await wait_until(pilot, lambda: answer.has_class("-selected"))
        border = answer.styles.border_left[1]
        assert not near_hue(border, Palette.of(app.current_theme).error)
        assert not near_hue(border, Palette.of(app.current_theme).warning)


async def test_a_theme_change_recolours_the_drawn_messages(make_app: AppFactory,
                                                           store: Store) -> None:
    chat = seed_warning_rows(store)
    app = make_app(conversation=chat.id, settings=Settings(theme="tui-chat-dusk"))
    async with app.run_test(size=(100, 36)) as pilot:
        views = conversation(app).message_list.query(MessageView)
        await wait_until(pilot, lambda: len(views) == 4 and all(v.cached.lines for v in views))
        before = cell_colours(views[3], "HTTP 500")
        app.theme = "tui-chat-dawn"
        await wait_until(pilot, lambda: bool(views[3].cached.lines)
                         and cell_colours(views[3], "HTTP 500") != before)
        assert cell_colours(views[3], "HTTP 500") == {
            colour_of(app.console.get_style("tc.error")).rgb}


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_markdown_styles_follow_the_theme_the_app_starts_with(
        theme: str, make_app: AppFactory) -> None:
    """Even Textual's own first theme (setting it again is no change: no watcher runs)."""
    app = make_app(settings=Settings(theme=theme))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.theme == theme
        expected = colour_roles.rich_theme(app.current_theme).styles["markdown.code"]
        assert app.console.get_style("markdown.code") == expected


def test_each_new_console_gets_the_theme_even_where_an_old_one_was() -> None:
    """Consoles made one after another, as each app of a process makes its own: a new one
    often takes the address (the id) of one gone, and was then taken for it (left without
    the theme, or its base theme popped)."""
    themes = [BUILTIN_THEMES["textual-dark"], BUILTIN_THEMES["textual-light"]]
    for index in range(20):
        console = Console()
        theme = themes[index % 2]
        colour_roles.apply(console, theme)
        assert console.get_style("tc.error") == colour_roles.rich_theme(theme).styles["tc.error"]
        del console
