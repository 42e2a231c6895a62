"""Chutes sends usage on the final chunk "when usage reporting is enabled" (its API
description, shared/api/chutes-chat-streaming.asyncapi.txt): tui-chat asks for it
(`stream_options.include_usage`), so replies have token counts and a cost; a server that
refuses the option gets the request again without it."""

from __future__ import annotations

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.config import Settings
from tui_chat.core.session import ReplyFinished
from tui_chat.core.store import Store
from tui_chat.core.workspace import Workspace


async def reply_of(server: FakeProvider, store: Store) -> ReplyFinished:
    env = {"CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": "cpk_usage-test-key-01"}
    workspace = Workspace(Settings(default_model="x/usage"), store, env=env)
    try:
        events = [event async for event in workspace.send("hi")]
    finally:
        await workspace.aclose()
    finished = [e for e in events if isinstance(e, ReplyFinished)]
    assert len(finished) == 1
    return finished[0]


async def test_chutes_is_asked_for_usage_and_the_reply_has_it(
        chutes_server: FakeProvider, store: Store) -> None:
    chutes_server.usage_when_asked = True  # as the API description says
    chutes_server.script(Reply(stream_of(["Hello"], tokens=(5, 1))))
    reply = (await reply_of(chutes_server, store)).message
    assert chutes_server.requests[-1].body["stream_options"] == {"include_usage": True}
    assert reply.usage is not None
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (5, 1)


async def test_a_chutes_server_that_refuses_the_option_still_answers(
        chutes_server: FakeProvider, store: Store) -> None:
    chutes_server.reject_stream_options = True
    chutes_server.script(Reply(stream_of(["Hello"])))
    reply = (await reply_of(chutes_server, store)).message
    assert reply.content == "Hello"
    assert "stream_options" not in chutes_server.requests[-1].body
