"""Snapshots of screens in many scripts: a Devanagari, Tamil, Bengali, CJK and emoji Markdown
table and titles, the model picker and settings, at 80×24 and 200×60, laid out with the
terminal's cell widths (a vowel sign such as `ी` takes a cell). The same screens in a real
terminal: test_tmux_borders.py."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from tests.ui.conftest import AppFactory, conversation
from tests.ui.scripts_demo import seed_scripts
from tests.ui.test_screens_snapshots import Host, no_blink
from tui_chat.core.config import ProviderConfig, Settings
from tui_chat.core.model_catalog import ModelCatalog, ProviderModels, default_cache_file
from tui_chat.core.models import ModelInfo
from tui_chat.core.store import Store
from tui_chat.ui.screens.model_picker import ModelChoice, ModelPickerScreen
from tui_chat.ui.screens.settings import SettingsScreen

SIZES = [(80, 24), (200, 60)]


async def steady(pilot: Pilot[Any]) -> None:
    screen = conversation(pilot.app)
    screen.prompt.cursor_blink = False
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "200x60"])
def test_a_table_in_many_scripts_snapshot(snap_compare: Any, make_app: AppFactory,
                                          store: Store, size: tuple[int, int]) -> None:
    chat = seed_scripts(store)
    assert snap_compare(make_app(conversation=chat.id), terminal_size=size, run_before=steady)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "200x60"])
def test_titles_in_many_scripts_in_the_sidebar_snapshot(snap_compare: Any,
                                                        make_app: AppFactory, store: Store,
                                                        size: tuple[int, int]) -> None:
    chat = seed_scripts(store)

    async def sidebar(pilot: Pilot[Any]) -> None:
        await steady(pilot)
        await pilot.press("ctrl+b")
        await pilot.pause()
        sidebar = conversation(pilot.app).sidebar
        assert sidebar is not None
        await pilot.pause()

    assert snap_compare(make_app(conversation=chat.id), terminal_size=size, run_before=sidebar)


LOCAL = ProviderConfig(base_url="http://127.0.0.1:9/v1", needs_key=False,
                       display_name="स्थानीय सर्वर 本地")
HINDI_PROMPT = ("आप एक सहायक हैं: संक्षिप्त उत्तर दें, परीक्षण के साथ। 请简洁回答。"
                " தமிழில் பதில் சொல்லுங்கள் 👍🏽")


def seed_script_models() -> ModelCatalog:
    """The picker's cache: a local provider whose display name and models are in Hindi and
    Chinese, beside Chutes."""
    settings = Settings(providers={"local": LOCAL})
    cache = {
        "local": ProviderModels(provider="local", display_name=LOCAL.display_name or "local",
                                source="live", models=[
            ModelInfo(id="हिन्दी-परीक्षण-7b", provider="local", context_length=32768),
            ModelInfo(id="通义千问-14B-中文", provider="local", context_length=131072),
            ModelInfo(id="தமிழ்-llama-8b", provider="local", context_length=8192),
        ]),
        "chutes": ProviderModels(provider="chutes", display_name="Chutes", source="live",
                                 models=[ModelInfo(id="deepseek-ai/DeepSeek-V3-0324",
                                                   provider="chutes", context_length=163840,
                                                   input_price=0.27, output_price=1.1)]),
    }
    path = default_cache_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{" + ", ".join(f'"{k}": {v.model_dump_json()}' for k, v in cache.items())
                    + "}", encoding="utf-8")
    return ModelCatalog(settings)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "200x60"])
def test_the_model_picker_in_many_scripts_snapshot(snap_compare: Any,
                                                   size: tuple[int, int]) -> None:
    catalog = seed_script_models()
    settings = Settings(providers={"local": LOCAL})
    app = Host(lambda: ModelPickerScreen(
        settings, catalog=catalog, refresh=False,
        recent=[ModelChoice("local", "通义千问-14B-中文")],
        current=ModelChoice("local", "हिन्दी-परीक्षण-7b")))
    assert snap_compare(app, terminal_size=size, run_before=no_blink)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "200x60"])
def test_settings_in_many_scripts_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    settings = Settings(system_prompt=HINDI_PROMPT, default_provider="local",
                        default_model="हिन्दी-परीक्षण-7b", providers={"local": LOCAL})
    app = Host(lambda: SettingsScreen(settings))
    assert snap_compare(app, terminal_size=size, run_before=no_blink)
