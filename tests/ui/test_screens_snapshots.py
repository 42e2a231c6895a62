"""Snapshots of the model picker, settings, help and the sidebar: fixed content and times, no
cursor blink, no network (the picker reads a seeded cache and does not refresh)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static

from tests.ui.conftest import wait_until
from tui_chat.core.config import ProviderConfig, Settings
from tui_chat.core.model_catalog import ModelCatalog, ProviderModels, default_cache_file
from tui_chat.core.models import Conversation, Message, ModelInfo, Parameters, Role
from tui_chat.core.secrets import Secret
from tui_chat.core.store import Store
from tui_chat.ui.screens.help import HelpScreen
from tui_chat.ui.screens.model_picker import ModelChoice, ModelPickerScreen
from tui_chat.ui.screens.settings import SettingsScreen
from tui_chat.ui.themes import install_themes
from tui_chat.ui.widgets.conversation_list import ConversationList

SIZE = (100, 32)


class ChatScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop", "Stop / cancel", id="conversation.stop"),
        Binding("ctrl+r", "regenerate", "Regenerate", id="conversation.regenerate"),
        Binding("ctrl+n", "new", "New chat", id="conversation.new"),
        Binding("f2", "model", "Model", id="conversation.model"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("A conversation would be here.")


class Host(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", id="app.help"),
        Binding("f3", "settings", "Settings", id="app.settings"),
        Binding("ctrl+b", "sidebar", "Sidebar", id="app.sidebar"),
    ]

    def __init__(self, make_screen: Callable[[], Screen[Any]]) -> None:
        super().__init__()
        self.make_screen = make_screen

    async def on_mount(self) -> None:
        install_themes(self, "tui-chat-dusk")
        await self.push_screen(ChatScreen())
        await self.push_screen(self.make_screen())


async def no_blink(pilot: Pilot[Any]) -> None:
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()


def seed_model_cache() -> ModelCatalog:
    cache = {
        "chutes": ProviderModels(provider="chutes", display_name="Chutes", source="live", models=[
            ModelInfo(id="deepseek-ai/DeepSeek-V3-0324", provider="chutes",
                      context_length=163840, price="in 0.27 / out 1.1", input_price=0.27,
                      output_price=1.1),
            ModelInfo(id="deepseek-ai/DeepSeek-R1", provider="chutes", context_length=163840),
            ModelInfo(id="Qwen/Qwen3-235B-A22B", provider="chutes", context_length=40960),
            ModelInfo(id="chutesai/Mistral-Small-3.1-24B-Instruct-2503", provider="chutes"),
        ]),
    }
    path = default_cache_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{" + ", ".join(f'"{k}": {v.model_dump_json()}' for k, v in cache.items())
                    + "}", encoding="utf-8")
    return ModelCatalog(Settings())


def test_model_picker_snapshot(snap_compare: Any) -> None:
    catalog = seed_model_cache()
    app = Host(lambda: ModelPickerScreen(
        Settings(), catalog=catalog, refresh=False,
        recent=[ModelChoice("sutra", "sutra-v2")],
        current=ModelChoice("chutes", "deepseek-ai/DeepSeek-R1")))
    assert snap_compare(app, terminal_size=SIZE, run_before=no_blink)


def test_model_picker_filtered_snapshot(snap_compare: Any) -> None:
    catalog = seed_model_cache()
    app = Host(lambda: ModelPickerScreen(Settings(), catalog=catalog, refresh=False))
    assert snap_compare(app, press=list("deep"), terminal_size=SIZE, run_before=no_blink)


def test_settings_snapshot(snap_compare: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUTRA_API_KEY", "sk-never-shown")
    settings = Settings(default_model="deepseek-ai/DeepSeek-V3-0324",
                        system_prompt="You are concise.",
                        parameters=Parameters(temperature=0.7, max_tokens=1024),
                        providers={"chutes": ProviderConfig(api_key=Secret("cpk_0123456789"))})
    app = Host(lambda: SettingsScreen(settings))
    assert snap_compare(app, terminal_size=(100, 40), run_before=no_blink)


def test_settings_scrolled_to_providers_snapshot(snap_compare: Any,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUTRA_API_KEY", "sk-never-shown")
    settings = Settings(providers={"chutes": ProviderConfig(api_key=Secret("cpk_0123456789"))})

    async def to_providers(pilot: Pilot[Any]) -> None:
        await no_blink(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, SettingsScreen)
        screen.query_one("#form").scroll_end(animate=False)
        await pilot.pause()

    app = Host(lambda: SettingsScreen(settings))
    assert snap_compare(app, terminal_size=(100, 40), run_before=to_providers)


def test_help_snapshot(snap_compare: Any) -> None:
    app = Host(HelpScreen)
    assert snap_compare(app, terminal_size=SIZE, run_before=no_blink)


def sidebar_store(path: Path) -> Store:
    store = Store.open(path)
    start = datetime(2026, 11, 28, 9, 30, tzinfo=UTC)
    rows = [
        ("Trip to Delhi", "sutra", "sutra-v2", "नमस्ते! मुझे दिल्ली की यात्रा के बारे में बताइए।"),
        ("Sorting in Python", "chutes", "deepseek-ai/DeepSeek-V3-0324", "How do I sort a list?"),
        ("Tamil greetings", "sutra", "sutra-v2", "வணக்கம்! எப்படி இருக்கிறீர்கள்?"),
        ("Rust lifetimes", "chutes", "Qwen/Qwen3-235B-A22B", "Explain lifetimes simply."),
    ]
    for index, (title, provider, model, text) in enumerate(rows):
        conversation = store.create_conversation(Conversation(title=title))
        store.add_message(Message(conversation_id=conversation.id, role=Role.USER, content=text))
        store.add_message(Message(conversation_id=conversation.id, role=Role.ASSISTANT,
                                  content=f"A reply about {title.lower()}.",
                                  provider=provider, model=model))
        fixed = store.get_conversation(conversation.id).model_copy(
            update={"updated": start + timedelta(hours=index), "created": start})
        store.update_conversation(fixed)
    return store


class SidebarHost(App[None]):
    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store

    def compose(self) -> ComposeResult:
        with Horizontal():
            sidebar = ConversationList(self.store,
                                       local_time=lambda moment: moment.astimezone(UTC))
            sidebar.now = lambda: datetime(2026, 12, 1, tzinfo=UTC)  # no row is today's
            yield sidebar
            yield Static("The open conversation would be here.")

    def on_mount(self) -> None:
        install_themes(self, "tui-chat-dusk")


def test_sidebar_with_search_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    store = sidebar_store(tmp_path / "store.sqlite3")

    async def search(pilot: Pilot[Any]) -> None:
        sidebar = pilot.app.query_one(ConversationList)
        sidebar.query_one("#conversation-filter", Input).value = "दिल्ली"
        await wait_until(pilot, lambda: sidebar.search_done)
        await no_blink(pilot)

    try:
        assert snap_compare(SidebarHost(store), terminal_size=SIZE, run_before=search)
    finally:
        store.close()


def test_sidebar_list_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    store = sidebar_store(tmp_path / "store.sqlite3")
    try:
        assert snap_compare(SidebarHost(store), terminal_size=SIZE, run_before=no_blink)
    finally:
        store.close()
