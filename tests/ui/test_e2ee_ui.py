"""Private chat in the app: F8 chooses a conversation's encryption; each reply's header and
the status line say how it was sent, and say it again once the conversation is reopened."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from textual.widgets import Select

from tests.fake_chutes_e2ee import FakeChutesE2EE
from tests.ui.conftest import AppFactory, conversation, rendered_text, wait_idle, wait_until
from tests.ui.test_conversation_settings import open_settings
from tui_chat.core.models import Role
from tui_chat.core.store import Store
from tui_chat.ui.widgets.status_bar import StatusInfo, status_text

MODEL = "deepseek-ai/DeepSeek-V3-0324"  # the app's default model for Chutes
PROMPT = "the vault code is 7319"


@pytest.fixture
def private_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeChutesE2EE]:
    with FakeChutesE2EE() as fake:
        fake.add(MODEL)
        yield fake


def test_the_status_line_shows_the_badge_and_nothing_without_one() -> None:
    assert "🔒 end-to-end" in status_text(StatusInfo(model="m", protection="🔒 end-to-end")).plain
    assert "🔒" not in status_text(StatusInfo(model="m")).plain


async def choose_required(pilot: object) -> None:
    dialog = await open_settings(pilot)  # type: ignore[arg-type]
    dialog.query_one("#e2ee", Select).value = "required"
    await pilot.press("ctrl+s")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: not isinstance(  # type: ignore[arg-type]
        pilot.app.screen, type(dialog)))  # type: ignore[attr-defined]


async def test_a_private_conversation_shows_its_badges_and_keeps_them(
        make_app: AppFactory, store: Store, private_server: FakeChutesE2EE,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUTES_BASE_URL", private_server.url)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await choose_required(pilot)
        screen = conversation(app)
        await pilot.press(*PROMPT, "enter")
        await wait_idle(pilot)
        assert "🔒 end-to-end" in rendered_text(screen.status)
        assert "🔒 end-to-end" in rendered_text(screen.message_list)
        chat = screen.workspace.session.conversation.id
    assert len(private_server.invokes) == 1 and private_server.plain_requests == []
    assert b"7319" not in bytes(private_server.wire)
    (reply,) = [m for m in store.get_messages(chat) if m.role == Role.ASSISTANT]
    assert reply.sent_as == "end-to-end"
    assert store.get_conversation(chat).parameters.e2ee == "required"
    again = make_app(conversation=chat)
    async with again.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "🔒 end-to-end" in rendered_text(conversation(again).message_list)


async def test_required_with_a_model_that_cannot_take_it_sends_nothing(
        make_app: AppFactory, store: Store, chutes_server: object) -> None:
    """The ordinary fake lists no chute ids: no model of it can take an encrypted request."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await choose_required(pilot)
        await pilot.press(*PROMPT, "enter")
        await wait_idle(pilot)
        screen = conversation(app)
        assert "nothing was sent" in " ".join(rendered_text(screen.message_list).split())
        assert "🔒" not in rendered_text(screen.status)
    posts = [r for r in chutes_server.requests if r.method == "POST"]  # type: ignore[attr-defined]
    assert posts == []


async def test_a_provider_on_the_research_proxy_is_warned_about_once_at_start(
        make_app: AppFactory) -> None:
    """A provider whose base URL is Chutes' research proxy (it records what passes through
    it): one warning when the app starts, whichever provider is in use (never contacted
    here: the conversation stays on the fake Chutes)."""
    from tests.ui.conftest import record_notifications
    from tui_chat.core.config import ProviderConfig, Settings

    settings = Settings(providers={"research": ProviderConfig(
        base_url="https://research.chutes.ai/v1", display_name="Chutes research",
        models=["m"], default_model="m")})
    app = make_app(settings=settings)
    notes = record_notifications(app)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_until(pilot, lambda: any("research proxy" in n for _, n in notes))
        await wait_idle(pilot)
    warned = [(severity, note) for severity, note in notes if "research proxy" in note]
    assert len(warned) == 1 and warned[0][0] == "warning"
    assert "Chutes research" in warned[0][1] and "do not send it anything private" in warned[0][1]
