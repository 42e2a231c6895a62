"""Pilot tests of a conversation's own settings (F8) and of personas in the app: the system
prompt row, editing prompt and parameters, a persona filling them, personas in the palette and
on an empty conversation, one notification for broken persona files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.containers import Vertical
from textual.pilot import Pilot
from textual.widgets import Input, Select, TextArea

from tests.fakeprovider import FakeProvider
from tests.ui.conftest import (
    AppFactory,
    conversation,
    record_notifications,
    rendered_text,
    wait_idle,
    wait_until,
)
from tui_chat.core.config import Settings
from tui_chat.core.models import Conversation, Message, Parameters, Role
from tui_chat.core.store import Store
from tui_chat.ui.commands import all_commands
from tui_chat.ui.screens.conversation_settings import (
    ConversationSettingsScreen,
    parse_stop,
    stop_text,
)


async def open_settings(pilot: Pilot[Any]) -> ConversationSettingsScreen:
    await pilot.press("f8")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConversationSettingsScreen))
    screen = pilot.app.screen
    assert isinstance(screen, ConversationSettingsScreen)
    return screen


async def personas_loaded(pilot: Pilot[Any]) -> None:
    await wait_until(pilot, lambda: bool(conversation(pilot.app).setup.personas))
    await pilot.pause()  # and drawn


def test_stop_sequences_are_one_a_line_with_escaped_line_breaks() -> None:
    stops = ["\n\nUser:", "END", "a\\nb"]
    assert stop_text(stops) == "\\n\\nUser:\nEND\na\\\\nb"
    assert parse_stop(stop_text(stops)) == stops
    assert parse_stop("\n\n") is None


async def test_f4_edits_this_conversations_prompt_and_parameters(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chat = store.create_conversation(Conversation(title="Mine", system_prompt="Be brief.",
                                                  parameters=Parameters(temperature=0.5)))
    store.add_message(Message(conversation_id=chat.id, role=Role.USER, content="hi"))
    app = make_app(conversation=chat.id,
                   settings=Settings(system_prompt="Default prompt for new ones."))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        assert "Be brief." in rendered_text(screen.query_one("#system-row"))
        dialog = await open_settings(pilot)
        assert dialog.query_one("#system_prompt", TextArea).text == "Be brief."
        assert dialog.query_one("#temperature", Input).value == "0.5"
        dialog.query_one("#system_prompt", TextArea).load_text("Answer in French.")
        dialog.query_one("#temperature", Input).value = "5"  # out of range: refused
        dialog.query_one("#max_tokens", Input).value = "64"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is dialog
        assert "Must be between 0 and 2." in rendered_text(
            dialog.query_one("#error-temperature"))
        assert store.get_conversation(chat.id).system_prompt == "Be brief."
        dialog.query_one("#temperature", Input).value = "0.9"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.screen is screen)
        assert "Answer in French." in rendered_text(screen.query_one("#system-row"))
        await pilot.press(*"again", "enter")
        await wait_idle(pilot)
    saved = store.get_conversation(chat.id)
    assert saved.system_prompt == "Answer in French."
    assert (saved.parameters.temperature, saved.parameters.max_tokens) == (0.9, 64)
    body = chutes_server.requests[-1].body
    assert body["messages"][0] == {"role": "system", "content": "Answer in French."}
    assert (body["temperature"], body["max_tokens"]) == (0.9, 64)


async def test_without_a_system_prompt_there_is_no_row(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)):
        assert not conversation(app).query_one("#system-row").display


async def test_a_persona_fills_the_fields_and_chooses_its_model(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        await personas_loaded(pilot)
        dialog = await open_settings(pilot)
        dialog.query_one("#persona", Select).value = "translator"
        await pilot.pause()
        assert "careful translator" in dialog.query_one("#system_prompt", TextArea).text
        assert dialog.query_one("#temperature", Input).value == "0.3"
        dialog.query_one("#temperature", Input).value = "0.4"  # edited after: it wins
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.screen is screen)
        session = screen.workspace.session
        assert "careful translator" in (session.conversation.system_prompt or "")
        assert session.conversation.parameters.temperature == 0.4
        assert (screen.workspace.provider_name, screen.workspace.model) == ("sutra",
                                                                            "sutra-v2")


async def test_personas_are_in_the_palette_and_offered_when_empty(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        await personas_loaded(pilot)
        assert "Personas: code-reviewer, socratic-tutor, translator" in rendered_text(
            screen.query_one("#empty"))
        await pilot.press(*"first", "enter")
        await wait_idle(pilot)
        commands = {c.title: c for c in all_commands(app, app.screen)}
        assert {"Persona: code-reviewer", "Persona: translator"} <= set(commands)
        first = screen.workspace.session.conversation.id
        commands["Persona: code-reviewer"].run()
        await wait_until(pilot, lambda: screen.workspace.session.conversation.id != first
                         and bool(screen.workspace.session.conversation.system_prompt))
        # The row is drawn once the new conversation is shown (after the workspace has it).
        await wait_until(pilot, lambda: "senior engineer" in rendered_text(
            screen.query_one("#system-row")))
        await pilot.press(*"review", "enter")
        await wait_idle(pilot)
    body = chutes_server.requests[-1].body
    assert "senior engineer" in body["messages"][0]["content"]
    assert len(store.get_messages(first)) == 2  # the first conversation stays as it was


async def test_broken_persona_files_get_one_notification_naming_file_and_key(
        make_app: AppFactory, isolated_dirs: Path) -> None:
    folder = isolated_dirs / "config" / "tui-chat" / "personas"
    folder.mkdir(parents=True)
    (folder / "bad-key.toml").write_text('system_prompt = "x"\ncolour = "red"\n',
                                         encoding="utf-8")
    (folder / "not-toml.toml").write_text("system_prompt = \n", encoding="utf-8")
    (folder / "mine.toml").write_text('system_prompt = "Mine."\n', encoding="utf-8")
    app = make_app()
    notes = record_notifications(app)  # before start: the personas are read right after it
    async with app.run_test(size=(120, 40)) as pilot:
        await personas_loaded(pilot)
        await pilot.pause()
        names = [p.name for p in conversation(app).setup.personas]
        assert "mine" in names and "translator" in names
    warnings = [text for severity, text in notes if severity == "warning"]
    assert len(warnings) == 1
    assert "bad-key.toml" in warnings[0] and "'colour'" in warnings[0]
    assert "not-toml.toml" in warnings[0]



async def test_f8s_fields_are_visible_cells_saying_provider_default_before_focus(
        make_app: AppFactory) -> None:
    """Issue 25: F8's number fields and stop were cells in the dialog's own background until
    focused (invisible); they take F3's field style and say what an empty field means."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await open_settings(pilot)
        await pilot.pause()
        box = dialog.query_one(Vertical).styles.background
        for name in ("temperature", "max_tokens", "top_p", "presence_penalty",
                     "frequency_penalty", "stop"):
            field = dialog.query_one(f"#{name}", Input | TextArea)  # type: ignore[arg-type]
            assert not field.has_focus
            assert field.styles.background != box, name
            assert str(field.placeholder) == "provider default", name
