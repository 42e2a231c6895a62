"""Pilot tests of the conversation screen against the loopback fake provider."""

from __future__ import annotations

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory
from tui_chat.core.models import MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.ui.screens.conversation import ConversationScreen
from tui_chat.ui.widgets.message_view import MessageView


async def wait_idle(app, pilot) -> None:  # type: ignore[no-untyped-def]
    """Until no reply streams any more."""
    for _ in range(400):
        await pilot.pause(0.01)
        screen = app.screen
        if isinstance(screen, ConversationScreen) and not screen.streaming:
            break
    await pilot.pause()


async def test_send_streams_reply_and_saves_it(make_app: AppFactory, store: Store,
                                               chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["Hello", " **there**", "\n\n```python\nx = 1\n```"])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"hi", "enter")
        await wait_idle(app, pilot)
        views = app.screen.query(MessageView)
        assert [v.message.role for v in views] == [Role.USER, Role.ASSISTANT]
        reply = views[1].message
        assert reply.content == "Hello **there**\n\n```python\nx = 1\n```"
        assert reply.model == "deepseek-ai/DeepSeek-V3-0324" and reply.provider == "chutes"
    conversation = store.latest_conversation()
    assert conversation is not None
    saved = store.get_messages(conversation.id)
    assert [m.status for m in saved] == [MessageStatus.COMPLETE, MessageStatus.COMPLETE]
    assert saved[1].content == reply.content
