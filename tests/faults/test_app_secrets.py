"""Issue 6, secrets in the app: distinctive keys (one from the environment, one from config.toml)
go through sending, provider errors that echo them, the model picker, the settings screen,
screenshots and an export; then every file the app created, every screenshot, notification and
captured output is searched for them. The repository's snapshots and screenshots are searched
for every key the tests use."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.faults.pilot import send
from tests.ui.conftest import conversation, record_notifications, wait_until
from tui_chat.commands.app import build_services
from tui_chat.ui.app import TuiChatApp
from tui_chat.ui.screens.model_picker import ModelPickerScreen
from tui_chat.ui.screens.settings import SettingsScreen
from tui_chat.ui.widgets.conversation_list import ConversationList
from tui_chat.ui.widgets.message_view import MessageView

ENV_KEY = "cpk_appenvkey0000distinctive3333.APPENVSECRET"
FILE_KEY = "sutra-app-filekey-distinctive-4444-APPFILESECRET"
SECRETS = (ENV_KEY, FILE_KEY, "APPENVSECRET", "APPFILESECRET", "distinctive3333",
           "distinctive-4444")
ROOT = Path(__file__).resolve().parents[2]


def leaks(text: str | bytes) -> list[str]:
    data = text.encode() if isinstance(text, str) else text
    return [secret for secret in SECRETS if secret.encode() in data]


@pytest.mark.slow
async def test_keys_appear_nowhere_the_app_writes_or_shows(
        tmp_path: Path, isolated_dirs: Path, chutes_server: FakeProvider,
        sutra_server: FakeProvider, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'max_retries = 0\n[providers.sutra]\napi_key = "  {FILE_KEY}\\n"\n')
    exports = tmp_path / "exports"
    exports.mkdir()
    monkeypatch.chdir(exports)
    for name, value in {"TUI_CHAT_CONFIG": str(config),
                        "TUI_CHAT_DB": str(tmp_path / "data" / "store.sqlite3"),
                        "CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": ENV_KEY,
                        "SUTRA_BASE_URL": sutra_server.url}.items():
        monkeypatch.setenv(name, value)
    chutes_server.script(Reply(stream_of([f"echo of {ENV_KEY[:4]}"])),
                         Reply.error(401, {"detail": f"bad key {ENV_KEY}"}))
    sutra_server.script(Reply(stream_of(["नमस्ते"], flavour="sutra")),
                        Reply.error(500, {"error": {"message": f"key={FILE_KEY} failed"}}))
    services = build_services()
    app = TuiChatApp(services)
    notes = record_notifications(app)
    shots: list[str] = []
    try:
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await flows(pilot, app, shots)
            # The two failures (the key echoed back by the provider) are said inline.
            inline = [view.message.error for view in conversation(app).query(MessageView)
                      if view.message.error]
            await pilot.press("ctrl+q")
    finally:
        services.store.close()
    assert app.return_code == 0

    # Each key went, trimmed, to its own provider only.
    assert {r.headers.get("authorization") for r in chutes_server.requests} == \
        {f"Bearer {ENV_KEY}"}
    assert {r.headers.get("authorization") for r in sutra_server.requests
            if r.method == "POST"} == {f"Bearer {FILE_KEY}"}
    # What the user saw and what the process printed or logged.
    shown = [text for _, text in notes] + [n.message for n in app._notifications] + inline
    assert len(notes) >= 1 and len(inline) == 2 and len(shots) == 3
    captured = capsys.readouterr()
    for text in [*shown, *shots, captured.out, captured.err, caplog.text]:
        assert not leaks(text), leaks(text)
    # Every file the app created: store (and WAL), model cache, export, screenshots.
    scanned = scan_files([isolated_dirs, tmp_path], skip=config)
    assert "store.sqlite3" in scanned and any(n.endswith(".md") for n in scanned), scanned
    assert any(n.endswith(".svg") for n in scanned), scanned
    assert FILE_KEY in config.read_text()  # the user's file is untouched


def scan_files(folders: list[Path], skip: Path) -> list[str]:
    """Names of the files under `folders` (but `skip`), each checked for a key."""
    scanned = []
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file() and path != skip:
                scanned.append(path.name)
                assert not leaks(path.read_bytes()), path
    return scanned


async def flows(pilot: Pilot[Any], app: TuiChatApp, shots: list[str]) -> None:
    screen = conversation(app)
    await send(pilot, "hello chutes")
    await send(pilot, "fail please")  # 401 echoing the key
    # The model picker fetches /models (with the key) and caches the list.
    await pilot.press("f2")
    await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen)
                     and not app.screen._refreshing)  # the list fetched (with the key)
    await pilot.press("escape")
    await wait_until(pilot, lambda: app.screen is screen)
    screen.workspace.choose("sutra", "sutra-v2")
    screen.refresh_chrome()
    await send(pilot, "hello sutra")
    await send(pilot, "fail sutra")  # 500 echoing the key
    shots.append(app.export_screenshot())
    # Settings: the file key is in a password field; the environment key is only named.
    await pilot.press("f3")
    await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen))
    await pilot.pause()
    form = app.screen.query_one("#form")
    form.scroll_end(animate=False)
    await wait_until(pilot, lambda: form.scroll_y == form.max_scroll_y > 0)
    shots.append(app.export_screenshot())
    app.save_screenshot("settings.svg", str(Path.cwd()))
    assert "from&#160;environment" in shots[-1] and "•••" in shots[-1]  # both key fields
    await pilot.press("escape")
    await wait_until(pilot, lambda: app.screen is screen)
    # Export from the sidebar, to the suggested file in the current folder.
    await pilot.press("ctrl+b")
    await wait_until(pilot, lambda: bool(screen.query(ConversationList)))
    await pilot.pause()
    await pilot.press("e")
    await wait_until(pilot, lambda: app.screen is not screen)
    await pilot.press("enter")
    await wait_until(pilot, lambda: any(Path.cwd().glob("*.md")))
    shots.append(app.export_screenshot())


# --- the repository ----------------------------------------------------------------------

def keys_used_in_tests() -> set[str]:
    """Every API key a test or screenshot script writes: values of *KEY/*SECRET constants,
    of *_API_KEY variables, of api_key= arguments and of api_key lines in TOML text."""
    keys: set[str] = set()
    sources = [*ROOT.glob("tests/**/*.py"), *ROOT.glob("screenshots/*.py")]
    for source in sources:
        text = source.read_text(encoding="utf-8")
        keys.update(re.findall(r'api_key\s*=\s*\\?"\s*([^"{\\\s]{8,})', text))
        for node in ast.walk(ast.parse(text)):
            keys.update(_key_values(node))
    return {key for key in keys if len(key) >= 8}


def _key_values(node: ast.AST) -> list[str]:
    def text(value: ast.AST | None) -> str | None:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
        return None

    found: list[str | None] = []
    if isinstance(node, ast.Assign):
        if any(isinstance(t, ast.Name) and t.id.endswith(("KEY", "SECRET"))
               for t in node.targets):
            found.append(text(node.value))
    elif isinstance(node, ast.Call):
        first = text(node.args[0]) if node.args else None
        if first and first.endswith("_API_KEY") and len(node.args) > 1:
            found.append(text(node.args[1]))
        found += [text(k.value) for k in node.keywords if k.arg in ("api_key", "key")]
    elif isinstance(node, ast.Dict):
        found += [text(v) for k, v in zip(node.keys, node.values, strict=True)
                  if (name := text(k)) and name.endswith("_API_KEY")]
    return [value for value in found if value]


def test_no_test_key_in_snapshots_or_screenshots() -> None:
    keys = keys_used_in_tests()
    assert {ENV_KEY, FILE_KEY, "test-key-123456789"} <= keys and len(keys) >= 10, keys
    files = [p for p in [*ROOT.glob("tests/**/__snapshots__/**/*"), *ROOT.glob("screenshots/*")]
             if p.is_file()]
    assert len(files) >= 10
    found = [(path.relative_to(ROOT), key) for path in files
             for key in keys if key.encode() in path.read_bytes()]
    assert not found, found
    assert not [p for p in files if "SECRET" in os.fsdecode(p.name)]
