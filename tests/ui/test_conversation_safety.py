"""Untrusted text stays literal; escape sequences never reach the terminal; first run; links."""

from __future__ import annotations

import pytest
from textual.geometry import Region

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import (
    AppFactory,
    conversation,
    live_reply,
    record_notifications,
    rendered_text,
    wait_idle,
    wait_until,
)
from tui_chat.core.models import MessageStatus
from tui_chat.core.store import Store
from tui_chat.ui.screens.confirm import ConfirmScreen
from tui_chat.ui.widgets.message_view import MessageView
from tui_chat.ui.widgets.reply_view import ReplyView

HOSTILE = ["[bold red]x[/] ", "[@click=app.quit]y[/] ", "x[/] ",
           "\x1b]0;pwned\x07", "\x1b[31mred\x1b[0m ", "\x1b]52;c;aGk=\x07", "\x1b[2J", "done"]


def without_escapes(text: str) -> bool:
    return "\x1b" not in text and "\x07" not in text


async def test_markup_and_escape_sequences_in_a_reply_are_literal_and_inert(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    # First the reply streams and stalls, so the live view can be checked too.
    chutes_server.script(Reply(stream_of(HOSTILE), stall_after=len(HOSTILE), stall_seconds=600))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("h", "enter")
        live = await live_reply(pilot, screen, lambda text: "[/]" in text)
        shown = rendered_text(live)
        assert "[bold red]x[/]" in shown and "[@click=app.quit]y[/]" in shown
        assert "x[/]" in shown and without_escapes(shown)
        assert without_escapes(live.content)
        await pilot.press("escape")
        await wait_idle(pilot)
        assert app.is_running
        view = screen.query(MessageView)[-1]
        assert view.message.status is MessageStatus.INTERRUPTED
        shown = rendered_text(view)
        assert "[bold red]x[/]" in shown and "[@click=app.quit]y[/]" in shown
        assert "x[/]" in shown and without_escapes(shown)


async def test_markup_in_the_users_own_prompt_is_literal(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press(*"[@click=app.quit]q[/] x[/]", "enter")
        await wait_idle(pilot)
        assert app.is_running
        shown = rendered_text(screen.query(MessageView)[0])
        assert "[@click=app.quit]q[/] x[/]" in shown
        title = rendered_text(screen.query_one("#title-bar"))
        assert "[@click=app.quit]q[/] x[/]" in title


async def test_first_run_without_any_key_explains_how_to_add_one(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(key=False)
    async with app.run_test(size=(100, 30)) as pilot:
        notes = record_notifications(app)
        screen = conversation(app)
        hint = rendered_text(screen.query_one("#empty"))
        assert "CHUTES_API_KEY" in hint and "Settings" in hint
        await pilot.press(*"hello", "enter")
        await wait_idle(pilot)
        assert app.is_running
        assert screen.prompt.text == "hello"  # nothing was lost
        errors = [text for severity, text in notes if severity == "error"]
        assert len(errors) == 1 and "No API key is set for Chutes" in errors[0]
        assert "Press F3 (Settings)" in errors[0] and "config.toml" not in errors[0]
    assert chutes_server.requests == []


async def test_a_link_in_the_live_reply_is_text_with_its_address_not_a_hyperlink(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """Links open only through `o` and a confirmation: the live view draws them as text."""
    pieces = ["See [the docs](https://docs.example/a) ", "for more.\n\n", "Next"]
    chutes_server.script(Reply(stream_of(pieces), stall_after=len(pieces) + 1, stall_seconds=600))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("l", "enter")
        live = await live_reply(pilot, screen, lambda text: text.endswith("Next"))
        shown = rendered_text(live)
        assert "See the docs (https://docs.example/a) for more." in shown
        lines = live.render_lines(Region(0, 0, *live.size))
        assert not any(segment.style and segment.style.link
                       for line in lines for segment in line)
        await screen.stop_streaming()


async def test_copy_message_and_last_code_block(make_app: AppFactory,
                                                chutes_server: FakeProvider,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    reply = "Try:\n\n```sh\nls\n```\n\nor:\n\n```python\nprint(1)\n```\n"
    chutes_server.script(Reply(stream_of([reply])))
    app = make_app()
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("q", "enter")
        await wait_idle(pilot)
        await pilot.press("ctrl+o", "c", "y", "up", "c")
    assert copied == [reply, "print(1)\n", "q"]


async def test_store_message_interrupted_when_app_quits_mid_stream(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["partial ", "more"]), stall_after=2,
                               stall_seconds=600))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("q", "enter")
        await wait_until(pilot, lambda: bool(screen.query(ReplyView))
                         and "partial" in screen.query_one(ReplyView).content)
        chat_id = screen.workspace.session.conversation.id
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")  # it asks first while a reply streams (issue 25)
    saved = store.get_messages(chat_id)
    assert saved[-1].status is MessageStatus.INTERRUPTED and saved[-1].content == "partial "


async def test_settings_and_help_open_from_their_keys(make_app: AppFactory) -> None:
    from tui_chat.ui.screens.help import HelpScreen
    from tui_chat.ui.screens.settings import SettingsScreen

    app = make_app(key=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is conversation(app))
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is conversation(app))


async def test_o_offers_the_links_of_a_finished_message_one_by_one(
        make_app: AppFactory, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    chutes_server.script(Reply(stream_of(["See [docs](https://a.example/) and ",
                                          "[code](https://b.example/x)."])))
    app = make_app()
    opened: list[str] = []
    monkeypatch.setattr(app, "open_url", lambda url, **_: opened.append(url))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("q", "enter")
        await wait_idle(pilot)
        await pilot.press("ctrl+o", "o")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
    assert opened == ["https://b.example/x", "https://b.example/x"]


async def test_a_reply_link_that_is_not_http_is_not_offered_to_the_browser(
        make_app: AppFactory, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A model's link to a desktop program's own scheme is not handed on: the rule the links
    of a tool's result follow (core.links). (`file:` is no link at all to the Markdown
    parser, which lets no `file:`, `javascript:`, `vbscript:` or `data:` link through.)"""
    chutes_server.script(Reply(stream_of(["See [a](https://a.example/), ",
                                          "[keys](file:///home/u/.ssh/id_ed25519) and ",
                                          "[b](vscode://x/install?y)."])))
    app = make_app()
    opened: list[str] = []
    monkeypatch.setattr(app, "open_url", lambda url, **_: opened.append(url))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.press("q", "enter")
        await wait_idle(pilot)
        notes = record_notifications(app)
        await pilot.press("ctrl+o", "o")  # the last link first
        await wait_until(pilot, lambda: len(notes) == 1)
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
    assert [text.split(":")[0] for _, text in notes] == ["Not opened"]
    assert "vscode://x/install?y" in notes[0][1] and "only http and https" in notes[0][1]
    assert opened == ["https://a.example/"]


@pytest.mark.parametrize("opens", [False, True])
async def test_opening_a_link_says_what_happened(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, opens: bool) -> None:
    import webbrowser

    tried: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, new=0: tried.append(url) or opens)
    app = make_app()
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=(100, 30), notifications=True):
        notes = record_notifications(app)  # the toast itself goes after 3 s: not a state
        app.open_url("https://a.example/x")
        said = [text for _, text in notes]
    assert tried == ["https://a.example/x"]
    if opens:
        assert said == ["Opened in your browser."] and copied == []
    else:
        assert len(said) == 1 and said[0].startswith("No browser could be opened here")
        assert "https://a.example/x" in said[0] and copied == ["https://a.example/x"]
