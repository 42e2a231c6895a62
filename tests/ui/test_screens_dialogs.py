"""Confirm, text prompt and help screens, in a small host app of the test's own."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static

from tui_chat.ui.screens.confirm import ConfirmScreen, TextPromptScreen
from tui_chat.ui.screens.help import HelpScreen, collect_key_help


class Host(App[None]):
    """Records what each pushed screen dismissed with."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "new", "New conversation", id="app.new"),
        Binding("f1", "help", "Help", id="app.help"),
        Binding("ctrl+b", "toggle_sidebar", "Toggle sidebar", id="app.sidebar"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.results: list[Any] = []

    def compose(self) -> ComposeResult:
        yield Static("host")

    def ask(self, screen: Screen[Any]) -> None:
        self.push_screen(screen, self.results.append)


class ChatScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "regenerate", "Regenerate the last reply", id="chat.regenerate"),
        Binding("ctrl+y", "copy", "Copy message", id="chat.copy"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("chat")


async def test_confirm_yes_no_and_escape() -> None:
    app = Host()
    async with app.run_test() as pilot:
        app.ask(ConfirmScreen("Delete '[bold]x[/]'?", danger=True))
        await pilot.pause()
        question = app.screen.query_one(".question", Static)
        assert str(question.render()) == "Delete '[bold]x[/]'?"  # literal, no markup
        await pilot.press("enter")  # focus starts on "No": a stray Enter is safe
        app.ask(ConfirmScreen("Sure?"))
        await pilot.pause()
        await pilot.press("y")
        app.ask(ConfirmScreen("Sure?"))
        await pilot.pause()
        await pilot.press("escape")
        app.ask(ConfirmScreen("Sure?"))
        await pilot.pause()
        await pilot.click("#yes")
        await pilot.pause()
    assert app.results == [False, True, False, True]


async def test_text_prompt_trims_refuses_empty_and_cancels() -> None:
    app = Host()
    async with app.run_test() as pilot:
        app.ask(TextPromptScreen("Rename to:", "old\x1b]0;t\x07 title"))
        await pilot.pause()
        field = app.screen.query_one("#answer")
        assert field.value == "old]0;t title"  # type: ignore[attr-defined]
        field.value = "   "  # type: ignore[attr-defined]
        await pilot.press("enter")
        assert isinstance(app.screen, TextPromptScreen)
        assert "Type some text" in str(app.screen.query_one("#problem").render())
        field.value = "  New\ttitle  "  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        app.ask(TextPromptScreen("Rename to:", "x"))
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == ["New title", None]


async def test_help_lists_every_described_binding_generated_from_bindings() -> None:
    app = Host()
    async with app.run_test() as pilot:
        chat = ChatScreen()
        await app.push_screen(chat)
        rows = collect_key_help(app, chat)
        text = {(row.group, row.keys, row.description) for row in rows}
        assert ("App", "Ctrl+N", "New conversation") in text
        assert ("App", "Ctrl+B", "Toggle sidebar") in text
        assert ("App", "Ctrl+P", "Command palette") in text
        assert ("App", "Ctrl+Q", "Quit") in text
        assert ("Chat screen", "Ctrl+R", "Regenerate the last reply") in text
        assert ("Prompt", "Ctrl+J", "Insert a new line in the prompt (in every terminal)") in text
        assert ("Prompt", "Alt+Enter",
                "Insert a new line (in terminals that report Alt+Enter)") in text
        assert ("Prompt", "Enter", "Send the prompt") in text
        app.push_screen(HelpScreen())
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        rendered = _plain(app, app.screen.query_one("#help-table", Static))
        for needle in ("Regenerate the last reply", "Copy message", "New conversation",
                       "Insert a new line in the prompt", "Command palette"):
            assert needle in rendered
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is chat


def _plain(app: App[Any], widget: Static) -> str:
    """The text the widget draws on screen."""
    lines = widget.render_lines(widget.region.reset_offset)  # type: ignore[arg-type]
    return "\n".join(line.text for line in lines)
