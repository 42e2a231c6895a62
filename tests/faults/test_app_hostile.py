"""Issue 6, hostile text in the app: markup, escape sequences, bidi overrides, zero-width
characters and a 100,000-character line, in a streamed reply and in an imported conversation,
are shown literally, run no action, and no control byte reaches the terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.faults.pilot import wait_idle
from tests.ui.conftest import (
    AppFactory,
    conversation,
    record_notifications,
    rendered_text,
    wait_until,
)
from tui_chat import cli
from tui_chat.core.models import MessageStatus
from tui_chat.core.store import Store
from tui_chat.ui.app import TuiChatApp
from tui_chat.ui.widgets.conversation_list import ConversationList
from tui_chat.ui.widgets.message_view import MessageView
from tui_chat.ui.widgets.reply_view import ReplyView

LITERAL = ["[bold]x[/]", "[@click=app.quit]y[/]", "x[/]", "[link=https://evil.example]z[/link]"]
CONTROLS = ["\x1b[31mred\x1b[0m", "\x1b]0;pwned-title\x07", "\x1b]52;c;cHduZWQ=\x07", "\x1b[2J",
            "\x9b2J", "\x1bP+q\x1b\\", "\u202eevil\u202c", "a\u200bb\u200cc\u200dd\ufeffe"]
LONG_LINE = "L" * 100_000
PIECES = [*[f"{text} \n\n" for text in LITERAL], *[f"{text} \n\n" for text in CONTROLS],
          LONG_LINE, "\n\nend"]
ALLOWED_SEQUENCE = re.compile(r"\x1b\[[0-9;]*[mH]")  # colours and cursor moves from Textual


def terminal_bytes(app: TuiChatApp) -> str:
    """Everything Textual would write to the terminal for a full repaint of the screen."""
    update = app.screen._compositor.render_full_update()
    return update.render_segments(app.console)


def assert_terminal_safe(app: TuiChatApp) -> str:
    raw = terminal_bytes(app)
    rest = ALLOWED_SEQUENCE.sub("", raw)
    bad = sorted({hex(ord(c)) for c in rest if (ord(c) < 0x20 and c != "\n")
                  or 0x7F <= ord(c) < 0xA0 or 0x202A <= ord(c) <= 0x202E})
    assert not bad, bad
    return rest


def assert_literal(shown: str) -> None:
    flat = "".join(shown.split())
    for text in LITERAL:
        assert "".join(text.split()) in flat, text


def assert_nothing_ran(app: TuiChatApp, notes: list[tuple[str, str]]) -> None:
    assert app.is_running and app.title == "tui-chat"
    assert app.clipboard == ""
    assert not [n for n in notes if n[0] == "error"], notes


async def assert_responsive(pilot: Pilot[Any]) -> None:
    screen = conversation(pilot.app)
    screen.prompt.focus()
    await pilot.press("o", "k")  # Pilot waits for the keys to be handled: a hung loop hangs here
    assert screen.prompt.text.endswith("ok")


async def test_hostile_streamed_reply(make_app: AppFactory, store: Store,
                                      chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(PIECES[:-2]), stall_after=len(PIECES) - 1,
                               stall_seconds=600))
    chutes_server.script(Reply(stream_of(PIECES)))
    app = make_app()
    async with app.run_test(size=(100, 40), notifications=True) as pilot:
        notes = record_notifications(app)
        screen = conversation(app)
        # While it streams (stalled before the long line): the live view.
        screen.prompt.insert("show me")
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(screen.query(ReplyView))
                         and screen.query_one(ReplyView).content.count("\n\n") >= 12)
        live = screen.query_one(ReplyView)
        await wait_until(pilot, lambda: live.caught_up)
        await pilot.pause()
        assert_literal(rendered_text(live))
        assert_terminal_safe(app)
        await pilot.press("escape")
        await wait_idle(pilot)
        # The whole reply, with the 100,000-character line, finished.
        screen.prompt.clear()
        screen.prompt.insert("again")
        await pilot.press("enter")
        await wait_idle(pilot)
        view = screen.query(MessageView)[-1]
        assert view.message.status is MessageStatus.COMPLETE
        assert LONG_LINE in view.message.content
        assert_literal(rendered_text(view))
        screen.message_list.scroll_end(animate=False)
        await pilot.pause()
        assert_terminal_safe(app)
        assert_nothing_ran(app, notes)
        await assert_responsive(pilot)
        saved = store.get_message(view.message.id)
        assert saved.content == view.message.content  # stored as it came, shown sanitized
        await pilot.press("ctrl+q")
    assert app.return_code == 0


def hostile_export(path: Path) -> Path:
    hostile = " ".join([*LITERAL, *CONTROLS])
    stamp = "2026-11-30T05:00:00.000000+00:00"

    def message(index: int, role: str, content: str, **extra: Any) -> dict[str, Any]:
        return {"id": f"hostile-msg-{index}", "role": role, "content": content,
                "status": "complete", "created": stamp, **extra}

    data = {"format": "tui-chat-conversations", "version": 1, "exported": stamp,
            "conversations": [{
                "id": "hostile-conversation-0001", "title": f"{hostile} title",
                "created": stamp, "updated": stamp, "provider": "chutes",
                "model": "[@click=app.quit]m[/]\x1b]0;pwned-title\x07",
                "messages": [
                    message(1, "user", f"user says {hostile}"),
                    message(2, "assistant", f"{hostile}\n\n{LONG_LINE}\n\nend",
                            reasoning=f"thinking {hostile}",
                            model="[bold]model[/]\x1b[2J", provider="chutes"),
                    message(3, "assistant", "", status="error",
                            error=f"failed {hostile}"),
                ]}]}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


async def test_hostile_imported_conversation(make_app: AppFactory, store: Store,
                                             tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("TUI_CHAT_DB", str(store.path))
    assert cli.main(["import", str(hostile_export(tmp_path / "hostile.json"))]) == 0
    app = make_app(continue_last=True)
    async with app.run_test(size=(100, 40), notifications=True) as pilot:
        notes = record_notifications(app)
        await pilot.pause()
        screen = conversation(app)
        views = screen.query(MessageView)
        assert len(views) == 3
        for view in views:
            assert_literal(rendered_text(view))
        assert_literal(rendered_text(screen.query_one("#title-bar")))
        screen.message_list.scroll_end(animate=False)
        await pilot.pause()
        assert_terminal_safe(app)
        for view in views:  # each message, scrolled into view, is safe on the terminal
            screen.message_list.scroll_to_widget(view, animate=False, top=True)
            await pilot.pause()
            assert_terminal_safe(app)
        # The sidebar lists the hostile title literally too.
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: bool(screen.query(ConversationList)))
        await pilot.pause()
        assert "[bold]x[/]" in rendered_text(screen.query_one(ConversationList))
        assert_terminal_safe(app)
        assert_nothing_ran(app, notes)
        await assert_responsive(pilot)
        await pilot.press("ctrl+q")
    assert app.return_code == 0
