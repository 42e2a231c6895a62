"""Input a tool server asks for, in the app (ui/screens/elicitation.py through
ui/tool_approval_glue.ScreenAsker): the form built from the schema, its answers checked with
one sentence per bad field, accept / decline / cancel, URL mode's domain and its yes before
anything opens, hostile text drawn as the characters it is; and against server-everything,
its own form and page filled in and answered through the app's dialogs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Checkbox, Input, Select, SelectionList, Static

from tests.mcp.conftest import everything  # noqa: F401  (the fixture: server-everything)
from tui_chat.core.mcp.elicitation import ElicitAnswer, ElicitRequest
from tui_chat.ui.screens.elicitation import ElicitFormScreen, ElicitUrlScreen
from tui_chat.ui.tool_approval_glue import ScreenAsker

HOSTILE = "[bold]x[/] [@click=app.quit]click[/] \x1b]0;owned\x07"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "title": HOSTILE, "description": "list[int] \x1b[2J"},
        "days": {"type": "integer", "title": "Days", "minimum": 1, "maximum": 14,
                 "default": 3},
        "sure": {"type": "boolean", "title": "Sure?"},
        "pet": {"type": "string", "title": "Pet", "enum": ["p1", "p2"],
                "enumNames": ["[red]Cat[/]", "Dog"]},
        "fish": {"type": "array", "title": "Fish",
                 "items": {"anyOf": [{"const": "f1", "title": "Tuna"},
                                     {"const": "f2", "title": "Trout"}]}},
    },
    "required": ["city"],
}


class Host(App[None]):
    """An app whose asker answers server requests; `opened` keeps the pages it would open."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []
        self.answers: list[ElicitAnswer] = []

    def compose(self) -> ComposeResult:
        yield Static("host")

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        self.opened.append(url)

    def start(self, request: ElicitRequest) -> asyncio.Task[None]:
        async def asked() -> None:
            self.answers.append(await ScreenAsker(self.screen).elicit(request))

        return asyncio.create_task(asked())


async def until(pilot: Any, done: Any) -> None:
    for _ in range(400):
        if done():
            return
        await pilot.pause()
    raise AssertionError("never")


def shown_text(app: App[None]) -> str:
    return "\n".join(str(static.content) for static in app.screen.query(Static))


def form(app: Host) -> ElicitFormScreen:
    screen = app.screen
    assert isinstance(screen, ElicitFormScreen)
    return screen


async def test_the_form_is_built_from_the_schema_and_drawn_literally() -> None:
    app = Host()
    async with app.run_test(size=(100, 50)) as pilot:
        app.start(ElicitRequest("s[/]", "Where to? [/]", SCHEMA, None))
        await until(pilot, lambda: isinstance(app.screen, ElicitFormScreen))
        screen = form(app)
        assert [type(w) for w in (screen.query_one(f"#field-{i}") for i in range(5))] == [
            Input, Input, Checkbox, Select, SelectionList]
        assert screen.query_one("#field-1", Input).value == "3"  # the server's default
        text = shown_text(app)
        assert "The tool server s[/] asks: Where to? [/]" in text
        assert "[bold]x[/] [@click=app.quit]click[/] ]0;owned *" in text
        assert "list[int] [2J" in text and "1 to 14" in text
        assert "\x1b" not in text
        assert screen.query_one(Input).has_focus


async def test_bad_answers_get_their_sentences_and_the_form_stays() -> None:
    app = Host()
    async with app.run_test(size=(100, 50)) as pilot:
        app.start(ElicitRequest("s", "Where to?", SCHEMA, None))
        await until(pilot, lambda: isinstance(app.screen, ElicitFormScreen))
        screen = form(app)
        screen.query_one("#field-1", Input).value = "30"
        await pilot.press("enter")  # in the first field: sends, and is refused
        await pilot.pause()
        assert app.answers == [] and app.screen is screen
        problems = [str(s.content) for s in screen.query(".problem") if not
                    s.has_class("-none")]
        assert problems == ["[bold]x[/] [@click=app.quit]click[/] ]0;owned is required.",
                            "Days must be 1 to 14."]
        assert screen.query_one("#field-0", Input).has_focus
        await pilot.press(*"Pune")
        screen.query_one("#field-1", Input).value = "7"
        screen.query_one("#field-3", Select).value = "p2"
        screen.query_one("#field-4", SelectionList).select("f2")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.answers)
        assert app.answers == [("accept", {"city": "Pune", "days": 7, "sure": False,
                                           "pet": "p2", "fish": ["f2"]})]


async def test_decline_and_cancel() -> None:
    app = Host()
    async with app.run_test(size=(100, 50)) as pilot:
        for key in ("ctrl+n", "escape"):
            app.start(ElicitRequest("s", "Where to?", SCHEMA, None))
            await until(pilot, lambda: isinstance(app.screen, ElicitFormScreen))
            await pilot.press(key)
            await until(pilot, lambda: not isinstance(app.screen, ElicitFormScreen))
        await until(pilot, lambda: len(app.answers) == 2)
        assert app.answers == [("decline", None), ("cancel", None)]


async def test_a_form_no_dialog_can_show_is_declined_with_a_sentence() -> None:
    app = Host()
    async with app.run_test(notifications=True) as pilot:
        nested = {"type": "object", "properties": {"a": {"type": "object"}}}
        app.start(ElicitRequest("s", "?", nested, None))
        await until(pilot, lambda: app.answers)
        assert app.answers == [("decline", None)]
        [note] = app._notifications
        assert note.message == ("The tool server s asked for input, declined: its field 'a' "
                                "is of a kind tui-chat cannot ask for.")


async def test_url_mode_shows_the_domain_and_opens_only_on_a_yes() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        url = "https://login.example.com/auth?x=[/]"
        app.start(ElicitRequest("s", "Sign in", None, url))
        await until(pilot, lambda: isinstance(app.screen, ElicitUrlScreen))
        assert "It asks you to open a page on login.example.com:" in shown_text(app)
        assert url in shown_text(app)
        await pilot.press("enter")  # a stray Enter opens nothing
        await pilot.pause()
        assert app.opened == [] and isinstance(app.screen, ElicitUrlScreen)
        await pilot.press("o")
        await until(pilot, lambda: app.answers)
        assert app.answers == [("accept", None)] and app.opened == [url]
        app.start(ElicitRequest("s", "Sign in", None, url))
        await until(pilot, lambda: isinstance(app.screen, ElicitUrlScreen))
        await pilot.press("d")
        await until(pilot, lambda: len(app.answers) == 2)
        assert app.answers[1] == ("decline", None) and app.opened == [url]


async def test_a_page_that_is_not_on_the_web_is_never_opened() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        app.start(ElicitRequest("s", "Look", None, "file:///etc/passwd"))
        await until(pilot, lambda: isinstance(app.screen, ElicitUrlScreen))
        assert "Not opened: the page it gives is not an http(s) address" in shown_text(app)
        await pilot.press("o")
        await pilot.pause()
        assert app.answers == [] and isinstance(app.screen, ElicitUrlScreen)
        await pilot.press("escape")
        await until(pilot, lambda: app.answers)
        assert app.answers == [("cancel", None)] and app.opened == []


async def test_server_everything_asks_and_the_app_answers(
        everything: Path) -> None:  # noqa: F811
    from tui_chat.core.mcp.config import McpServerConfig, McpSettings
    from tui_chat.core.mcp.manager import ServerManager

    app = Host()
    async with app.run_test(size=(100, 60)) as pilot:
        manager = ServerManager(McpSettings(servers={"everything": McpServerConfig(
            command=str(everything), args=["stdio"])}), elicit=ScreenAsker(app.screen).elicit)
        try:
            await manager.tools()
            form_tool = manager.find("everything__trigger-elicitation-request")
            url_tool = manager.find("everything__trigger-url-elicitation")
            assert form_tool is not None and url_tool is not None
            call = asyncio.create_task(manager.call(form_tool, {}))
            await until(pilot, lambda: isinstance(app.screen, ElicitFormScreen))
            await pilot.press(*"Asha")
            await pilot.press("ctrl+s")
            outcome = await call
            assert "- Name: Asha" in outcome.text and "- Favorite Integer: 42" in outcome.text
            page = "https://example.com/consent"
            call = asyncio.create_task(manager.call(url_tool, {"url": page}))
            await until(pilot, lambda: isinstance(app.screen, ElicitUrlScreen))
            assert "example.com" in shown_text(app)
            await pilot.press("o")
            assert "User completed the URL elicitation flow" in (await call).text
            assert app.opened == [page]
        finally:
            await manager.aclose()


async def test_ctrl_s_typed_right_after_the_text_sends_that_text() -> None:
    """Keys that arrive together (a fast typist, a terminal's burst) are taken in order:
    Ctrl+S is not a priority binding, which would run ahead of the field's pending keys."""
    app = Host()
    async with app.run_test(size=(100, 50)) as pilot:
        app.start(ElicitRequest("s", "Where to?", SCHEMA, None))
        await until(pilot, lambda: isinstance(app.screen, ElicitFormScreen))
        for key, character in (*((c, c) for c in "Pune"), ("ctrl+s", None)):
            app.post_message(events.Key(key, character))  # all queued before any is handled
        await until(pilot, lambda: app.answers)
        assert app.answers[0][0] == "accept" and app.answers[0][1] is not None
        assert app.answers[0][1]["city"] == "Pune"
