"""Names that come from outside (a provider's display name and model ids from config.toml or a
server's /models, a tool's name from a model) are drawn inertly everywhere the app draws them:
the status line, message headers, the model picker, a reply's tool calls. Escape sequences in
them (OSC 52, OSC 0, CSI 2J), 8-bit controls and bidi overrides never reach the screen."""

from __future__ import annotations

from textual.command import CommandList, CommandPalette

from tests.fakeprovider import FakeProvider, Reply, stream_of, tool_call_stream
from tests.ui.conftest import (
    AppFactory,
    conversation,
    record_notifications,
    rendered_text,
    wait_idle,
    wait_until,
)
from tui_chat.core.config import ProviderConfig, Settings
from tui_chat.core.secrets import Secret
from tui_chat.ui.screens.model_picker import ModelPickerScreen
from tui_chat.ui.screens.settings import SettingsScreen

UNSAFE = {*map(chr, range(0x00, 0x09)), *map(chr, range(0x0B, 0x20)), "\x7f",
          *map(chr, range(0x80, 0xA0)), "\u202e"}
MODEL = "llama\x1b[2J\x9b31m\u202e-8b"
NAME = "Local\x1b]0;owned\x07 llama"
TOOL = "get\x1b]52;c;ZWNobyBwd25lZA==\x07weather"


def hostile_settings(server: FakeProvider) -> Settings:
    return Settings(default_provider="local", providers={"local": ProviderConfig(
        base_url=server.url, display_name=NAME, api_key=Secret("local-key-0123456789"),
        models=[MODEL, "other\x1b]0;t\x07"], default_model=MODEL)})


def unsafe_in(text: str) -> set[str]:
    return UNSAFE & set(text)


async def test_names_from_outside_are_drawn_inertly(make_app: AppFactory,
                                                   chutes_server: FakeProvider) -> None:
    chutes_server.models_list = [{"id": MODEL}, {"id": "served\x1b]52;c;AA\x07model"}]
    chutes_server.script(Reply(stream_of(["Hello"], model=MODEL)),
                         Reply(tool_call_stream([(TOOL, "{}")], model=MODEL)))
    app = make_app(settings=hostile_settings(chutes_server))
    async with app.run_test(size=(120, 30)) as pilot:
        screen = conversation(app)
        await pilot.press(*"hi", "enter")
        await wait_idle(pilot)
        await pilot.press(*"tools?", "enter")
        await wait_idle(pilot)
        shown = rendered_text(screen)
        assert "Local]0;owned llama" in shown and not unsafe_in(shown), repr(shown)
        assert "getweather" in " ".join(shown.split()).replace("]52;c;ZWNobyBwd25lZA==", "")
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await pilot.pause()
        picker = rendered_text(app.screen)
        assert "llama" in picker and not unsafe_in(picker), repr(picker)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        notes = record_notifications(app)
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen))
        await pilot.pause()
        settings = rendered_text(app.screen)
        assert "owned" in settings and not unsafe_in(settings), repr(settings)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        await pilot.press("ctrl+p")
        # Typed before the palette's list is mounted, the keys reach a palette half-built.
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette)
                         and bool(app.screen.query(CommandList)))
        await pilot.press(*"llama")
        # The palette searches in the background: until it has listed what it found.
        await wait_until(pilot, lambda: bool(app.screen.query_one(CommandList).option_count))
        await wait_idle(pilot)
        palette = rendered_text(app.screen)
        assert "llama" in palette.lower(), repr(palette)
        assert not unsafe_in(palette), repr(palette)
        assert not unsafe_in(" ".join(title + text for title, text in notes)), notes
