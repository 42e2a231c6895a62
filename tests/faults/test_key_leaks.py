"""Issue 12, keys: a key that cannot go in an HTTP header is refused where it is read, with a
sentence that names where it came from; no error path (a bad base URL, an unexpected bug)
puts a key, a traceback or an exception's repr in front of the user or into a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.faults.pilot import send
from tests.ui.conftest import AppFactory, conversation, record_notifications, wait_until
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.store import Store
from tui_chat.ui.screens.settings import SettingsScreen

MARK = "LEAKMARK7777"
BAD_KEYS = {
    "non-ascii": f"cpk_badé{MARK}",
    "line-break": f"cpk_bad\n{MARK}",
    "carriage-return": f"cpk_bad\r{MARK}",
    "control": f"cpk_bad\x01{MARK}",
}
GOOD_KEY = f"cpk_goodkey{MARK}"


def run(*args: str, env: dict[str, str], code: str | None = None
        ) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "tui_chat"]
    return subprocess.run([*command, *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=60, check=False)


def files_holding(folder: Path, secret: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


@pytest.mark.parametrize("kind", sorted(BAD_KEYS))
@pytest.mark.parametrize("source", ["environment", "config"])
def test_ask_refuses_a_key_that_cannot_be_sent(kind: str, source: str, tmp_path: Path,
                                               isolated_dirs: Path,
                                               chutes_server: FakeProvider) -> None:
    key = BAD_KEYS[kind]
    env = {"CHUTES_BASE_URL": chutes_server.url}
    if source == "environment":
        env["CHUTES_API_KEY"] = key
    else:
        config = tmp_path / "config.toml"
        config.write_text(f"[providers.chutes]\napi_key = {json.dumps(key)}\n")
        env["TUI_CHAT_CONFIG"] = str(config)
    result = run("ask", "hello", env=env)
    assert result.returncode == 3, result.stderr
    where = "CHUTES_API_KEY" if source == "environment" else "[providers.chutes] in config.toml"
    assert where in result.stderr and "cannot be sent in an HTTP header" in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert MARK not in result.stdout + result.stderr
    assert not chutes_server.requests  # nothing was sent anywhere
    assert not files_holding(isolated_dirs, MARK)


async def test_the_app_refuses_the_key_says_so_and_records_no_trace_of_it(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider, tmp_path: Path) -> None:
    app = make_app(key=BAD_KEYS["non-ascii"])
    notes = record_notifications(app)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = conversation(app)
        await send(pilot, "hello")
        shot = app.export_screenshot()
        assert "CHUTES_API_KEY" in shot.replace("&#160;", " ")
        assert MARK not in shot
        assert not [text for _, text in notes if MARK in text]
        assert screen.prompt.text == "hello"  # refused before sending: the prompt is back
    assert not chutes_server.requests
    assert store.latest_conversation() is None  # nothing half-sent was recorded
    assert not files_holding(tmp_path, MARK)


async def test_settings_refuse_a_pasted_key_that_cannot_be_sent(make_app: AppFactory,
                                                                tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen))
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        field_id = screen._ids[("providers", "sutra", "api_key")]
        from textual.widgets import Input, Static

        screen.query_one(f"#{field_id}", Input).value = f"sutra-key\n{MARK}"
        await screen.action_save()
        await pilot.pause()
        error = screen.query_one(f"#error-{field_id}", Static)
        shown = str(error.render())
        assert "cannot be sent in an HTTP header" in shown and MARK not in shown
        assert isinstance(app.screen, SettingsScreen)  # not dismissed, nothing saved
    assert not (tmp_path / "config.toml").exists()


def test_an_unparsable_base_url_is_one_sentence_naming_the_setting(tmp_path: Path) -> None:
    result = run("ask", "hello", env={"CHUTES_BASE_URL": "http://127.0.0.1::1/v1",
                                      "CHUTES_API_KEY": GOOD_KEY})
    assert result.returncode == 2 and "CHUTES_BASE_URL" in result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1
    config = tmp_path / "config.toml"
    config.write_text('[providers.local]\nbase_url = "http://127.0.0.1::1/v1"\n')
    result = run("ask", "-p", "local", "hello", env={"TUI_CHAT_CONFIG": str(config)})
    assert result.returncode == 2 and "providers.local.base_url" in result.stderr
    assert "Value error" not in result.stderr and "Traceback" not in result.stderr


BUGGY_ASK = """
import sys
from tui_chat.core.client import ProviderClient

async def broken(self, *args, **kwargs):
    raise RuntimeError("boom with " + self._api_key)
    yield

ProviderClient.stream_chat = broken
from tui_chat.cli import main
sys.exit(main(["ask", "hello"]))
"""


def test_a_bug_in_ask_is_one_sentence_and_a_scrubbed_crash_report(
        chutes_server: FakeProvider, isolated_dirs: Path) -> None:
    result = run(env={"CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": GOOD_KEY},
                 code=BUGGY_ASK)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "RuntimeError('" not in result.stderr
    assert "unexpected error (RuntimeError)" in result.stderr and MARK not in result.stderr
    # The reply's row says what happened in words, without the exception's text.
    assert "boom" not in _stored_errors(isolated_dirs)
    reports = list(isolated_dirs.rglob("crash-*.log"))
    assert reports and str(reports[0]) in result.stderr
    report = reports[0].read_text()
    assert "RuntimeError: boom with [key hidden]" in report and MARK not in report
    assert reports[0].stat().st_mode & 0o777 == 0o600
    assert not files_holding(isolated_dirs, MARK)


def _stored_errors(home: Path) -> str:
    import sqlite3

    (path,) = home.rglob("conversations.sqlite3")
    with sqlite3.connect(path) as conn:
        return " ".join(str(row[0]) for row in conn.execute("SELECT error FROM messages"))


async def test_a_bug_in_the_app_is_a_sentence_not_a_repr(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch, isolated_dirs: Path) -> None:
    async def broken(self: ProviderClient, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"boom with {self._api_key}")
        yield  # an async generator, like the real one

    app = make_app(key=GOOD_KEY)
    monkeypatch.setattr(ProviderClient, "stream_chat", broken)
    notes = record_notifications(app)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await send(pilot, "hello")
        await wait_until(pilot, lambda: any(sev == "error" for sev, _ in notes))
        shot = app.export_screenshot()
    texts = [text for _, text in notes]
    assert any("unexpected error (RuntimeError)" in text for text in texts), texts
    assert not [t for t in texts if MARK in t or "RuntimeError('" in t or "boom" in t]
    assert MARK not in shot and "boom" not in shot
    reply = store.get_messages(store.latest_conversation().id)[-1]  # type: ignore[union-attr]
    assert reply.error is not None and "boom" not in reply.error
    assert not files_holding(isolated_dirs, MARK)
    assert Settings().max_retries == 3  # the defaults are untouched by the test
    chutes_server.script(Reply(stream_of(["unused"])))


async def test_a_crash_of_the_app_prints_a_sentence_not_a_traceback_with_locals(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, isolated_dirs: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tui_chat.ui.screens.conversation import ConversationScreen

    def crash(self: ConversationScreen) -> None:
        api_key = GOOD_KEY  # a local that Textual's own crash screen would print
        raise RuntimeError(f"boom with {api_key}")

    monkeypatch.setattr(ConversationScreen, "action_new_conversation", crash)
    app = make_app(key=GOOD_KEY)
    with pytest.raises(RuntimeError):
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("ctrl+n")
            await pilot.pause()
    printed = capsys.readouterr()
    output = printed.out + printed.err
    assert "An unexpected error (RuntimeError) stopped tui-chat" in output, output
    assert MARK not in output and "Traceback" not in output and "api_key" not in output
    (report,) = crash_reports(isolated_dirs)
    assert "[key hidden]" in report and MARK not in report


def crash_reports(folder: Path) -> list[str]:
    return [path.read_text() for path in folder.rglob("crash-*.log")]
