"""Attachments in the app, through to the request body the loopback server receives: the
picker (Ctrl+T, Tab completes), `@path` in the prompt, the list above the prompt (size,
estimated tokens, each removable), attachments folded in the conversation, and an image
refused before the request for a text-only model, with a sentence naming it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DirectoryTree

from tests.fakeprovider import PRICED_MODELS, FakeProvider, Reply
from tests.ui.conftest import (
    AppFactory,
    conversation,
    record_notifications,
    rendered_text,
    wait_idle,
    wait_until,
)
from tui_chat.core.models import MessageStatus
from tui_chat.ui.screens.attach_picker import AttachScreen, PathInput
from tui_chat.ui.screens.help import collect_key_help
from tui_chat.ui.widgets.attachment_list import AttachmentList
from tui_chat.ui.widgets.message_view import MessageView

PNG = b"\x89PNG\r\n\x1a\n" + bytes(24)


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder to attach from, as the current folder."""
    folder = tmp_path / "work"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "main.py").write_text("print('hi')\n")
    (folder / "notes.txt").write_text("remember the milk\n")
    (folder / "photo.png").write_bytes(PNG)
    monkeypatch.chdir(folder)
    return folder


def attachments(app: Any) -> AttachmentList:
    return conversation(app).query_one("#attachments", AttachmentList)


def list_shown(app: Any) -> bool:
    """Whether the attachments' list shows (it is mounted with the first attachment)."""
    return any(widget.display for widget in conversation(app).query("#attachments"))


def user_content(server: FakeProvider) -> Any:
    messages = server.requests[-1].body["messages"]
    return [m for m in messages if m["role"] == "user"][-1]["content"]


async def chat_requests(server: FakeProvider) -> int:
    return sum(1 for r in server.requests if r.path.endswith("/chat/completions"))


async def pick(pilot: Pilot[Any], path: str) -> None:
    """Ctrl+T, type `path`, Enter: the file is listed."""
    await pilot.press("ctrl+t")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, AttachScreen))
    pilot.app.screen.query_one(PathInput).value = path
    await pilot.press("enter")
    await wait_until(pilot, lambda: not isinstance(pilot.app.screen, AttachScreen))


async def listed_models(app: Any, server: FakeProvider) -> None:
    server.models_list = PRICED_MODELS
    await app.workspace.catalog.refresh(app.workspace.provider)


async def test_a_picked_file_is_listed_then_goes_as_a_fenced_block_and_shows_folded(
        make_app: AppFactory, chutes_server: FakeProvider, files: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        assert not list_shown(app)
        await pick(pilot, "src/main.py")
        listed = attachments(app)
        await wait_until(pilot, lambda: "src/main.py" in rendered_text(listed))  # laid out
        shown = rendered_text(listed)
        assert "src/main.py" in shown and "12 B" in shown
        assert f"~{listed.attachments[0].tokens:,} tokens" in shown
        assert conversation(app).prompt.has_focus
        conversation(app).prompt.load_text("What does this do?")
        await pilot.press("enter")
        await wait_idle(pilot)
        assert user_content(chutes_server) == (
            "What does this do?\n\nsrc/main.py\n```python\nprint('hi')\n```")
        assert listed.attachments == [] and not listed.display
        view = conversation(app).query(MessageView).first()
        await wait_until(pilot, lambda: "▶ 📎 src/main.py · 12 B" in rendered_text(view))
        assert "print('hi')" not in rendered_text(view)


async def test_at_path_in_the_prompt_attaches_the_file(
        make_app: AppFactory, chutes_server: FakeProvider, files: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        conversation(app).prompt.load_text("Summarise @notes.txt please, not @nothing.md")
        await pilot.press("enter")
        await wait_idle(pilot)
        content = user_content(chutes_server)
        assert content.startswith("Summarise @notes.txt please, not @nothing.md\n\n")
        assert content.endswith("notes.txt\n```text\nremember the milk\n```")
        sent = conversation(app).message_list.messages[0]
        assert [a.name for a in sent.attachments] == ["notes.txt"]


async def test_an_image_to_a_text_only_model_is_refused_before_the_request(
        make_app: AppFactory, chutes_server: FakeProvider, files: Path) -> None:
    app = make_app(model="fake/small")
    await listed_models(app, chutes_server)
    notes = record_notifications(app)
    async with app.run_test(size=(120, 30)) as pilot:
        await pick(pilot, "photo.png")
        await wait_until(pilot, lambda: attachments(app).option_count == 1)
        before = await chat_requests(chutes_server)
        conversation(app).prompt.load_text("What is in it?")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any(s == "error" for s, _ in notes))
        await pilot.pause()
        message = next(m for s, m in notes if s == "error")
        assert message.startswith("fake/small does not read images, so photo.png")
        assert await chat_requests(chutes_server) == before
        assert conversation(app).prompt.text == "What is in it?"
        assert [a.name for a in attachments(app).attachments] == ["photo.png"]
        assert not conversation(app).message_list.messages


async def test_an_image_goes_as_a_content_part_to_a_model_that_reads_images(
        make_app: AppFactory, chutes_server: FakeProvider, files: Path) -> None:
    app = make_app(model="fake/large")
    await listed_models(app, chutes_server)
    async with app.run_test(size=(120, 30)) as pilot:
        await pick(pilot, "photo.png")
        await wait_until(pilot, lambda: "photo.png · 32 B · image" in rendered_text(
            attachments(app)))
        conversation(app).prompt.load_text("What is in it?")
        await pilot.press("enter")
        await wait_idle(pilot)
        text_part, image_part = user_content(chutes_server)
        assert text_part == {"type": "text", "text": "What is in it?"}
        assert image_part["type"] == "image_url"
        assert image_part["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")


async def test_each_listed_attachment_can_be_removed_before_sending(
        make_app: AppFactory, chutes_server: FakeProvider, files: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await pick(pilot, "notes.txt")
        await pick(pilot, "src/main.py")
        listed = attachments(app)
        await wait_until(pilot, lambda: listed.option_count == 2)
        await pilot.press("shift+tab")  # from the prompt to the list, the first highlighted
        await wait_until(pilot, lambda: listed.has_focus)
        await pilot.press("delete")
        await wait_until(pilot, lambda: listed.option_count == 1)
        assert [a.name for a in listed.attachments] == ["src/main.py"]
        await pilot.press("delete")
        await wait_until(pilot, lambda: not listed.display)
        assert conversation(app).prompt.has_focus
        conversation(app).prompt.load_text("nothing attached")
        await pilot.press("enter")
        await wait_idle(pilot)
        assert user_content(chutes_server) == "nothing attached"


async def test_tab_in_the_picker_completes_the_path_and_a_missing_file_is_said(
        make_app: AppFactory, files: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: isinstance(app.screen, AttachScreen))
        path = app.screen.query_one(PathInput)
        await pilot.press("s", "r", "tab")
        await wait_until(pilot, lambda: path.value == "src/")
        await pilot.press("m", "tab")
        await wait_until(pilot, lambda: path.value == "src/main.py")
        await pilot.press("tab")  # nothing more to complete: on to the tree
        await wait_until(pilot, lambda: app.screen.query_one(DirectoryTree).has_focus)
        path.focus()
        path.value = "gone.txt"
        await pilot.press("enter")
        await wait_until(pilot, lambda: "There is no file" in rendered_text(app.screen))
        assert isinstance(app.screen, AttachScreen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, AttachScreen))
        assert conversation(app).attach_flow.pending == []


async def test_attachments_come_back_when_nothing_arrives_and_only_with_their_own_message(
        make_app: AppFactory, chutes_server: FakeProvider, files: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = conversation(app)
        await pick(pilot, "notes.txt")
        listed = attachments(app)
        # Twice: a 400 is asked once more without stream_options (it may be what was refused).
        chutes_server.script(*[Reply.error(400, {"detail": "Bad request."})] * 2)
        screen.prompt.load_text("first")
        await pilot.press("enter")
        await wait_idle(pilot)
        await wait_until(pilot, lambda: screen.prompt.text == "first")
        assert [a.name for a in listed.attachments] == ["notes.txt"]
        screen.prompt.load_text("second")
        await pilot.press("enter")  # sent with notes.txt, replied
        await wait_idle(pilot)
        assert listed.attachments == []
        def failed() -> int:  # a failed reply says so on its own row (no toast repeats it)
            return sum(1 for m in screen.message_list.messages if m.status is MessageStatus.ERROR)

        errors = failed()
        chutes_server.script(*[Reply.error(400, {"detail": "Bad request."})] * 2)
        await pilot.press("ctrl+r")  # a regenerate that fails: no attachment of its own
        await wait_until(pilot, lambda: failed() > errors)
        await wait_idle(pilot)
        assert listed.attachments == [] and not listed.display


async def test_the_context_on_the_status_line_counts_the_listed_attachments(
        make_app: AppFactory, chutes_server: FakeProvider, files: Path) -> None:
    app = make_app(model="fake/small")
    await listed_models(app, chutes_server)
    (files / "big.txt").write_text("many words in this file " * 360)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = conversation(app)
        assert screen.status.info.context == ""
        await pick(pilot, "big.txt")
        await wait_until(pilot, lambda: screen.status.info.context.endswith("%)"))
        assert " / 2.0k ctx" in screen.status.info.context and screen.status.info.context_warning
        attachments(app).focus()
        await pilot.press("delete")
        await wait_until(pilot, lambda: screen.status.info.context == "")


async def test_tab_after_at_in_the_prompt_completes_the_path(
        make_app: AppFactory, chutes_server: FakeProvider, files: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        prompt = conversation(app).prompt
        prompt.load_text("Look at @s")
        prompt.move_cursor(prompt.document.end)
        await pilot.press("tab")
        await wait_until(pilot, lambda: prompt.text == "Look at @src/")
        assert conversation(app).attach_flow.pending == []  # a folder is not attached
        await pilot.press("m", "tab")
        await wait_until(pilot, lambda: prompt.text == "Look at @src/main.py")
        listed = attachments(app)  # a whole file name: listed before sending, with its size
        await wait_until(pilot, lambda: "src/main.py · 12 B" in rendered_text(listed))
        await pilot.press("tab")  # nothing more to complete: the focus stays
        await pilot.pause()
        assert prompt.has_focus and prompt.text == "Look at @src/main.py"
        await pilot.press("enter")
        await wait_idle(pilot)
        assert user_content(chutes_server) == (  # once, though listed and written
            "Look at @src/main.py\n\nsrc/main.py\n```python\nprint('hi')\n```")
        prompt.load_text("no mention")
        await pilot.press("tab")  # Tab elsewhere moves the focus on, as before
        await wait_until(pilot, lambda: not prompt.has_focus)


async def test_the_help_lists_the_attach_keys(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        rows = {row.description: row.keys for row in collect_key_help(app, conversation(app))}
        assert rows["Attach"] == "Ctrl+T"
        assert rows["Remove"].startswith("Del")
        assert rows["Complete the path after @ (an @path attaches the file)"] == "Tab"


async def test_a_file_chosen_in_the_picker_tree_is_listed(
        make_app: AppFactory, files: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: isinstance(app.screen, AttachScreen))
        tree = app.screen.query_one(DirectoryTree)
        await wait_until(pilot, lambda: len(tree.root.children) == 3)  # src/, notes.txt, photo
        await pilot.press("tab")
        await wait_until(pilot, lambda: tree.has_focus)
        notes = next(n for n in tree.root.children if str(n.label) == "notes.txt")
        tree.move_cursor(notes)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, AttachScreen))
        assert [a.name for a in attachments(app).attachments] == ["notes.txt"]


async def test_at_folder_in_the_prompt_is_refused_not_sent_as_text(
        make_app: AppFactory, chutes_server: FakeProvider, files: Path) -> None:
    app = make_app()
    notes = record_notifications(app)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        before = await chat_requests(chutes_server)
        conversation(app).prompt.load_text("Summarise @src please")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("src is a folder" in m for _, m in notes))
        await pilot.pause()
        assert await chat_requests(chutes_server) == before
        assert conversation(app).prompt.text == "Summarise @src please"


async def test_a_pdf_is_listed_with_its_pages_and_tokens(
        make_app: AppFactory, chutes_server: FakeProvider, files: Path) -> None:
    from tests.unit.test_pdf_attachments import make_pdf

    (files / "report.pdf").write_bytes(make_pdf(["Page one", "Page two"]))
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await pick(pilot, "report.pdf")
        listed = attachments(app)
        await wait_until(pilot, lambda: "report.pdf" in rendered_text(listed))
        shown = rendered_text(listed)
        assert "PDF, 2 pages" in shown and f"~{listed.attachments[0].tokens:,} tokens" in shown
        conversation(app).prompt.load_text("Summarise")
        await pilot.press("enter")
        await wait_idle(pilot)
        assert "[page 2]\nPage two" in user_content(chutes_server)
