"""A provider that answers a streaming request with the whole reply at once (`200
application/json` holding `choices[0].message`): the reply is kept and shown, marked as not
streamed (`Message.streamed`), in the app and in `ask`."""

from __future__ import annotations

from tests.cli.test_ask import chutes_env, run
from tests.fakeprovider import FakeProvider, whole_completion
from tui_chat.core.config import Settings
from tui_chat.core.models import MessageStatus
from tui_chat.core.session import ReplyFailed, ReplyFinished
from tui_chat.core.store import Store
from tui_chat.core.workspace import Workspace


async def test_a_whole_answer_is_saved_as_the_reply_and_marked(
        chutes_server: FakeProvider, store: Store) -> None:
    chutes_server.script(whole_completion("Paris.", reasoning="The capital.", tokens=(9, 2)))
    env = {"CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": "cpk_whole-test-key-01"}
    workspace = Workspace(Settings(default_model="x/whole"), store, env=env)
    events = [event async for event in workspace.send("Capital of France?")]
    assert not any(isinstance(e, ReplyFailed) for e in events)
    finished = [e.message for e in events if isinstance(e, ReplyFinished)]
    assert len(finished) == 1
    reply = finished[0]
    assert (reply.content, reply.reasoning, reply.status) == (
        "Paris.", "The capital.", MessageStatus.COMPLETE)
    assert not reply.streamed and reply.tokens_per_second is None
    assert reply.usage is not None and reply.usage.completion_tokens == 2
    assert workspace.session.messages()[-1].content == "Paris."
    await workspace.aclose()


def test_ask_prints_a_whole_answer(chutes_server: FakeProvider) -> None:
    chutes_server.script(whole_completion("Paris."))
    result = run("ask", "--no-save", "Capital of France?", env=chutes_env(chutes_server))
    assert (result.returncode, result.stdout) == (0, "Paris.")

