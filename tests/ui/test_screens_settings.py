"""The settings screen: save and reload, inline validation, live theme preview, env keys."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Input, Select, Static, TextArea

from tui_chat.core.config import ProviderConfig, Settings, load_settings
from tui_chat.core.model_catalog import ModelCatalog
from tui_chat.core.models import ModelInfo, Parameters
from tui_chat.core.providers import Provider
from tui_chat.core.secrets import Secret
from tui_chat.ui.screens.model_picker import ModelPickerScreen
from tui_chat.ui.screens.settings import SettingsScreen
from tui_chat.ui.themes import install_themes


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.results: list[Any] = []

    def on_mount(self) -> None:
        install_themes(self, "tui-chat-dusk")


def field(screen: SettingsScreen, *path: str) -> Any:
    return screen.query_one(f"#{screen._ids[path]}")


def error_text(screen: SettingsScreen, *path: str) -> str:
    error = screen.query_one(f"#error-{screen._ids[path]}", Static)
    return str(error.render()) if error.has_class("shown") else ""


async def open_settings(app: Host, pilot: Any, screen: SettingsScreen) -> SettingsScreen:
    app.push_screen(screen, app.results.append)
    await pilot.pause()
    return screen


async def test_save_writes_0600_and_reloads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "config.toml"
    original = Settings(parameters=Parameters(stop=["END"]),
                        providers={"local": ProviderConfig(base_url="http://127.0.0.1:9/v1",
                                                           models=["m1"])})
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_settings(app, pilot, SettingsScreen(original, path=path))
        field(screen, "parameters", "temperature").value = "0.7"
        field(screen, "parameters", "max_tokens").value = "512"
        field(screen, "system_prompt").text = "Be brief.\nAnswer in Hindi."
        field(screen, "providers", "chutes", "api_key").value = "  cpk_pasted \n"
        field(screen, "default_provider").value = "sutra"
        field(screen, "default_model").value = "sutra-r0"
        await pilot.press("ctrl+s")
        await pilot.pause()
    [saved] = app.results
    assert isinstance(saved, Settings)
    assert os.stat(path).st_mode & 0o777 == 0o600
    reloaded = load_settings(path)
    assert reloaded == saved
    assert reloaded.parameters.temperature == 0.7
    assert reloaded.parameters.max_tokens == 512
    assert reloaded.parameters.stop == ["END"]  # fields the form does not show are kept
    assert reloaded.system_prompt == "Be brief.\nAnswer in Hindi."
    assert reloaded.default_provider == "sutra" and reloaded.default_model == "sutra-r0"
    key = reloaded.providers["chutes"].api_key
    assert key is not None and key.get_secret_value() == "cpk_pasted"
    assert reloaded.providers["local"].models == ["m1"]
    assert "sutra" not in reloaded.providers  # nothing typed: no empty section


async def test_invalid_values_are_shown_inline_and_nothing_is_saved(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_settings(app, pilot, SettingsScreen(Settings(), path=path))
        field(screen, "parameters", "temperature").value = "5"
        field(screen, "providers", "sutra", "base_url").value = "ftp://example.com"
        field(screen, "timeouts", "read").value = "0"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert error_text(screen, "parameters", "temperature") == (
            "Must be between 0 and 2.")
        assert error_text(screen, "providers", "sutra", "base_url") == (
            "Must start with http:// or https://.")
        assert error_text(screen, "timeouts", "read") == "Must be greater than 0."
        assert error_text(screen, "parameters", "max_tokens") == ""
        assert screen.focused is field(screen, "parameters", "temperature")  # the top one
        summary = str(screen.query_one("#summary", Static).render())
        assert summary.startswith("3 settings need fixing")
        assert app.screen is screen and not path.exists()
        field(screen, "parameters", "temperature").value = ""
        field(screen, "providers", "sutra", "base_url").value = ""
        field(screen, "timeouts", "read").value = "30"
        await pilot.press("ctrl+s")
        await pilot.pause()
    [saved] = app.results
    assert saved.parameters.temperature is None and saved.timeouts.read == 30
    assert load_settings(path) == saved


async def test_theme_is_previewed_live_and_restored_on_cancel() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        assert app.theme == "tui-chat-dusk"
        screen = await open_settings(app, pilot, SettingsScreen(Settings()))
        themes = field(screen, "theme")
        assert isinstance(themes, Select)
        themes.value = "tui-chat-forest"
        await pilot.pause()
        assert app.theme == "tui-chat-forest"
        themes.value = "nord"
        await pilot.pause()
        assert app.theme == "nord"
        await pilot.press("escape")
        await pilot.pause()
        assert app.theme == "tui-chat-dusk"
        screen = await open_settings(app, pilot, SettingsScreen(Settings()))
        field(screen, "theme").value = "tui-chat-dawn"
        await pilot.pause()
        await pilot.click("#save")
        await pilot.pause()
        assert app.theme == "tui-chat-dawn"
    assert app.results[0] is None
    assert app.results[1].theme == "tui-chat-dawn"


async def test_environment_key_is_shown_as_such_and_the_file_key_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUTES_API_KEY", "cpk_from_env_secret")
    monkeypatch.setenv("CHUTES_BASE_URL", "http://127.0.0.1:9/v1")
    original = Settings(providers={"chutes": ProviderConfig(api_key=Secret("cpk_in_file"))})
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_settings(app, pilot, SettingsScreen(original))
        key = field(screen, "providers", "chutes", "api_key")
        assert isinstance(key, Input)
        assert key.disabled and key.password and key.value == ""
        assert key.placeholder == "from environment (CHUTES_API_KEY)"
        url = field(screen, "providers", "chutes", "base_url")
        assert url.disabled and url.placeholder == "from environment (CHUTES_BASE_URL)"
        assert not url.password
        sutra_key = field(screen, "providers", "sutra", "api_key")
        assert not sutra_key.disabled and sutra_key.password
        assert "cpk_from_env_secret" not in app.export_screenshot()
        await pilot.press("ctrl+s")
        await pilot.pause()
    [saved] = app.results
    kept = saved.providers["chutes"].api_key
    assert kept is not None and kept.get_secret_value() == "cpk_in_file"


async def test_system_prompt_editor_is_multiline_and_untrusted_text_is_literal() -> None:
    original = Settings(system_prompt="[bold]x[/] \x1b[2J keep")
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_settings(app, pilot, SettingsScreen(original))
        editor = field(screen, "system_prompt")
        assert isinstance(editor, TextArea)
        assert editor.text == "[bold]x[/] [2J keep"  # literal, and no ESC reaches the terminal
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_choose_fills_default_provider_and_model() -> None:
    async def fetch(provider: Provider) -> list[ModelInfo]:
        return [ModelInfo(id="live/model-a", provider=provider.name, context_length=8192)]

    settings = Settings()
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_settings(app, pilot, SettingsScreen(
            settings, catalog=ModelCatalog(settings, fetch=fetch)))
        await pilot.click("#choose-model")
        await pilot.pause()
        assert isinstance(app.screen, ModelPickerScreen)
        await pilot.press(*"sutra-r0", "enter")
        await pilot.pause()
        assert app.screen is screen
        assert field(screen, "default_provider").value == "sutra"
        assert field(screen, "default_model").value == "sutra-r0"


async def test_theme_is_previewed_while_browsing_the_open_list() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_settings(app, pilot, SettingsScreen(Settings()))
        themes = field(screen, "theme")
        themes.focus()
        await pilot.press("enter")  # open the list
        await pilot.pause()
        assert themes.expanded
        await pilot.press("down")
        await pilot.pause()
        browsed = app.theme
        assert browsed != "tui-chat-dusk"  # the highlighted theme is applied at once
        await pilot.press("down")
        await pilot.pause()
        assert app.theme not in (browsed, "tui-chat-dusk")
        await pilot.press("escape")  # close the list without choosing
        await pilot.pause()
        assert not themes.expanded
        assert app.theme == "tui-chat-dusk" and themes.value == "tui-chat-dusk"
        await pilot.press("enter", "down", "enter")  # choose the next one
        await pilot.pause()
        assert themes.value == browsed == app.theme
        await pilot.press("escape")  # cancel the screen: back to where we started
        await pilot.pause()
        assert app.theme == "tui-chat-dusk"
    assert app.results == [None]


async def test_tab_goes_through_the_fields_in_the_order_they_are_drawn() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_settings(app, pilot, SettingsScreen(Settings()))
        form = screen.query_one("#form")
        chain = screen.focus_chain
        assert form not in chain  # no stop without a cue before the first field
        inside = [w for w in chain if form in w.ancestors]
        drawn = sorted(inside, key=lambda w: (w.region.y, w.region.x))  # on the screen
        assert inside == drawn and len(inside) >= len(screen.specs)
        assert [w.id for w in chain[len(inside):]] == ["cancel", "save"]  # then the buttons
        visited = [screen.focused]
        for _ in range(len(chain) - 1):
            await pilot.press("tab")
            visited.append(screen.focused)
        assert visited == chain
        await pilot.press("tab")
        assert screen.focused is chain[0]  # round again, to the first field


async def test_a_key_typed_for_a_keyless_provider_marks_that_field(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    original = Settings(providers={"local": ProviderConfig(base_url="http://127.0.0.1:9/v1",
                                                           needs_key=False)})
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_settings(app, pilot, SettingsScreen(original, path=path))
        field(screen, "providers", "local", "api_key").value = "sk-local-1234"
        field(screen, "parameters", "temperature").value = "5"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "needs no key" in error_text(screen, "providers", "local", "api_key")
        assert error_text(screen, "parameters", "temperature") == "Must be between 0 and 2."
        marked = {w.id for w in screen.query(".-invalid")}
        assert marked == {screen._ids[("providers", "local", "api_key")],
                          screen._ids[("parameters", "temperature")]}
        assert screen.focused is field(screen, "parameters", "temperature")  # the top one
        summary = str(screen.query_one("#summary", Static).render())
        assert summary.startswith("2 settings need fixing") and "sk-local" not in summary
        assert app.screen is screen and not path.exists()
        field(screen, "providers", "local", "api_key").value = ""
        field(screen, "parameters", "temperature").value = ""
        await pilot.press("ctrl+s")
        await pilot.pause()
    [saved] = app.results
    local = saved.providers["local"]
    assert local.api_key is None and local.needs_key is False and path.exists()
