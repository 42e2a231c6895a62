"""Composing: Ctrl+E writes the prompt in $EDITOR (a stand-in script) and brings it back,
unsent; a long prompt shows its size; the prompt's keys scroll the conversation."""

from __future__ import annotations

import stat
import threading
from pathlib import Path

import pytest

from tests.editors import edited_file, seen, stand_in
from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import (
    AppFactory,
    conversation,
    live_reply,
    record_notifications,
    wait_idle,
    wait_until,
)
from tests.ui.test_conversation_history import saved_conversation
from tui_chat.core.store import Store
from tui_chat.core.tokens import estimate_tokens
from tui_chat.ui.screens.help import collect_key_help
from tui_chat.ui.widgets.message_list import PAGE
from tui_chat.ui.widgets.message_view import MessageView


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder of the stand-in editor that $EDITOR names (write it with `stand_in`)."""
    folder = tmp_path / "editor"
    folder.mkdir()
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(folder / "ed"))
    return folder


async def test_ctrl_e_brings_the_edited_text_back_unsent(
        make_app: AppFactory, editor: Path, chutes_server: FakeProvider) -> None:
    stand_in(editor, "ed", "path.write_text(path.read_text() + '\\nsecond line, नमस्ते\\n')\n")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press(*"first line")
        await pilot.press("ctrl+e")
        await wait_until(pilot, lambda: "second" in screen.prompt.text)
        assert screen.prompt.text == "first line\nsecond line, नमस्ते"
        assert screen.prompt.has_focus and screen.prompt.cursor_location == (1, 19)
        assert not chutes_server.requests and not screen.message_list.messages
        await pilot.press("ctrl+z")  # one edit: the text before the editor comes back
        assert screen.prompt.text == "first line"
    record = seen(editor)
    assert record["text"] == "first line"
    assert record["mode"] == stat.S_IRUSR | stat.S_IWUSR
    assert not edited_file(editor).exists()


@pytest.mark.parametrize(("body", "words"), [
    ("path.write_text('lost'); raise SystemExit(2)\n", "exited with status 2"),
    ("path.unlink()\n", "could not be read back"),
])
async def test_a_failing_editor_is_one_sentence_and_the_prompt_keeps_its_text(
        make_app: AppFactory, editor: Path, body: str, words: str) -> None:
    stand_in(editor, "ed", body)
    app = make_app()
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        screen = conversation(app)
        await pilot.press(*"keep me", "ctrl+e")
        await wait_until(pilot, lambda: bool(notes))
        assert screen.prompt.text == "keep me"
    [(severity, text)] = notes
    assert severity == "error" and words in text and text.endswith("The prompt is unchanged.")


async def test_a_missing_editor_is_one_sentence(make_app: AppFactory, editor: Path) -> None:
    app = make_app()  # nothing written at $EDITOR
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.press(*"keep me", "ctrl+e")
        await wait_until(pilot, lambda: bool(notes))
        assert conversation(app).prompt.text == "keep me"
    assert "(from $EDITOR) was not found: set $EDITOR to an editor you have" in notes[0][1]


async def test_no_editor_while_a_reply_streams(make_app: AppFactory, editor: Path,
                                               chutes_server: FakeProvider) -> None:
    stand_in(editor, "ed", "")
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["partial ", "rest"]), gate=gate, gate_after=2))
    app = make_app()
    notes = record_notifications(app)
    try:
        async with app.run_test(size=(100, 30), notifications=True) as pilot:
            screen = conversation(app)
            await pilot.press(*"go", "enter")
            await live_reply(pilot, screen, lambda text: "partial" in text)
            await pilot.press("ctrl+e")
            await wait_until(pilot, lambda: bool(notes))
            assert "still streaming" in notes[0][1]
            gate.set()
            await wait_idle(pilot)
    finally:
        gate.set()
    assert not (editor / "seen.json").exists()


async def test_a_prompt_longer_than_the_box_shows_its_size(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = conversation(app).prompt
        await pilot.press(*"short")
        await pilot.pause()
        assert prompt.border_subtitle == ""
        long_text = "\n".join(f"भारत line {i}" for i in range(30))
        prompt.insert(long_text)
        expected = (f"{len(prompt.text):,} characters · ~{estimate_tokens(prompt.text):,} "
                    "tokens")
        await wait_until(pilot, lambda: prompt.border_subtitle == expected)
        prompt.move_cursor((3, 4))  # an edit in the middle is counted where it is
        await pilot.press("ctrl+j", "space", "space", *"code")
        assert "\n  code" in prompt.text
        expected = (f"{len(prompt.text):,} characters · ~{estimate_tokens(prompt.text):,} "
                    "tokens")
        await wait_until(pilot, lambda: prompt.border_subtitle == expected)
        prompt.clear()
        await wait_until(pilot, lambda: prompt.border_subtitle == "")


async def test_the_prompts_keys_scroll_the_conversation(make_app: AppFactory,
                                                        store: Store) -> None:
    chat = saved_conversation(store, 100)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        messages = screen.message_list
        await pilot.press(*"draft")
        bottom = messages.scroll_y
        assert bottom == messages.max_scroll_y > 0
        await pilot.press("pageup")
        await wait_until(pilot, lambda: messages.scroll_y < bottom)
        assert bottom - messages.scroll_y >= messages.scrollable_content_region.height - 2
        paged = messages.scroll_y
        await pilot.press("ctrl+down")
        await wait_until(pilot, lambda: messages.scroll_y == paged + 1)
        await pilot.press("ctrl+up", "ctrl+up")
        await wait_until(pilot, lambda: messages.scroll_y == paged - 1)
        await pilot.press("pagedown", "pagedown")  # a page and a line: to the end
        await wait_until(pilot, lambda: messages.scroll_y == messages.max_scroll_y)
        await pilot.press("ctrl+home")  # the first page is mounted, the view at its top
        await wait_until(pilot, lambda: messages.query(MessageView)[0].message.content
                         == "message 0" and messages.scroll_y == 0 and not messages.paging)
        await pilot.press("ctrl+end")
        await wait_until(pilot, lambda: messages.query(MessageView)[-1].message.content
                         == "message 99" and messages.scroll_y == messages.max_scroll_y)
        # The prompt kept the focus and its text; no message was selected on the way.
        assert screen.prompt.has_focus and screen.prompt.text == "draft"
        assert messages.selected is None
        assert len(messages.query(MessageView)) <= 2 * PAGE


async def test_the_help_lists_the_prompts_keys_in_one_group(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        rows = collect_key_help(app, conversation(app))
        await pilot.pause()
    prompt = {(row.keys, row.description) for row in rows if row.group == "Prompt"}
    assert {("Ctrl+E", "Editor"), ("PgUp", "Scroll the conversation up a page"),
            ("Ctrl+Home", "Scroll to the start of the conversation"),
            ("Enter", "Send the prompt")} <= prompt
    groups = list(dict.fromkeys(row.group for row in rows))
    assert groups.count("Prompt") == 1 and "Prompt input" not in groups, groups
