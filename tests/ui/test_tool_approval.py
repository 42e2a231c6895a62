"""The tool approval dialog (ui/screens/tool_approval.py): every answer by its key, a
denial's reason, a stray Enter that approves nothing, and hostile server, tool and argument
text drawn as the characters it is."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from tui_chat.core.mcp.approval import Answer
from tui_chat.core.mcp.loop import Approval
from tui_chat.ui.screens.tool_approval import ToolApprovalScreen, arguments_text

HOSTILE = {"text": "[bold]x[/] [@click=app.quit]click[/] \x1b]0;owned\x07\x1b[2J",
           "nested": {"markup": "[/]"}}


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.results: list[Approval] = []

    def compose(self) -> ComposeResult:
        yield Static("host")

    def ask(self, screen: ToolApprovalScreen) -> None:
        self.push_screen(screen, self.results.append)


def dialog(**kwargs: Any) -> ToolApprovalScreen:
    return ToolApprovalScreen(kwargs.pop("server", "time"), kwargs.pop("tool", "get_time"),
                              kwargs.pop("arguments", {"timezone": "Asia/Kolkata"}), **kwargs)


def shown_text(app: App[None]) -> str:
    """Every Static's content on the screen, as plain text."""
    return "\n".join(str(static.content) for static in app.screen.query(Static))


@pytest.mark.parametrize(("key", "answer"), [("1", Answer.ONCE), ("2", Answer.ALWAYS_TOOL),
                                             ("3", Answer.ALWAYS_SERVER), ("d", Answer.DENY),
                                             ("escape", Answer.DENY)])
async def test_each_key_answers(key: str, answer: Answer) -> None:
    app = Host()
    async with app.run_test() as pilot:
        app.ask(dialog())
        await pilot.pause()
        await pilot.press(key)
        await pilot.pause()
        assert app.results == [Approval(answer, "")]


async def test_stray_enter_approves_nothing() -> None:
    app = Host()
    async with app.run_test() as pilot:
        app.ask(dialog())
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == [] and isinstance(app.screen, ToolApprovalScreen)


async def test_denial_with_a_reason() -> None:
    app = Host()
    async with app.run_test() as pilot:
        app.ask(dialog())
        await pilot.pause()
        await pilot.press("r", *"not 1 now", "enter")  # the keys type into the reason
        await pilot.pause()
        assert app.results == [Approval(Answer.DENY, "not 1 now")]


async def test_buttons_answer() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        app.ask(dialog())
        await pilot.pause()
        await pilot.click("#server")
        await pilot.pause()
        assert app.results == [Approval(Answer.ALWAYS_SERVER, "")]


async def test_hostile_text_is_drawn_as_characters() -> None:
    app = Host()
    async with app.run_test(size=(120, 40)) as pilot:
        app.ask(dialog(server="[red]srv[/]", tool="[@click=app.quit]t[/]", arguments=HOSTILE,
                       description="[b]desc\x1b[31m"))
        await pilot.pause()
        text = shown_text(app)
        assert "[red]srv[/]" in text and "[@click=app.quit]t[/]" in text
        assert "[bold]x[/] [@click=app.quit]click[/]" in text and '"markup": "[/]"' in text
        assert "[b]desc" in text
        assert "\x1b" not in text and "\x07" not in text
        drawn = app.export_screenshot()  # the frame: brackets as characters, no ESC
        assert "[@click=app.quit]click[/]" in drawn.replace("&#160;", " ")
        assert "\x1b" not in drawn
        await pilot.press("1")
        await pilot.pause()
        assert app.results == [Approval(Answer.ONCE, "")]  # the app did not quit


def test_long_arguments_are_cut_with_a_marker() -> None:
    text = arguments_text({"blob": "x" * 1_000_000}, limit=1000)
    assert len(text.plain) < 1100
    assert text.plain.endswith("more characters not shown")


def test_arguments_that_are_not_json_show_as_they_are() -> None:
    assert arguments_text('{"a": 1').plain == '{"a": 1'
    assert arguments_text('{"a": 1}').plain == '{\n  "a": 1\n}'
