"""A key the prompt already uses (F6 selects the line, Ctrl+Y redoes, Ctrl+E opens the editor)
given in `[keys]` to an action of the screen or the app behind the prompt never reached it: the
action disappeared without a word. Now the conflict is named, the key left out, and the action
keeps its own key. A keymap of any size is checked with a bounded number of sentences and
keys."""

from __future__ import annotations

from tests.ui.conftest import AppFactory, record_notifications, wait_until
from tui_chat.core.config import Settings
from tui_chat.ui.keymap import MAX_KEYS_PER_BINDING, MAX_PROBLEMS, check_keymap
from tui_chat.ui.screens.model_picker import ModelPickerScreen


def test_a_key_the_prompt_uses_is_named_and_left_out() -> None:
    keymap, problems = check_keymap({"conversation.model": "f6", "app.help": ["ctrl+y", "f9"],
                                     "conversation.new": "ctrl+e", "app.settings": "f10"},
                                    "config.toml")
    assert keymap == {"app.help": "f9", "app.settings": "f10"}
    assert problems == [
        "config.toml [keys] 'app.help': ctrl+y is the prompt's key for 'Redo', so while you "
        "type it would never reach 'app.help'; it was left out (choose another key).",
        "config.toml [keys] 'conversation.new': ctrl+e is the prompt's key for 'Editor', so "
        "while you type it would never reach 'conversation.new'; it was left out (choose "
        "another key).",
        "config.toml [keys] 'conversation.model': f6 is the prompt's key for 'Select line', "
        "so while you type it would never reach 'conversation.model'; it was left out "
        "(choose another key)."]


def test_a_prompt_key_moved_away_is_free_for_the_screen() -> None:
    keymap, problems = check_keymap({"prompt.editor": "f11", "conversation.new": "ctrl+e"},
                                    "config.toml")
    assert keymap == {"prompt.editor": "f11", "conversation.new": "ctrl+e"} and problems == []


async def test_the_action_keeps_its_own_key_and_the_conflict_is_said(
        make_app: AppFactory) -> None:
    app = make_app(settings=Settings(keys={"conversation.model": "f6"}))
    notes = record_notifications(app)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await wait_until(pilot, lambda: len(notes) >= 1)
        assert "f6 is the prompt's key for 'Select line'" in notes[0][1]
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))


def test_a_keymap_of_any_size_gives_a_bounded_answer() -> None:
    huge = {f"nope.{index}": "f5" for index in range(20_000)}
    huge["app.help"] = [f"f{index + 10}" for index in range(20_000)]
    keymap, problems = check_keymap(huge, "config.toml")
    assert len(problems) == MAX_PROBLEMS
    assert problems[-1] == ("config.toml [keys]: 19997 more entries have problems like these; "
                            "they were left out.")
    assert keymap == {"app.help": ",".join(f"f{index + 10}" for index in
                                           range(MAX_KEYS_PER_BINDING))}
