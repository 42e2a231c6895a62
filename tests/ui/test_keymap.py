"""`[keys]` in config.toml remaps any binding by id: the key works, the old one does not, the
footer, help and palette show the user's key; a bad entry is one sentence; the README lists
every id."""

from __future__ import annotations

import re
from pathlib import Path

from tests.ui.conftest import (
    AppFactory,
    conversation,
    record_notifications,
    rendered_text,
    wait_until,
)
from tui_chat.core.config import Settings
from tui_chat.core.errors import Hint, ModelNotFoundError
from tui_chat.ui.advice import advice
from tui_chat.ui.commands import binding_commands
from tui_chat.ui.key_hints import written_key
from tui_chat.ui.keymap import BINDING_CLASSES, binding_classes, check_keymap, declared_bindings
from tui_chat.ui.screens.help import collect_key_help
from tui_chat.ui.screens.model_picker import ModelPickerScreen

ROOT = Path(__file__).resolve().parents[2]


async def test_a_remapped_key_works_and_is_shown_everywhere(make_app: AppFactory) -> None:
    settings = Settings(keys={"conversation.model": "f4", "messages.copy": ["c", "ctrl+y"]})
    app = make_app(settings=settings)
    async with app.run_test(size=(160, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("f2")
        await pilot.pause()
        assert app.screen is screen  # F2 is no longer the model picker
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        rows = {row.description: row.keys for row in collect_key_help(app, screen)}
        assert rows["Model"] == "F4" and rows["Copy"] == "c / Ctrl+Y"
        palette = {c.title: c.help for c in binding_commands(app, screen)}
        assert palette["Model"].endswith("· F4")
        assert "f4" in app.export_screenshot().lower().replace("&#160;", " ")


async def test_bad_entries_are_one_sentence_each_and_the_rest_applies(
        make_app: AppFactory) -> None:
    settings = Settings(keys={"conversation.nope": "f9", "app.help": "ctrl+!!",
                              "conversation.new": "ctrl+r", "app.settings": "f5"})
    app = make_app(settings=settings)
    notes = record_notifications(app)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await wait_until(pilot, lambda: len(notes) >= 3)
        said = [text for _, text in notes]
        assert any("'conversation.nope' is not a binding id" in t for t in said), said
        assert any("'app.help': 'ctrl+!!' is not a key" in t for t in said), said
        assert any("'conversation.new': ctrl+r is already 'conversation.regenerate'" in t
                   for t in said), said
        assert all("config.toml [keys]" in t for t in said)
        await pilot.press("f5")  # the good entry applies
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SettingsScreen")


def test_every_binding_id_of_the_app_can_be_remapped() -> None:
    """The registry is derived from the code: a hand-kept list missed the comparison's and
    the conversation settings' bindings, and `[keys]` refused their ids."""
    keymap, problems = check_keymap({"compare.choose": "c",
                                     "conversation_settings.save": "ctrl+w"}, "config.toml")
    assert problems == []
    assert keymap == {"compare.choose": "c", "conversation_settings.save": "ctrl+w"}


def test_the_binding_registry_is_the_one_the_code_declares() -> None:
    """BINDING_CLASSES is checked against the code: a class that gains id'd bindings, moves or
    goes fails here (copy the derived list into tui_chat/ui/keymap.py)."""
    assert list(BINDING_CLASSES) == binding_classes()


def test_the_keys_page_lists_every_binding_id() -> None:
    readme = (ROOT / "docs" / "keys.md").read_text(encoding="utf-8")
    table = readme.split("<!-- binding-ids -->")[1].split("<!-- /binding-ids -->")[0]
    listed = set(re.findall(r"^\| `([a-z_.0-9]+)` \|", table, re.M))
    for first, last in re.findall(r"^\| `([a-z_.]+)1` … `\1(\d)` \|", table, re.M):
        listed |= {f"{first}{n}" for n in range(1, int(last) + 1)}
    declared = {b.id for bindings in declared_bindings().values() for b in bindings if b.id}
    assert listed == declared



def test_alt_enter_and_ctrl_j_are_listed_as_new_line_keys_in_help_and_readme(
        make_app: AppFactory) -> None:
    rows = {row.keys: row.description for row in collect_key_help(make_app(), None)
            if row.group == "Prompt"}
    assert "new line" in rows["Ctrl+J"] and "new line" in rows["Alt+Enter"], rows
    readme = (ROOT / "docs" / "keys.md").read_text(encoding="utf-8")
    keys = {cells[1].strip(): cells[3] for line in readme.splitlines()
            if (cells := line.split("|")) and len(cells) > 4 and "prompt" in cells[2]}
    assert any("Alt+Enter" in key and "new line" in what for key, what in keys.items()), keys
    assert "new line" in keys["Ctrl+J"]


async def test_hints_name_the_users_keys(make_app: AppFactory) -> None:
    """The empty conversation's hint, the prompt's placeholder and the advice of an error
    name the keys the user gave those bindings, not the declared ones."""
    settings = Settings(keys={"conversation.model": "f4", "app.help": "f9",
                              "conversation.attach": ["ctrl+g", "ctrl+t"]})
    app = make_app(settings=settings)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = conversation(app)
        empty = screen.query_one("#empty")
        await wait_until(pilot, lambda: "picks a model" in rendered_text(empty))
        hint = " ".join(rendered_text(empty).split())
        assert "F4 picks a model, F9 lists every key" in hint and "F2" not in hint
        assert "Ctrl+G or @path attaches a file" in screen.prompt.placeholder
        assert advice(ModelNotFoundError("No such model.").hinted(Hint.MODEL)) == (
            "Press F4 to pick another model.")
    assert advice(ModelNotFoundError("No such model.").hinted(Hint.MODEL)) == (
        "Press F2 to pick another model.")  # no app running: the declared key


def test_keys_are_written_as_the_hints_write_them() -> None:
    assert [written_key(key) for key in ("ctrl+r", "f4", "r", "pageup", "ctrl+shift+x",
                                         "escape", "enter", "ctrl+up", "slash")] == [
        "Ctrl+R", "F4", "r", "PgUp", "Ctrl+Shift+X", "Esc", "Enter", "Ctrl+↑", "/"]
