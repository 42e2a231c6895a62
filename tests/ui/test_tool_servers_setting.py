"""Tool servers per conversation (issue 23): F8 lists the configured servers with a checkbox
each, kept with the conversation (`Parameters.tools_off`, never sent); the status line shows
the tools the next message offers."""

from __future__ import annotations

from pathlib import Path

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, wait_idle, wait_until
from tests.ui.test_conversation_settings import open_settings
from tests.ui.test_tool_calls_app import send, tool_settings
from tui_chat.core.models import Conversation, Message, Parameters, Role
from tui_chat.core.store import Store
from tui_chat.ui.widgets.status_bar import StatusBar


def test_tools_off_is_not_sent() -> None:
    assert Parameters(temperature=0.5, tools_off=["time"]).to_request() == {"temperature": 0.5}


async def test_f8_turns_a_server_off_for_this_conversation_and_it_is_kept(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chat = store.create_conversation(Conversation(title="Mine"))
    store.add_message(Message(conversation_id=chat.id, role=Role.USER, content="hi"))
    app = make_app(conversation=chat.id, settings=tool_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        status = screen.query_one(StatusBar)
        assert status.info.tools == "🔧 1 server"  # not started yet: no count of tools
        dialog = await open_settings(pilot)
        box = dialog.query_one("#tool-server-0")
        assert "time" in str(box.label)  # type: ignore[attr-defined]
        assert box.value is True  # type: ignore[attr-defined]
        box.focus()
        await pilot.press("space")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.screen is screen)
        assert screen.workspace.tool_servers() == []
        assert status.info.tools == ""
        chutes_server.script(Reply(stream_of(["fine"])))
        await send(pilot, "again")
        await wait_idle(pilot)
    assert store.get_conversation(chat.id).parameters.tools_off == ["time"]
    body = [r.body for r in chutes_server.requests if r.method == "POST"][-1]
    assert "tools" not in body and "tools_off" not in body
    app = make_app(conversation=chat.id, settings=tool_settings())
    async with app.run_test(size=(120, 40)) as pilot:  # reopened: still off, and shown so
        await pilot.pause()
        dialog = await open_settings(pilot)
        assert dialog.query_one("#tool-server-0").value is False  # type: ignore[attr-defined]


async def test_the_status_line_counts_the_tools_once_the_servers_started(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["no call"])))
    app = make_app(settings=tool_settings())
    async with app.run_test(size=(120, 40)) as pilot:
        status = conversation(app).query_one(StatusBar)
        await send(pilot, "hello")
        await wait_idle(pilot)
        await wait_until(pilot, lambda: status.info.tools == "🔧 2")  # mcp-server-time: two
        assert "🔧 2" in str(status.content)


async def test_a_model_without_tools_shows_no_tools(make_app: AppFactory) -> None:
    app = make_app(settings=tool_settings(tools=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert conversation(app).query_one(StatusBar).info.tools == ""


def test_tools_off_survives_export_and_import(store: Store, tmp_path: Path) -> None:
    from tui_chat.core import export

    chat = store.create_conversation(Conversation(
        title="Mine", parameters=Parameters(temperature=0.2, tools_off=["time", "files"])))
    store.add_message(Message(conversation_id=chat.id, role=Role.USER, content="hi"))
    path = tmp_path / "export.json"
    path.write_text(export.export_json(store, [chat.id]), encoding="utf-8")
    with Store.open(tmp_path / "other.sqlite3") as other:
        export.import_file(other, path)
        assert other.get_conversation(chat.id).parameters.tools_off == ["time", "files"]
