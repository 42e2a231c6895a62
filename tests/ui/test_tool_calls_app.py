"""Tools in the app (issue 23), against the loopback fake provider and mcp-server-time: the
question, the call, the approval dialog, the result folded, the answer; denial with a
reason; a model that takes no tools; a reopened conversation shows the same rows."""

from __future__ import annotations

import base64
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of, tool_call_stream
from tests.mcp.conftest import fault_server, markers, time_server
from tests.ui.conftest import AppFactory, conversation, rendered_text, wait_idle, wait_until
from tui_chat.core.config import Settings
from tui_chat.core.mcp.config import McpSettings
from tui_chat.core.mcp.loop import CANCELLED
from tui_chat.core.model_facts import ModelSettings
from tui_chat.core.models import Role
from tui_chat.core.store import Store
from tui_chat.ui.screens.confirm import ConfirmScreen
from tui_chat.ui.screens.tool_approval import ToolApprovalScreen
from tui_chat.ui.widgets.message_view import MessageView
from tui_chat.ui.widgets.tool_rows import LiveCalls

__all__ = ["markers"]  # the fixture: FAULT_MARKER and FAULT_STATE for the fault server

MODEL = "deepseek-ai/DeepSeek-V3-0324"
KOLKATA = ("time__get_current_time", '{"timezone": "Asia/Kolkata"}')


def tool_settings(*, tools: bool = True) -> Settings:
    return Settings(mcp=McpSettings(servers={"time": time_server()}),
                    models={f"chutes:{MODEL}": ModelSettings(tools=tools)})


async def send(pilot: Pilot[Any], text: str) -> None:
    screen = conversation(pilot.app)
    screen.prompt.load_text(text)
    await pilot.press("enter")


async def approval(pilot: Pilot[Any]) -> ToolApprovalScreen:
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ToolApprovalScreen))
    assert isinstance(pilot.app.screen, ToolApprovalScreen)
    return pilot.app.screen


def shown(pilot: Pilot[Any]) -> str:
    screen = conversation(pilot.app)
    return "\n".join(rendered_text(view) for view in screen.query(MessageView))


async def test_a_call_approved_in_the_dialog_runs_and_its_result_shows_folded(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    frames = tool_call_stream([KOLKATA], ids=["call_k"], pieces=3)
    gate = threading.Event()  # held before the reply's end: the call shows as it formed
    chutes_server.script(Reply(frames, gate=gate, gate_after=len(frames) - 3))
    app = make_app(settings=tool_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "What time is it in Kolkata?")
        screen = conversation(app)
        await wait_until(pilot, lambda: bool(screen.query(LiveCalls)) and '"Asia/Kolkata"}' in
                         screen.query_one(LiveCalls).rows().plain)
        assert "🔧 time__get_current_time" in rendered_text(screen.query_one(LiveCalls))
        gate.set()
        dialog = await approval(pilot)
        assert (dialog.server, dialog.tool) == ("time", "get_current_time")
        assert dialog.arguments == {"timezone": "Asia/Kolkata"}
        assert screen.status.info.state == "waiting for you"
        # while it waits, the reply says its call is being answered
        assert "The model called a tool" in shown(pilot)
        assert "tools are not enabled" not in shown(pilot)
        await pilot.press("1")
        await wait_idle(pilot)
        text = shown(pilot)
        assert "tools are not enabled" not in text
        assert "The model called a tool (time__get_current_time)." in text
        assert '▶ 🔧 time.get_current_time {"timezone": "Asia/Kolkata"} · ' in text
        assert "· ok" in text
        assert "The tool call_k said:" in text  # the answer
        assert not conversation(app).query(LiveCalls)
        *_, tool, _answer = conversation(app).workspace.session.messages()
        assert tool.role is Role.TOOL and tool.tool_run is not None
        assert tool.tool_run.status == "ok"
        assert json.loads(tool.content)["timezone"] == "Asia/Kolkata"
        conversation_id = conversation(app).workspace.session.conversation.id
    # reopened: the same rows
    app = make_app(settings=tool_settings(), conversation=conversation_id)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: len(conversation(app).query(MessageView)) == 4)
        text = shown(pilot)
        assert "The model called a tool (time__get_current_time)." in text
        assert '▶ 🔧 time.get_current_time {"timezone": "Asia/Kolkata"} · ' in text
        assert "tools are not enabled" not in text
        # Enter (or t) on the folded result unfolds it: the whole result shows (folded, its
        # row previews the start of it on one line)
        screen = conversation(app)
        result = screen.query(MessageView)[2]
        assert '"is_dst"' not in rendered_text(result)
        screen.message_list.focus()
        await wait_until(pilot, lambda: screen.message_list.selected == 3)
        await pilot.press("up", "enter")
        await wait_until(pilot, lambda: '"is_dst"' in rendered_text(result))
        await pilot.press("t")
        await wait_until(pilot, lambda: '"is_dst"' not in rendered_text(result))


async def test_a_denial_with_a_reason_goes_back_to_the_model(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=["call_k"])))
    app = make_app(settings=tool_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "What time is it in Kolkata?")
        await approval(pilot)
        await pilot.press("r", *"use UTC", "enter")
        await wait_idle(pilot)
        sent = [r.body for r in chutes_server.requests if r.method == "POST"][-1]
        assert sent["messages"][-1]["role"] == "tool"
        assert sent["messages"][-1]["content"].endswith("Their reason: use UTC")
        assert "denied" in shown(pilot)


async def test_a_model_without_tools_asks_before_sending_without_them(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(settings=tool_settings(tools=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "hello")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "does not take tools" in app.screen.question  # type: ignore[attr-defined]
        await pilot.press("n")
        await wait_idle(pilot)
        assert not [r for r in chutes_server.requests if r.method == "POST"]
        assert conversation(app).prompt.text == "hello"  # nothing lost
        await send(pilot, "hello")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_idle(pilot)
        posted = [r.body for r in chutes_server.requests if r.method == "POST"]
        assert len(posted) == 1 and "tools" not in posted[0]


def fault_settings() -> Settings:
    return Settings(mcp=McpSettings(servers={"fault": fault_server()}),
                    models={f"chutes:{MODEL}": ModelSettings(tools=True)})


async def test_esc_cancels_the_running_call_alone_and_the_model_is_told(
        make_app: AppFactory, chutes_server: FakeProvider, markers: Path) -> None:
    chutes_server.script(Reply(tool_call_stream([("fault__slow", "{}")], ids=["call_s"])))
    app = make_app(settings=fault_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "run the slow one")
        await approval(pilot)
        await pilot.press("1")
        screen = conversation(app)
        await wait_until(pilot, lambda: bool(screen.query(LiveCalls))
                         and "running fault.slow" in screen.query_one(LiveCalls).rows().plain)
        await pilot.press("escape")
        await wait_idle(pilot)
        *_, tool, answer = screen.workspace.session.messages()
        assert tool.tool_run is not None and tool.tool_run.status == "cancelled"
        assert answer.role is Role.ASSISTANT and answer.content.startswith("The tool call_s")
        sent = [r.body for r in chutes_server.requests if r.method == "POST"][-1]
        assert sent["messages"][-1]["content"] == CANCELLED
        assert "cancelled" in shown(pilot)


async def test_the_running_row_shows_the_servers_progress(
        make_app: AppFactory, chutes_server: FakeProvider, markers: Path) -> None:
    chutes_server.script(Reply(tool_call_stream([("fault__progress_held", "{}")],
                                                ids=["call_p"])))
    app = make_app(settings=fault_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "run the one that reports its progress")
        await approval(pilot)
        await pilot.press("1")
        screen = conversation(app)
        # The progress and its message come in one notification, but the message's second
        # row is drawn only once the row's new height is laid out: wait for that.
        await wait_until(pilot, lambda: bool(screen.query(LiveCalls))
                         and "step 1: warming up" in rendered_text(screen.query_one(LiveCalls)))
        row = rendered_text(screen.query_one(LiveCalls))
        assert "🔧 running fault.progress_held… 1/3 · " in row and "Esc cancels" in row
        assert "step 1: warming up" in row
        await pilot.press("escape")
        await wait_idle(pilot)


async def test_a_huge_result_is_shown_folded(
        make_app: AppFactory, chutes_server: FakeProvider, markers: Path) -> None:
    chutes_server.script(Reply(tool_call_stream([("fault__big", "{}")], ids=["call_b"])))
    app = make_app(settings=fault_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "the big one")
        await approval(pilot)
        await pilot.press("1")
        await wait_idle(pilot)
        views = list(conversation(app).query(MessageView))
        tool_view = next(v for v in views if v.message.role is Role.TOOL)
        assert len(tool_view.message.content) >= 100_000
        assert tool_view.size.height <= 4  # two rows and the margin, not 100,000 characters


async def test_a_form_the_server_asks_for_mid_call_is_answered_in_the_app(
        make_app: AppFactory, chutes_server: FakeProvider, markers: Path) -> None:
    """The whole path: the model calls the fault server's ask_city, which asks for a form;
    the app shows it (the status line says who waits), the answers reach the server, and
    its result goes back to the model."""
    from textual.widgets import Input, Static

    from tui_chat.ui.screens.elicitation import ElicitFormScreen

    chutes_server.script(Reply(tool_call_stream([("fault__ask_city", "{}")], ids=["call_c"])))
    app = make_app(settings=fault_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "plan a trip")
        await approval(pilot)
        await pilot.press("1")
        await wait_until(pilot, lambda: isinstance(app.screen, ElicitFormScreen))
        screen = conversation(app)
        assert (screen.status.info.state, screen.status.info.note) == (
            "waiting for you", "a tool server asks for input")
        form = app.screen
        assert isinstance(form, ElicitFormScreen)
        assert "The tool server fault asks: Which city?" in "\n".join(
            str(s.content) for s in form.query(Static))
        await pilot.press(*"Pune")
        form.query_one("#field-1", Input).value = "3"
        await pilot.press("ctrl+s")
        await wait_idle(pilot)
        *_, tool, answer = screen.workspace.session.messages()
        assert tool.tool_run is not None and tool.tool_run.status == "ok"
        assert tool.content == "Pune for 3 days"
        assert answer.content == "The tool call_c said: Pune for 3 days"


def widest_row(widget: Any, mark: str) -> int:
    """The width of the widest row of `widget` that holds `mark`, from the view's left edge
    (its border and padding included) to the row's last character."""
    from rich.cells import cell_len

    return max(cell_len(line.rstrip()) for line in rendered_text(widget).split("\n")
               if mark in line)


async def test_live_call_rows_keep_the_reading_width_as_the_finished_ones_do(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    long_call = ("time__get_current_time",
                 json.dumps({"timezone": "Asia/Kolkata", "note": "x " * 150}))
    frames = tool_call_stream([long_call], ids=["call_k"], pieces=3)
    gate = threading.Event()  # held before the reply's end: the live row shows
    chutes_server.script(Reply(frames, gate=gate, gate_after=len(frames) - 3))
    app = make_app(settings=tool_settings())
    async with app.run_test(size=(200, 40)) as pilot:
        await send(pilot, "What time is it in Kolkata?")
        screen = conversation(app)
        assert screen.message_list.reading_width == 100
        await wait_until(pilot, lambda: bool(screen.query(LiveCalls)) and "x x" in
                         screen.query_one(LiveCalls).rows().plain)
        await pilot.pause()
        live = widest_row(screen.query_one(LiveCalls), "🔧")
        assert live <= 100 + 4, live  # the reading width, and the border and padding
        gate.set()
        await approval(pilot)
        await pilot.press("d")
        await wait_idle(pilot)
        reply = next(view for view in screen.query(MessageView) if view.message.tool_calls)
        finished = widest_row(reply, "🔧")
        assert live == finished, (live, finished)  # nothing jumps when the reply ends


async def test_a_results_image_and_links_show_as_rows_and_o_opens_them(
        make_app: AppFactory, chutes_server: FakeProvider, markers: Path,
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import tempfile

    from tests.mcp.fault_server import PNG
    from tui_chat.ui import tool_file_open

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the images' private folder
    monkeypatch.setattr(tool_file_open, "_folder", None)
    chutes_server.script(Reply(tool_call_stream([("fault__picture", "{}")], ids=["call_p"])))
    app = make_app(settings=fault_settings())
    opened: list[str] = []
    monkeypatch.setattr(app, "open_url", lambda url, **_: opened.append(url))
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "show me a picture")
        await approval(pilot)
        await pilot.press("1")
        await wait_idle(pilot)
        tool = next(v for v in conversation(app).query(MessageView)
                    if v.message.role is Role.TOOL)
        rows = rendered_text(tool)
        assert "📎 image-1.png · image/png · 70 B · o opens it" in rows
        assert "🔗 the docs https://docs.example/page · o opens it" in rows
        assert ("🔗 passwd file:///etc/passwd · not opened: tui-chat opens only http and "
                "https links") in rows
        await pilot.press("ctrl+o", "up")  # the answer, then the tool's result
        await wait_until(pilot, lambda: conversation(app).message_list.selected_message()
                         is tool.message)
        for _ in range(3):  # the image, the https link, the image again: never the file link
            await pilot.press("o")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("y")
            await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
    image, link, again = opened
    assert link == "https://docs.example/page" and image == again
    assert image.endswith("image-1.png") and image.startswith(tmp_path.as_uri())
    assert written_privately(image) == base64.b64decode(PNG)


def written_privately(uri: str) -> bytes:
    """The bytes of the file at `uri`, which only its owner may read (nor its folder)."""
    path = Path(uri.removeprefix("file://"))
    assert path.stat().st_mode & 0o077 == 0 and path.parent.stat().st_mode & 0o077 == 0
    return path.read_bytes()


async def test_a_chutes_model_listed_with_tools_gets_them_with_nothing_in_config(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """Chutes' /models names "tools" among the model's supported features; config.toml says
    nothing of the model and its list was never read: the first message reads it, and the
    call is put to the user."""
    chutes_server.models_list = {"object": "list", "data": [
        {"id": MODEL, "supported_features": ["tools"]}]}
    chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=["call_k"])))
    app = make_app(settings=Settings(mcp=McpSettings(servers={"time": time_server()})))
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "What time is it in Kolkata?")
        dialog = await approval(pilot)
        assert dialog.tool == "get_current_time"
        await pilot.press("1")
        await wait_idle(pilot)
        assert '▶ 🔧 time.get_current_time {"timezone": "Asia/Kolkata"} · ' in shown(pilot)


async def test_sutra_gets_no_tools_and_the_question_says_why(
        make_app: AppFactory, sutra_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUTRA_BASE_URL", sutra_server.url)
    monkeypatch.setenv("SUTRA_API_KEY", "sutra_fake-key-0001")
    sutra_server.script(Reply(stream_of(["No clock here."], flavour="sutra")))
    app = make_app(settings=Settings(mcp=McpSettings(servers={"time": time_server()})),
                   provider="sutra", model="sutra-v2")
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "What time is it?")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = app.screen.question  # type: ignore[attr-defined]
        assert question.startswith("sutra-v2 does not take tools: SUTRA's API documents no "
                                   "tools")
        await pilot.press("y")
        await wait_idle(pilot)
        [body] = [r.body for r in sutra_server.requests if r.method == "POST"]
        assert "tools" not in body
        assert "No clock here." in shown(pilot)
