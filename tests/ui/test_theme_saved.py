"""A theme chosen in the palette is saved to config.toml (comments kept), not only used for
the session."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette

from tests.ui.conftest import AppFactory, record_notifications, wait_until
from tui_chat.core.config import load_settings

CONFIG = '# my settings\nmax_retries = 2   # fewer retries\n'


def saved_text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


async def test_a_theme_chosen_in_the_palette_is_saved_to_config(
        make_app: AppFactory, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    app = make_app(settings=load_settings(path))
    async with app.run_test(size=(100, 30)) as pilot:
        app.action_change_theme()
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"nord")
        await wait_until(pilot, lambda: bool(app.screen.query("CommandList").first().option_count))
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: 'theme = "nord"' in saved_text(path))
        assert app.theme == "nord" and app.workspace.settings.theme == "nord"
    text = saved_text(path)
    assert text.startswith(CONFIG) and load_settings(path).theme == "nord"


async def test_a_theme_not_saved_for_a_broken_config_says_so(
        make_app: AppFactory, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("this is not toml = = =\n", encoding="utf-8")
    app = make_app()
    app.services.config_notice = "The config file has a problem."
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        notes = record_notifications(app)
        app.action_change_theme()
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"nord")
        await wait_until(pilot, lambda: bool(app.screen.query("CommandList").first().option_count))
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: any("this session only" in text for _, text in notes))
        assert app.theme == "nord"
    assert saved_text(path) == "this is not toml = = =\n"


async def test_a_theme_command_of_the_main_palette_is_saved_too(
        make_app: AppFactory, tmp_path: Path) -> None:
    """"Theme: NAME" in Ctrl+P does what the "Theme" list does (the README: either way it is
    saved), not only use it for the session."""
    from tui_chat.ui.commands import all_commands

    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    app = make_app(settings=load_settings(path))
    async with app.run_test(size=(100, 30)) as pilot:
        commands = {c.title: c for c in all_commands(app, app.screen)}
        commands["Theme: nord"].run()
        await wait_until(pilot, lambda: app.workspace.settings.theme == "nord")
        assert app.theme == "nord" and 'theme = "nord"' in saved_text(path)
