"""Start-up stays light (benchmarks/bench_ui_startup.py: ≤ 0.5 s to a ready prompt): what only
a reply, a dialog or a provider request needs is imported when first used."""

from __future__ import annotations

import gc
import subprocess
import sys
from typing import Any

import pytest
from textual.color import Color

from tests.ui.conftest import AppFactory
from tui_chat import cli
from tui_chat.core.config import Settings

LATER = ("pydantic", "pydantic_core", "annotated_types", "httpx", "tui_chat.core.client",
         "markdown_it", "rich.markdown", "pygments",
         "textual.widgets._markdown", "tui_chat.ui.screens.model_picker",
         "tui_chat.ui.screens.settings", "tui_chat.ui.widgets.reply_view", "tui_chat.core.export",
         "tui_chat.ui.screens.confirm", "tui_chat.ui.widgets.compare_view",
         "tui_chat.ui.screens.help", "tui_chat.ui.commands", "tui_chat.ui.keymap",
         "tui_chat.ui.conversation.compare_presenter", "tui_chat.ui.widgets.conversation_list",
         "tui_chat.ui.widgets.attachment_list", "mcp", "mcp_types", "httpx2",
         "tui_chat.core.mcp.manager", "tui_chat.core.mcp.connection", "tui_chat.commands.mcp")


def test_the_app_imports_no_pydantic_http_markdown_or_dialog_code_at_start() -> None:
    code = ("import sys; from tui_chat import cli; import tui_chat.ui.app\n"
            f"print(sorted(m for m in {LATER!r} if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.strip() == "[]"


def test_collections_wait_while_the_app_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start-up allocates a few hundred thousand objects that all live on: collections then
    only slow it down. The app resumes them after its first frame (gc_policy.after_start_up);
    the command line, whatever happens, on the way out."""
    seen: list[bool] = []

    def app_starting(context: object, **options: object) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr("tui_chat.commands.app.run_app", app_starting)
    assert cli.main([]) == 0
    assert seen == [False]
    assert gc.isenabled()


def test_a_command_runs_with_collections_on(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    def command(args: object, store: object) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr("tui_chat.commands_store.run_store_command", command)
    assert cli.main(["history"]) == 0
    assert seen == [True]
    assert gc.isenabled()


_FIRST_FRAME = """
import json, sys
from textual.app import App
from textual.css.stylesheet import Stylesheet
from tui_chat.ui import app as ui_app

seen = {"reparsed": 0}
reparse, refresh_css, theme_refresh = Stylesheet.reparse, App.refresh_css, []
def counted(stylesheet):  # every stylesheet parsed again, but for a theme set (refresh_css)
    seen["reparsed"] += not theme_refresh
    reparse(stylesheet)
def refreshed(app, animate=True):
    theme_refresh.append(True)
    try:
        refresh_css(app, animate)
    finally:
        theme_refresh.pop()
Stylesheet.reparse, App.refresh_css = counted, refreshed
def painted(app):
    from tui_chat.ui.screens.conversation import ConversationScreen
    if ("loaded" not in seen and isinstance(app.screen, ConversationScreen)
            and app.focused is not None and app.focused.id == "prompt"):
        seen["loaded"] = sorted(m for m in sys.argv[1:] if m in sys.modules)
        from tui_chat.core import tokens
        seen["script_patterns"] = tokens._script_patterns.cache_info().currsize
        app.exit(0)

def no_warm_up():  # the thread runs after the first frame: here it would race the check
    pass

ui_app.warm_up = no_warm_up
ui_app.TuiChatApp.post_display_hook = painted
ui_app.TuiChatApp.run = lambda self, **options: App.run(self, headless=True, size=(120, 40))
from tui_chat import cli
code = cli.main([])
print(json.dumps(seen))
sys.exit(code)
"""
AFTER_THE_FIRST_FRAME = ("pydantic", "pydantic_core", "annotated_types", "importlib.metadata")
"""pydantic, with its import a fifth of the instructions to the first frame, is imported when
the first input is validated (core.records): a config file it cannot vouch for, a stored
message, a reply. Its first validator loads its plugin loader too (and with it
importlib.metadata, email, zipfile, csv: about twenty modules), even with plugins disabled."""


def first_frame(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The app started as `tui-chat` starts it (no config file, an empty store), headless,
    up to its first frame with the prompt focused: which of AFTER_THE_FIRST_FRAME were
    loaded by then, and how many times every stylesheet was parsed again (but for a theme
    set, which Textual does once it has mounted the app, before or after that frame)."""
    import json

    monkeypatch.setenv("CHUTES_API_KEY", "test-key")
    monkeypatch.setenv("CHUTES_BASE_URL", "http://127.0.0.1:9/v1")
    result = subprocess.run([sys.executable, "-c", _FIRST_FRAME, *AFTER_THE_FIRST_FRAME],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    seen: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return seen


def test_the_first_frame_imports_no_pydantic(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no config file to read, the first frame needs only defaults and tui-chat's own
    records, which there is nothing to validate in: pydantic is imported after it (the
    warm-up). Nor are the token estimate's patterns for scripts other than ASCII compiled
    (core.tokens)."""
    seen = first_frame(monkeypatch)
    assert seen["loaded"] == []
    assert seen["script_patterns"] == 0


def test_the_first_frame_parses_each_stylesheet_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A screen with a stylesheet file of its own makes Textual parse every stylesheet again
    (a new Stylesheet, nothing cached) as it is pushed: the conversation screen's is read
    with the app's (ui.app), so the first frame parses each one once."""
    assert first_frame(monkeypatch)["reparsed"] == 0


def test_a_plain_config_file_imports_no_pydantic_before_the_first_frame(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A config.toml of plainly right values (config_checks.plainly_valid), custom provider
    included, is read and put in force without pydantic."""
    from tui_chat.core import paths

    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('theme = "tui-chat-forest"\nreading_width = 90\n[parameters]\n'
                    'temperature = 0.7\n[providers.chutes]\napi_key = "cpk_test_key"\n'
                    '[providers.local]\nbase_url = "http://127.0.0.1:9/v1"\nneeds_key = false\n'
                    'models = ["m"]\nheaders = {X-Team = "a"}\n', encoding="utf-8")
    seen = first_frame(monkeypatch)
    assert seen["loaded"] == []


async def test_the_stylesheets_are_parsed_in_the_chosen_theme_from_the_start(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The themes are installed and the chosen one's colours put in the stylesheet before
    the app runs (TuiChatApp._install_themes): installed in on_mount, the first frame could
    be drawn in Textual's default theme, then every stylesheet was parsed again (a reparse,
    in a new Stylesheet), every widget styled again and the screen drawn again."""
    from textual.css.stylesheet import Stylesheet

    events: list[str] = []
    set_variables, parse, reparse = (Stylesheet.set_variables, Stylesheet.parse,
                                      Stylesheet.reparse)

    def variables_set(stylesheet: Stylesheet, variables: dict[str, str]) -> None:
        events.append("variables")
        set_variables(stylesheet, variables)

    def parsed(stylesheet: Stylesheet) -> None:
        events.append("parse")
        parse(stylesheet)

    def reparsed(stylesheet: Stylesheet) -> None:
        events.append("reparse")
        reparse(stylesheet)

    monkeypatch.setattr(Stylesheet, "set_variables", variables_set)
    monkeypatch.setattr(Stylesheet, "parse", parsed)
    monkeypatch.setattr(Stylesheet, "reparse", reparsed)
    app = make_app(settings=Settings(theme="tui-chat-forest"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()  # on_mount is over: anything it queued has run
        assert app.theme == "tui-chat-forest"
        assert "reparse" not in events
        assert "parse" in events and "variables" not in events[events.index("parse"):]
        assert app.screen.styles.background == Color.parse(app.theme_variables["background"])
