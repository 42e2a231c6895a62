"""Pilot tests of comparing models in the app: choosing several in the picker, the replies side
by side (stacked when narrow), their prose at the reading width, one failing, Esc stopping all,
and continuing with one."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import (
    AppFactory,
    conversation,
    record_notifications,
    rendered_text,
    wait_idle,
    wait_until,
)
from tests.ui.reading_demo import PROSE
from tests.ui.test_attachments_ui import listed_models, pick
from tests.ui.test_reading_width import widths
from tests.ui.test_settings_applied import save_settings
from tui_chat.core.config import Settings
from tui_chat.core.models import MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.ui.commands import all_commands
from tui_chat.ui.screens.conversation import ConversationScreen
from tui_chat.ui.screens.model_picker import ModelPickerScreen
from tui_chat.ui.widgets.compare_view import CompareColumn, CompareView
from tui_chat.ui.widgets.message_view import MessageView
from tui_chat.ui.widgets.reply_view import ReplyView

MODELS = [("chutes", "deepseek-ai/DeepSeek-V3-0324"), ("sutra", "sutra-v2")]


@pytest.fixture
def with_sutra(sutra_server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> FakeProvider:
    monkeypatch.setenv("SUTRA_BASE_URL", sutra_server.url)
    monkeypatch.setenv("SUTRA_API_KEY", "sutra-test-key-0001")
    return sutra_server


def comparison(screen: ConversationScreen) -> CompareView:
    found = screen.query(CompareView)
    assert found, "no comparison on screen"
    return found.first()


async def compare(pilot: Pilot[Any], text: str) -> CompareView:
    screen = conversation(pilot.app)
    screen.workspace.choose_several(MODELS)
    screen.prompt.load_text(text)
    screen.prompt.submit()
    await wait_until(pilot, lambda: bool(screen.query(CompareView))
                     and len(comparison(screen).columns) == len(MODELS))
    return comparison(screen)


async def test_two_models_stream_side_by_side_and_one_is_chosen(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider,
        with_sutra: FakeProvider) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["from ", "chutes"]), gate=gate, gate_after=2))
    with_sutra.script(Reply(stream_of(["नमस्ते ", "सुत्र"], flavour="sutra"),
                            gate=gate, gate_after=2))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        view = await compare(pilot, "hello")
        await wait_until(pilot, lambda: all(c.reply is not None and c.reply.content
                                            for c in view.columns))
        left, right = view.columns
        assert left.region.x < right.region.x and left.region.y == right.region.y
        assert not view.has_class("-stacked")
        assert "from" in left.reply.content and "नमस्ते" in right.reply.content  # type: ignore[union-attr]
        assert "first token" in rendered_text(left.query_one(".figures"))
        gate.set()
        await wait_idle(pilot)
        assert app.focused is view  # all ended, the prompt was empty: choose now
        texts = [" ".join(rendered_text(c).split()) for c in view.columns]
        assert "12 in · 34 out" in texts[0] and "interrupted" not in texts[0]  # usage: Chutes
        assert "‹ 1/2 ›" in texts[0] and "‹ 2/2 ›" in texts[1]
        await pilot.press("right", "enter")
        await wait_until(pilot, lambda: not screen.query(CompareView))
        views = list(screen.query(MessageView))
        assert [v.message.content for v in views] == ["hello", "नमस्ते सुत्र"]
        assert "‹ 2/2 ›" in rendered_text(views[1]).splitlines()[0]
        assert app.focused is screen.prompt
        assert (screen.workspace.provider_name, screen.workspace.model) == MODELS[1]
        chat_id = screen.workspace.session.conversation.id
        await pilot.press(*"next", "enter")
        await wait_idle(pilot)
    assert [m.content for m in store.get_messages(chat_id)][:2] == ["hello", "नमस्ते सुत्र"]
    assert with_sutra.requests[-1].body["messages"][-2:] == [
        {"role": "assistant", "content": "नमस्ते सुत्र"}, {"role": "user", "content": "next"}]
    tree = store.get_tree(chat_id)
    assert {m.content for m in tree.messages if m.role is Role.ASSISTANT} == {
        "from chutes", "नमस्ते सुत्र", "Hello! You said: next"}


async def test_narrow_terminals_stack_the_columns(
        make_app: AppFactory, chutes_server: FakeProvider, with_sutra: FakeProvider) -> None:
    app = make_app()
    async with app.run_test(size=(80, 40)) as pilot:
        view = await compare(pilot, "hello")
        await wait_idle(pilot)
        first, second = view.columns
        assert view.has_class("-stacked")
        assert first.region.x == second.region.x and first.region.y < second.region.y


@pytest.mark.parametrize("size", [(96, 40), (200, 40)], ids=["stacked", "side-by-side"])
async def test_the_columns_wrap_prose_at_the_reading_width(
        make_app: AppFactory, chutes_server: FakeProvider, with_sutra: FakeProvider,
        size: tuple[int, int]) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of([PROSE]), gate=gate, gate_after=2))
    with_sutra.script(Reply(stream_of([PROSE], flavour="sutra"), gate=gate, gate_after=2))
    app = make_app(settings=Settings(reading_width=40))
    async with app.run_test(size=size) as pilot:
        view = await compare(pilot, "hello")
        await wait_until(pilot, lambda: all(c.reply is not None and c.reply.content == PROSE
                                            for c in view.columns))
        await pilot.pause()
        assert view.has_class("-stacked") is (size[0] < 100)
        for column in view.columns:
            assert column.content_size.width > 60  # wider than the reading width
            live = widths(column.reply.answer.lines, PROSE)  # type: ignore[union-attr]
            assert len(live) >= 5 and max(live) <= 40, live
        gate.set()
        await wait_idle(pilot)
        for column in view.columns:
            drawn = widths(column.query_one(MessageView).cached.lines, PROSE)
            assert len(drawn) >= 5 and max(drawn) <= 40, drawn
        if size[0] < 100:  # a reading width saved meanwhile applies to the replies shown
            await save_settings(pilot, reading_width="60")
            await pilot.pause()
            drawn = widths(view.columns[0].query_one(MessageView).cached.lines, PROSE)
            assert max(drawn) > 40 and max(drawn) <= 60, drawn


async def test_one_failing_does_not_stop_the_other(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider,
        with_sutra: FakeProvider) -> None:
    chutes_server.script(Reply.error(401, {"detail": "Invalid token."}))
    with_sutra.script(Reply(stream_of(["fine"], flavour="sutra")))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        view = await compare(pilot, "hello")
        await wait_idle(pilot)
        failed, fine = (c.message for c in view.columns)
        assert failed is not None and failed.status is MessageStatus.ERROR
        assert fine is not None and fine.content == "fine"
        assert "rejected the API key" in rendered_text(view.columns[0])
        # Sending on without choosing continues with the first saved reply that is active.
        await pilot.press("escape")
        assert app.focused is screen.prompt
        await pilot.press(*"more", "enter")
        await wait_idle(pilot)
        assert not screen.query(CompareView)
        shown = [v.message.content for v in screen.query(MessageView)]
        assert shown[0] == "hello" and shown[-2:] == ["more", "Hello! You said: more"]


async def test_escape_stops_every_column_and_keeps_what_arrived(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider,
        with_sutra: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["half ", "rest"]), stall_after=2, stall_seconds=20))
    with_sutra.script(Reply(stream_of(["आधा ", "बाकी"], flavour="sutra"), stall_after=2,
                            stall_seconds=20))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        view = await compare(pilot, "hello")
        await wait_until(pilot, lambda: all(c.reply is not None and c.reply.content
                                            for c in view.columns))
        await pilot.press("escape")
        await wait_idle(pilot)
        assert not screen.query(ReplyView)
        saved = [c.message for c in view.columns]
        assert all(m is not None and m.status is MessageStatus.INTERRUPTED for m in saved)
        assert [m.content for m in saved if m is not None] == ["half ", "आधा "]
        for message in saved:
            assert message is not None
            assert store.get_message(message.id).status is MessageStatus.INTERRUPTED
        assert screen.status.info.state == "stopped"


async def test_the_picker_marks_several_models_for_the_next_message(
        make_app: AppFactory, chutes_server: FakeProvider, with_sutra: FakeProvider) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        picker = app.screen
        assert isinstance(picker, ModelPickerScreen)
        await pilot.press(*"DeepSeek-R1")
        await wait_until(pilot, lambda: picker.highlighted_choice() is not None
                         and picker.highlighted_choice().model == "deepseek-ai/DeepSeek-R1")  # type: ignore[union-attr]
        await pilot.press("ctrl+t")
        assert [m.model for m in picker.marked] == ["deepseek-ai/DeepSeek-R1"]
        for _ in range(len("DeepSeek-R1")):
            await pilot.press("backspace")
        await pilot.press(*"sutra-v2")
        await wait_until(pilot, lambda: picker.highlighted_choice() is not None
                         and picker.highlighted_choice().model == "sutra-v2")  # type: ignore[union-attr]
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is screen)
        assert screen.workspace.compare_models == (("chutes", "deepseek-ai/DeepSeek-R1"),
                                                   ("sutra", "sutra-v2"))
        assert "compare 2:" in screen.status.info.model
        screen.prompt.load_text("q")
        screen.prompt.submit()
        await wait_until(pilot, lambda: bool(screen.query(CompareView)))
        await wait_idle(pilot)
        assert screen.workspace.compare_models == ()  # for that one message
        assert "compare" not in screen.status.info.model
        assert len(comparison(screen).query(CompareColumn)) == 2


async def test_compare_models_is_in_the_palette(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)):
        titles = [command.title for command in all_commands(app, app.screen)]
        assert "Compare models…" in titles


async def test_a_provider_without_a_key_is_said_before_anything_is_sent(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider,
        sutra_server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUTRA_BASE_URL", sutra_server.url)
    monkeypatch.delenv("SUTRA_API_KEY", raising=False)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        notes = record_notifications(app)
        screen = conversation(app)
        screen.workspace.choose_several(MODELS)
        screen.prompt.load_text("hello")
        screen.prompt.submit()
        await wait_idle(pilot)
        assert screen.prompt.text == "hello"  # given back
        assert not screen.query(CompareView)
        errors = [text for severity, text in notes if severity == "error"]
        assert len(errors) == 1 and "SUTRA" in errors[0]
        assert screen.workspace.compare_models == tuple(MODELS)  # still chosen
    assert not chutes_server.requests or all(r.method == "GET" for r in chutes_server.requests)
    assert store.latest_conversation() is None


@pytest.fixture
def attachable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder to attach from, as the current folder: a text file and a PNG."""
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "notes.txt").write_text("remember the milk\n")
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(24))
    monkeypatch.chdir(folder)
    return folder


def last_user_content(server: FakeProvider) -> Any:
    posts = [r for r in server.requests if r.method == "POST"]
    return [m for m in posts[-1].body["messages"] if m["role"] == "user"][-1]["content"]


async def test_an_attached_file_goes_to_every_model_compared(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider,
        with_sutra: FakeProvider, attachable: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        await pick(pilot, "notes.txt")
        await wait_until(pilot, lambda: len(screen.attach_flow.listed.attachments) == 1)
        await compare(pilot, "What is in it?")
        await wait_idle(pilot)
        sent = "What is in it?\n\nnotes.txt\n```text\nremember the milk\n```"
        assert last_user_content(chutes_server) == sent
        assert last_user_content(with_sutra) == sent
        assert screen.attach_flow.listed.attachments == []  # they went with the message
        chat_id = screen.workspace.session.conversation.id
    prompt = store.get_messages(chat_id)[0]
    assert [a.name for a in prompt.attachments] == ["notes.txt"]


async def test_an_image_a_compared_model_cannot_read_is_refused_before_anything_is_sent(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider,
        with_sutra: FakeProvider, attachable: Path) -> None:
    """The model in use reads images (so the prompt takes the image); the two compared
    do not."""
    app = make_app(model="fake/large")
    await listed_models(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        notes = record_notifications(app)
        screen = conversation(app)
        await pick(pilot, "photo.png")
        await wait_until(pilot, lambda: len(screen.attach_flow.listed.attachments) == 1)
        screen.workspace.choose_several(MODELS)
        screen.prompt.load_text("What is in it?")
        screen.prompt.submit()
        await wait_until(pilot, lambda: any(s == "error" for s, _ in notes))
        await wait_idle(pilot)
        errors = [text for severity, text in notes if severity == "error"]
        assert errors[0].startswith(f"{MODELS[0][1]} does not read images, so photo.png")
        assert screen.prompt.text == "What is in it?"  # given back, with its image
        assert [a.name for a in screen.attach_flow.listed.attachments] == ["photo.png"]
        assert screen.workspace.compare_models == tuple(MODELS)  # still chosen
    for server in (chutes_server, with_sutra):
        assert all(r.method == "GET" for r in server.requests)
    assert store.latest_conversation() is None


LONG_LINES = [f"line {n} of a long compared answer\n\n" for n in range(60)]


async def test_a_comparison_follows_the_ends_then_shows_the_chosen_reply_from_its_top(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider,
        with_sutra: FakeProvider) -> None:
    """Issue 25: while the replies stream, the view follows their ends (as a single reply's
    does, until the user scrolls); once one is chosen, it is shown from its top."""
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(LONG_LINES), gate=gate, gate_after=40))
    with_sutra.script(Reply(stream_of(LONG_LINES[:30], flavour="sutra"),
                            gate=gate, gate_after=20))
    app = make_app()
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            screen = conversation(app)
            messages = screen.message_list
            view = await compare(pilot, "hello")
            await wait_until(pilot, lambda: all(
                c.reply is not None and "line 18 " in c.reply.content for c in view.columns))
            await wait_until(pilot, lambda: messages.max_scroll_y > 0
                             and messages.scroll_y == messages.max_scroll_y)
            gate.set()
            await wait_until(pilot, lambda: not view.streaming)
            await pilot.pause()
            assert messages.scroll_y == messages.max_scroll_y  # the ends, seen
            await pilot.press("1")
            await wait_until(pilot, lambda: not screen.query(CompareView))
            await pilot.pause()
            chosen = screen.query(MessageView)[-1]
            assert chosen.message.role is Role.ASSISTANT and "line 59" in chosen.message.content
            top = chosen.virtual_region.y
            assert messages.scroll_y <= top < messages.scroll_y + messages.size.height
    finally:
        gate.set()


THREE = [("chutes", "fake/small"), ("chutes", "Qwen/Qwen3-235B-A22B"),
         ("chutes", "deepseek-ai/DeepSeek-V3-0324")]


async def test_three_columns_at_120_keep_headers_and_figures_on_one_row_each(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """Issue 25: at 120 columns a column's figures wrapped into the next row and the headers
    broke across lines (`‹ 2/3` above `›`); the status line named the model from before the
    comparison, and after the choice the window of that model."""
    from tests.ui.test_context_cost import listed

    app = make_app(model="fake/large")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        screen.workspace.choose_several(THREE)
        screen.prompt.load_text("compare this")
        screen.prompt.submit()
        await wait_until(pilot, lambda: screen.status.info.model == "comparing 3 models")
        await wait_idle(pilot)
        view = comparison(screen)
        assert app.focused is view and not view.has_class("-stacked")
        assert screen.status.info.model == "comparing 3 models"
        for number, column in enumerate(view.columns, start=1):
            figures = column.query_one(".figures")
            assert figures.region.height == 1, rendered_text(figures)
            assert f" {number}  first" in rendered_text(figures)
            header, after = rendered_text(column.query_one(MessageView)).splitlines()[:2]
            assert f"‹ {number}/3 ›" in header and "›" not in after, (header, after)
        assert "…" in rendered_text(view.columns[2].query_one(MessageView)).splitlines()[0]
        await pilot.press("1")
        await wait_until(pilot, lambda: not screen.query(CompareView))
        await wait_idle(pilot)
        info = screen.status.info
        assert info.model == "fake/small"
        assert info.context.endswith(" / 2.0k ctx"), info.context
