"""A reply the provider sent whole (a JSON body, not a stream) is shown, its header saying so."""

from __future__ import annotations

from tests.fakeprovider import FakeProvider, whole_completion
from tests.faults.pilot import send, wait_idle
from tests.ui.conftest import AppFactory, conversation, rendered_text
from tui_chat.ui.widgets.message_view import MessageView


async def test_the_app_shows_a_whole_answer_with_its_header_saying_so(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    chutes_server.script(whole_completion("Paris is the capital."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "Capital of France?")
        await wait_idle(pilot)
        view = conversation(app).query(MessageView)[-1]
        shown = " ".join(rendered_text(view).split())
    assert "Paris is the capital." in shown and "sent whole, not streamed" in shown
