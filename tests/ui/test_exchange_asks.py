"""The exchange asks in the app: a question put by the workspace in the middle of an exchange
reaches the conversation screen (the controller is the exchange's asker) as the confirm modal,
and the user's answer goes back to it.

The question used: tool servers are on for the conversation and the model takes no tools, so
the workspace asks whether to send without them (before the app passed an asker, it refused
without asking)."""

from __future__ import annotations

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.mcp.conftest import time_server
from tests.ui.conftest import AppFactory, conversation, record_notifications, wait_idle, wait_until
from tui_chat.core.config import Settings
from tui_chat.core.mcp.config import McpSettings
from tui_chat.core.model_facts import ModelSettings
from tui_chat.ui.screens.confirm import ConfirmScreen

MODEL = "deepseek-ai/DeepSeek-V3-0324"


def no_tools_model() -> Settings:
    return Settings(mcp=McpSettings(servers={"time": time_server()}),
                    models={f"chutes:{MODEL}": ModelSettings(tools=False)})


async def test_yes_in_the_modal_sends_without_tools(make_app: AppFactory,
                                                    chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["I cannot tell."])))
    app = make_app(settings=no_tools_model())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"time?", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert isinstance(app.screen, ConfirmScreen)
        assert "does not take tools" in app.screen.question
        await pilot.press("y")
        await wait_idle(pilot)
        screen = conversation(app)
        assert [m.content for m in screen.message_list.messages] == ["time?", "I cannot tell."]
    body = chutes_server.requests[-1].body
    assert isinstance(body, dict) and "tools" not in body


async def test_no_in_the_modal_sends_nothing_and_gives_the_prompt_back(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(settings=no_tools_model())
    async with app.run_test(size=(100, 30)) as pilot:
        notes = record_notifications(app)
        await pilot.press(*"time?", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_idle(pilot)
        screen = conversation(app)
        assert screen.prompt.text == "time?" and not screen.message_list.messages
        assert any("nothing was sent" in text for _, text in notes)
    assert [r for r in chutes_server.requests if r.method == "POST"] == []


async def test_the_question_goes_away_with_the_exchange(make_app: AppFactory,
                                                        chutes_server: FakeProvider) -> None:
    """The exchange cancelled while its question is open (another conversation, quit): the
    modal is taken away, nothing is sent, and the app goes on."""
    app = make_app(settings=no_tools_model())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"time?", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        screen = conversation(app)
        await screen.stop_streaming()
        await wait_until(pilot, lambda: app.screen is screen)
        await wait_idle(pilot)
        assert not screen.message_list.messages
    assert [r for r in chutes_server.requests if r.method == "POST"] == []


async def test_the_screen_below_shows_what_the_exchange_drew_before_it_asked(
        make_app: AppFactory) -> None:
    """Textual lays out only the current screen: a dialog pushed in the same breath as a
    mount (the reply that made a tool call, then its approval) would leave the stale frame
    behind it for as long as it is up. The dialog waits for the screen's refresh first."""
    from textual.widgets import Static

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        just_drawn = Static("the reply that made the call")

        async def mount_then_ask() -> bool:
            await screen.message_list.mount(just_drawn)
            return await screen.confirm("Run it?")

        worker = screen.run_worker(mount_then_ask())
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert just_drawn.region.height > 0  # laid out before the dialog covered it
        await pilot.press("y")
        await worker.wait()
        assert worker.result is True
