"""A reply's header says what it was sent with (`· reasoning off`, `· sent whole, not
streamed`), and says it again once the conversation is reopened in the app, and once it has
been exported to JSON and imported back (store schema 9; before it both facts were lost)."""

from __future__ import annotations

from pathlib import Path

from tests.fakeprovider import FakeProvider, Reply, stream_of, whole_completion
from tests.ui.conftest import AppFactory, conversation, rendered_text, wait_idle, wait_until
from tests.ui.test_reasoning_key import settings
from tests.ui.test_tool_calls_app import send
from tui_chat.core import export
from tui_chat.core.store import Store
from tui_chat.ui.widgets.message_view import LINES

OFF = "· reasoning off"
WHOLE = "· sent whole, not streamed"


def headers(app: object) -> str:
    return " ".join(rendered_text(conversation(app).message_list).split())  # type: ignore[arg-type]


async def shows_both_replies(make_app: AppFactory, chat: str) -> str:
    """What the app shows once it opens `chat` afresh, as a new start would: with none of
    the rows drawn before (the line cache is the process's, and keeps the first app's)."""
    LINES.clear()
    app = make_app(settings=settings(), conversation=chat)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: "Sent at once." in headers(app))
        return headers(app)


async def test_the_header_facts_survive_reopening_and_export_import(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider,
        tmp_path: Path) -> None:
    app = make_app(settings=settings())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        await pilot.pause()
        await pilot.press("f9")  # reasoning off
        await wait_until(pilot, lambda: screen.workspace.reasoning == "off")
        chutes_server.script(Reply(stream_of(["Quick ", "answer."])))
        await send(pilot, "first")
        await wait_idle(pilot)
        chutes_server.script(whole_completion("Sent at once."))
        await send(pilot, "second")
        await wait_idle(pilot)
        await wait_until(pilot, lambda: "Sent at once." in headers(app))
        live = headers(app)
        chat = screen.workspace.session.conversation.id
    assert (live.count(OFF), live.count(WHOLE)) == (2, 1)

    reopened = await shows_both_replies(make_app, chat)
    assert (reopened.count(OFF), reopened.count(WHOLE)) == (2, 1)

    file = tmp_path / "export.json"
    file.write_text(export.export_json(store, [chat]), encoding="utf-8")
    store.delete_conversation(chat)
    assert export.import_file(store, file).conversations_added == 1
    imported = await shows_both_replies(make_app, chat)
    assert (imported.count(OFF), imported.count(WHOLE)) == (2, 1)
