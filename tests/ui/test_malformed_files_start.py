"""A malformed config, theme or persona file never stops tui-chat: the app starts, with one
sentence naming each file, the defaults where the file was, and the other files working. The
files are real (a FIFO among them), in a real config folder; the app is built as `tui-chat`
builds it (`build_services`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.ui.conftest import conversation, record_notifications, wait_until
from tui_chat.commands.app import build_services
from tui_chat.commands.context import Context
from tui_chat.ui.app import TuiChatApp

BAD = {
    "deep": "a = " + "[" * 5000 + "]" * 5000 + "\n",
    "long-int": "a = 1" + "0" * 5000 + "\n",
    "bad-utf8": b'theme = "\xff"\n',
    "types": 'theme = 5\nname = [1]\nprimary = {a = 1}\nsystem_prompt = 3\nkeys = 4\n',
    "fifo": None,
}


def put(path: Path, content: str | bytes | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if content is None:
        os.mkfifo(path)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)


@pytest.mark.parametrize("kind", list(BAD))
async def test_the_app_starts_with_malformed_files_and_names_each(
        kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config" / "tui-chat"
    put(config / "config.toml", BAD[kind])
    put(config / "themes" / "broken.toml", BAD[kind])
    put(config / "personas" / "broken.toml", BAD[kind])
    put(config / "themes" / "fine.toml", 'primary = "#336699"\n')
    put(config / "personas" / "fine.toml", 'system_prompt = "Be fine."\n')
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "d"),
           "XDG_STATE_HOME": str(tmp_path / "s"), "HOME": str(tmp_path)}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("TUI_CHAT_CONFIG", raising=False)
    monkeypatch.delenv("TUI_CHAT_DB", raising=False)
    services = build_services(Context(env=dict(os.environ)))
    try:
        app = TuiChatApp(services)
        notes = record_notifications(app)
        async with app.run_test(size=(120, 30), notifications=True) as pilot:
            await wait_until(pilot, lambda: len(said(notes)) >= 3)
            assert conversation(app) is app.screen
            text = said(notes)
            assert any("config.toml" in note and "default settings" in note for note in text)
            assert any("theme file" in note and "broken.toml" in note for note in text), text
            assert "fine" in app.available_themes
            assert any("persona file" in note and "broken.toml" in note for note in text), text
            assert not any("bug" in note for note in text), text
    finally:
        services.workspace.store.close()


def said(notes: list[tuple[str, str]]) -> list[str]:
    return [f"{title} {text}" for title, text in notes]
