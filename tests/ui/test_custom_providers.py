"""A provider declared in config.toml is named by its `display_name` wherever the app names it."""

from __future__ import annotations

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, rendered_text, wait_idle
from tui_chat.core.config import ProviderConfig, Settings
from tui_chat.core.secrets import Secret
from tui_chat.ui.widgets.message_view import MessageView
from tui_chat.ui.widgets.status_bar import StatusBar


def local_settings(server: FakeProvider) -> Settings:
    return Settings(default_provider="local", providers={"local": ProviderConfig(
        base_url=server.url, display_name="Local llama", api_key=Secret("local-key-0123456789"),
        models=["llama-3.1-8b"], default_model="llama-3.1-8b")})


async def test_display_name_names_the_provider_in_status_bar_and_headers(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["Hello"], model="llama-3.1-8b")))
    app = make_app(settings=local_settings(chutes_server))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        assert screen.query_one(StatusBar).info.provider == "Local llama"
        await pilot.press(*"hi", "enter")
        await wait_idle(pilot)
        views = screen.query(MessageView)
        assert views[-1].message.provider == "local"
        header = rendered_text(views[-1]).splitlines()[0]
        assert "Local llama" in header and " local" not in header


async def test_a_reply_with_tool_calls_shows_them_folded_and_says_tools_are_off(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    from tests.fakeprovider import tool_call_stream
    from tests.ui.conftest import wait_until

    chutes_server.script(Reply(tool_call_stream([("get_weather", '{"city": "Paris"}')])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press(*"weather?", "enter")
        await wait_idle(pilot)
        view = screen.query(MessageView)[-1]
        shown = " ".join(rendered_text(view).replace("█", " ").split())
        assert "tools are not enabled for this conversation" in shown
        assert "get_weather" in shown and '{"city": "Paris"}' not in shown  # folded
        screen.message_list.focus()
        await wait_until(pilot, lambda: screen.message_list.selected is not None)
        await pilot.press("t")
        await wait_until(pilot, lambda: '{"city": "Paris"}' in rendered_text(view))
