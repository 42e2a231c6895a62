"""Issue 6, bad files in the app: a broken config, store or theme file gives ONE message naming
the file and the problem, the app works, and no user file is deleted or overwritten (a file
that must be replaced is moved aside with a timestamp, and the user is told)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.faults.pilot import send
from tests.ui.conftest import conversation, record_notifications, wait_until
from tui_chat import cli
from tui_chat.commands.app import build_services
from tui_chat.core.config import load_settings
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.ui.app import TuiChatApp
from tui_chat.ui.screens.settings import SettingsScreen
from tui_chat.ui.themes import DEFAULT_THEME
from tui_chat.ui.widgets.message_view import MessageView

Notes = list[tuple[str, str]]


@pytest.fixture
def home(isolated_dirs: Path, tmp_path: Path, chutes_server: FakeProvider,
         monkeypatch: pytest.MonkeyPatch) -> Path:
    """Config and store in tmp_path (through the same variables a user would set)."""
    monkeypatch.setenv("TUI_CHAT_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("TUI_CHAT_DB", str(tmp_path / "data" / "store.sqlite3"))
    monkeypatch.setenv("CHUTES_BASE_URL", chutes_server.url)
    monkeypatch.setenv("CHUTES_API_KEY", "test-key-files-0000")
    return tmp_path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def moved_aside(path: Path) -> list[Path]:
    return sorted(p for p in path.parent.glob(path.name + ".broken-*")
                  if not p.name.endswith(("-wal", "-shm")))


async def run_app(check: Callable[[Pilot[Any], TuiChatApp, Notes], Any]) -> TuiChatApp:
    """Build the app as `tui-chat` does, record its notifications from the start, run `check`,
    quit with Ctrl+Q."""
    services = build_services()
    app = TuiChatApp(services)
    notes = record_notifications(app)
    try:
        async with app.run_test(size=(110, 32), notifications=True) as pilot:
            await pilot.pause()
            await check(pilot, app, notes)
            await pilot.press("ctrl+q")
    finally:
        services.store.close()
    assert app.return_code == 0 and app._exception is None
    return app


async def send_works(pilot: Pilot[Any], server: FakeProvider, text: str = "hello") -> Message:
    server.script(Reply(stream_of(["it ", "works"])))
    await send(pilot, text)
    screen = conversation(pilot.app)
    reply = screen.query(MessageView)[-1].message
    assert (reply.content, reply.status) == ("it works", MessageStatus.COMPLETE)
    return reply


def warnings(notes: Notes) -> list[str]:
    return [text for severity, text in notes if severity in ("warning", "error")]


# --- config.toml -------------------------------------------------------------------------

BROKEN_CONFIGS: dict[str, tuple[str | None, str]] = {
    "not-toml": ("this is = = not toml\napi_key = 'k'\n", "not valid TOML"),
    "wrong-type": ('[parameters]\ntemperature = "hot"\n', "parameters.temperature"),
    "unknown-key": ("colour = 'red'\n", "'colour': unknown key"),
    "a-folder": (None, "folder"),
}


@pytest.mark.parametrize("kind", list(BROKEN_CONFIGS))
async def test_a_broken_config_starts_with_defaults_and_is_moved_aside_before_saving(
        home: Path, chutes_server: FakeProvider, kind: str) -> None:
    text, problem = BROKEN_CONFIGS[kind]
    config = home / "config.toml"
    if text is None:
        config.mkdir()
        (config / "inside.txt").write_text("mine")
    else:
        config.write_text(text)

    async def check(pilot: Pilot[Any], app: TuiChatApp, notes: Notes) -> None:
        shown = warnings(notes)
        assert len(shown) == 1, notes
        assert str(config) in shown[0] and problem in shown[0]
        assert "default" in shown[0]
        await send_works(pilot, chutes_server)
        # Nothing touched the file so far.
        assert (config / "inside.txt").read_text() == "mine" if text is None \
            else config.read_text() == text
        assert not moved_aside(config)
        # Saving Settings moves the broken file aside first, and says so.
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen))
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.screen is conversation(app))
        [aside] = moved_aside(config)
        if text is None:
            assert (aside / "inside.txt").read_text() == "mine"
        else:
            assert aside.read_text() == text
        assert any(str(aside) in note for note in warnings(notes)[1:]), notes
        assert load_settings(config).default_provider == "chutes"
        assert app.is_running

    await run_app(check)


def test_the_command_line_starts_the_app_despite_a_broken_config(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (home / "config.toml").write_text("[[[ nope")
    started: list[dict[str, Any]] = []

    def fake_run(**kwargs: Any) -> int:
        started.append(kwargs)
        return 0

    monkeypatch.setattr("tui_chat.ui.app.run", lambda *a, **k: fake_run(**k))
    assert cli.main([]) == 0
    assert len(started) == 1
    assert (home / "config.toml").read_text() == "[[[ nope"


# --- the conversation store --------------------------------------------------------------

def make_store_with_history(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    with Store.open(path) as store:
        chat = store.create_conversation(Conversation(title="precious"))
        for index in range(40):
            store.add_message(Message(conversation_id=chat.id, role=Role.USER,
                                      content=f"message {index} " + "x" * 400,
                                      status=MessageStatus.COMPLETE))
    return chat.id


def truncate(path: Path) -> None:
    size = path.stat().st_size
    with path.open("r+b") as handle:
        handle.truncate(size // 2)


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
async def test_an_unreadable_store_is_moved_aside_and_the_app_starts_afresh(
        home: Path, chutes_server: FakeProvider, damage: str) -> None:
    db = home / "data" / "store.sqlite3"
    if damage == "garbage":
        db.parent.mkdir(parents=True)
        db.write_bytes(b"this is not a database\x00\xff" * 500)
    else:
        make_store_with_history(db)
        truncate(db)
    before = digest(db)

    async def check(pilot: Pilot[Any], app: TuiChatApp, notes: Notes) -> None:
        shown = warnings(notes)
        assert len(shown) == 1, notes
        [aside] = moved_aside(db)
        assert str(db) in shown[0] and str(aside) in shown[0]
        assert digest(aside) == before  # the user's file, byte for byte
        reply = await send_works(pilot, chutes_server)
        assert app.services.store.get_message(reply.id).content == "it works"

    await run_app(check)
    with Store.open(db) as again:
        assert again.notice is None and len(again.list_conversations()) == 1


async def test_a_store_from_a_newer_version_is_left_alone_and_nothing_is_saved(
        home: Path, chutes_server: FakeProvider) -> None:
    db = home / "data" / "store.sqlite3"
    make_store_with_history(db)
    with sqlite3.connect(db) as raw:
        raw.execute("PRAGMA user_version = 99")
    raw.close()
    before = digest(db)
    neighbours = sorted(os.listdir(db.parent))

    async def check(pilot: Pilot[Any], app: TuiChatApp, notes: Notes) -> None:
        shown = warnings(notes)
        assert len(shown) == 1, notes
        assert str(db) in shown[0] and "newer tui-chat" in shown[0]
        assert "not be saved" in shown[0]
        await send_works(pilot, chutes_server)  # works, in a temporary store

    await run_app(check)
    assert digest(db) == before
    assert sorted(os.listdir(db.parent)) == neighbours
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT count(*) FROM messages").fetchone()[0] == 40
    raw.close()


# --- themes ------------------------------------------------------------------------------

async def test_a_broken_theme_file_gives_one_notification_and_the_default_theme(
        home: Path, chutes_server: FakeProvider) -> None:
    themes = Path(os.environ["XDG_CONFIG_HOME"]) / "tui-chat" / "themes"
    themes.mkdir(parents=True)
    (themes / "mine.toml").write_text("primary = 'not a colour'\n")
    (themes / "garbage.toml").write_bytes(b"\xff\xfe[[[")
    (home / "config.toml").write_text('theme = "mine"\n')

    async def check(pilot: Pilot[Any], app: TuiChatApp, notes: Notes) -> None:
        shown = warnings(notes)
        assert len(shown) == 1, notes
        assert str(themes / "mine.toml") in shown[0] and str(themes / "garbage.toml") in shown[0]
        assert app.theme == DEFAULT_THEME
        await send_works(pilot, chutes_server)

    await run_app(check)
    assert (themes / "mine.toml").read_text() == "primary = 'not a colour'\n"
