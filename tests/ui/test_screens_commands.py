"""The command palette provider: every described binding and every theme, run by name."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.command import CommandList, CommandPalette
from textual.screen import Screen
from textual.widgets import Static

from tests.ui.conftest import AppFactory, wait_until
from tui_chat.ui.commands import ActionCommands, all_commands
from tui_chat.ui.themes import install_themes


class ChatScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "regenerate(False)", "Regenerate", id="chat.regenerate",
                tooltip="Regenerate the last reply"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("chat")

    def action_regenerate(self, other_model: bool) -> None:
        self.app.ran.append(f"regenerate({other_model})")  # type: ignore[attr-defined]


class Host(App[None]):
    COMMANDS = App.COMMANDS | {ActionCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+b", "toggle_sidebar", "Sidebar", id="app.sidebar",
                tooltip="Show or hide the conversation list"),
        Binding("f3", "settings", "Settings", id="app.settings"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.ran: list[str] = []

    def on_mount(self) -> None:
        install_themes(self, "tui-chat-dusk")
        self.push_screen(ChatScreen())

    def action_toggle_sidebar(self) -> None:
        self.ran.append("toggle_sidebar")

    def action_settings(self) -> None:
        self.ran.append("settings")


async def run_from_palette(pilot: Any, app: Host, query: str) -> None:
    await pilot.press("ctrl+p")
    await pilot.pause()
    assert isinstance(app.screen, CommandPalette)
    await pilot.press(*query)
    # The palette searches in the background: until it has found something.
    await wait_until(pilot, lambda: bool(app.screen.query_one(CommandList).option_count))
    await pilot.press("enter")
    await pilot.pause()
    await pilot.pause()


async def test_commands_come_from_bindings_and_themes() -> None:
    app = Host()
    async with app.run_test() as pilot:
        await pilot.pause()
        commands = {c.title: c.help for c in all_commands(app, app.screen)}
        # The title names it; the line under it describes it, with its key.
        assert commands["Regenerate"] == "Regenerate the last reply · Ctrl+R"
        assert commands["Sidebar"] == "Show or hide the conversation list · Ctrl+B"
        assert commands["Settings"] == "Key: F3"
        assert "Theme: tui-chat-forest" in commands and "Theme: nord" in commands
        assert not any("palette" in title.lower() for title in commands)


async def test_palette_runs_app_and_screen_actions_by_name() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await run_from_palette(pilot, app, "sideb")
        await run_from_palette(pilot, app, "regen")
        await run_from_palette(pilot, app, "forest")
        assert app.theme == "tui-chat-forest"
    assert app.ran == ["toggle_sidebar", "regenerate(False)"]


async def test_the_app_palette_lists_tui_chats_commands_first_without_textuals_noise(
        make_app: AppFactory) -> None:
    """Issue 25: the conversation's commands come first, then its widgets' (named with their
    group), the app's, those without a key and the theme list; Textual's Focus Next,
    Maximize, Screenshot and Keys are not listed; help lines describe, markup-free."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        commands = all_commands(app, app.screen)
        titles = [c.title for c in commands]
        assert titles[:3] == ["Stop", "Regenerate", "New"]
        assert titles.index("Prompt: Clear") < titles.index("Quit") < titles.index("Theme")
        assert titles.index("Compare models…") < titles.index("Theme")
        for noise in ("Focus Next", "Focus Previous", "Maximize", "Screenshot", "Keys",
                      "Copy selected text"):
            assert noise not in titles
        helps = {c.title: c.help for c in commands}
        assert helps["New"] == "Start a new conversation · Ctrl+N"
        assert "block [n]" in helps["Message list: Copy code"]
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette)
                         and app.screen.query_one(CommandList).option_count > 0)
        await pilot.press(*"screenshot")
        await pilot.pause()
        listed = app.screen.query_one(CommandList)
        shown = [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]
        assert not any("Screenshot" in row for row in shown), shown
