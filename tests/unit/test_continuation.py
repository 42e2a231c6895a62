"""Any reply can be continued where it ends, as a new branch beside it (core.continuation):
the request ends with the reply's text as an assistant message, with
`continue_final_message: true` and `add_generation_prompt: false`; where the provider does not
take them, one sentence says so and nothing is sent."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakeprovider import FakeProvider, Reply, roles_problem, stream_of
from tui_chat.core.config import ProviderConfig, Settings
from tui_chat.core.errors import UsageError
from tui_chat.core.models import Role
from tui_chat.core.session import ReplyFinished
from tui_chat.core.store import Store
from tui_chat.core.workspace import Workspace

MODEL = "x/echo"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(tmp_path / "store.sqlite3")
    yield opened
    opened.close()


def posted(server: FakeProvider) -> list[dict[str, Any]]:
    return [r.body for r in server.requests
            if r.method == "POST" and r.path.endswith("/chat/completions")]


async def drain(events: AsyncGenerator[Any, None]) -> list[Any]:
    return [event async for event in events]


def chutes_workspace(server: FakeProvider, store: Store, **config: Any) -> Workspace:
    env = {"CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": "cpk_continue-test-key-0001"}
    providers = {"chutes": ProviderConfig(**config)} if config else {}
    return Workspace(Settings(default_model=MODEL, max_retries=0, providers=providers), store,
                     env=env)


async def test_a_finished_reply_is_continued_as_a_new_branch(
        chutes_server: FakeProvider, store: Store) -> None:
    workspace = chutes_workspace(chutes_server, store)
    chutes_server.script(Reply(stream_of(["Once upon ", "a time"])))
    await drain(workspace.send("tell a story"))
    original = workspace.session.messages()[-1]
    chutes_server.script(Reply(stream_of([", there ", "was a cat."])))
    events = await drain(workspace.continue_reply(original.id))

    body = posted(chutes_server)[-1]
    assert body["continue_final_message"] is True and body["add_generation_prompt"] is False
    assert [(m["role"], m["content"]) for m in body["messages"]] == [
        ("user", "tell a story"), ("assistant", "Once upon a time")]
    assert roles_problem(body) is None
    finished = [e.message for e in events if isinstance(e, ReplyFinished)]
    assert [m.content for m in finished] == ["Once upon a time, there was a cat."]
    path = workspace.session.messages()
    assert path[-1].id == finished[0].id and path[-1].parent_id == original.parent_id
    assert store.siblings(original.id).count == 2  # the original stays, as a branch
    assert store.get_message(original.id).content == "Once upon a time"
    await workspace.aclose()


async def test_the_next_prompt_after_a_continued_reply_alternates(
        chutes_server: FakeProvider, store: Store) -> None:
    workspace = chutes_workspace(chutes_server, store)
    await drain(workspace.send("hello"))
    await drain(workspace.continue_reply(workspace.session.messages()[-1].id))
    await drain(workspace.send("next"))
    body = posted(chutes_server)[-1]
    assert "continue_final_message" not in body
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    await workspace.aclose()


async def test_a_provider_that_cannot_continue_says_so_and_sends_nothing(
        chutes_server: FakeProvider, store: Store) -> None:
    workspace = chutes_workspace(chutes_server, store, continue_final_message=False)
    await drain(workspace.send("hello"))
    before = len(posted(chutes_server))
    reply = workspace.session.messages()[-1]
    with pytest.raises(UsageError, match=r"Chutes cannot continue a reply where it ends.*"
                                         r"continue_final_message = true"):
        workspace.continue_reply(reply.id)
    assert len(posted(chutes_server)) == before
    assert len(workspace.session.messages()) == 2
    await workspace.aclose()


async def test_a_custom_provider_declares_it_in_config(
        sutra_server: FakeProvider, store: Store) -> None:
    env = {"SUTRA_BASE_URL": sutra_server.url, "SUTRA_API_KEY": "sutra-continue-test-0001"}
    plain = Workspace(Settings(default_provider="sutra", default_model="sutra-v2",
                               max_retries=0), store, env=env)
    assert not plain.provider.spec.continue_final_message  # SUTRA documents neither key
    await plain.aclose()
    settings = Settings(default_provider="sutra", default_model="sutra-v2", max_retries=0,
                        providers={"sutra": ProviderConfig(continue_final_message=True)})
    workspace = Workspace(settings, store, env=env)
    await drain(workspace.send("hello"))
    await drain(workspace.continue_reply(workspace.session.messages()[-1].id))
    assert posted(sutra_server)[-1]["continue_final_message"] is True
    await workspace.aclose()


async def test_only_a_reply_with_text_is_continued(
        chutes_server: FakeProvider, store: Store) -> None:
    workspace = chutes_workspace(chutes_server, store)
    await drain(workspace.send("hello"))
    prompt = workspace.session.messages()[0]
    assert prompt.role is Role.USER
    with pytest.raises(UsageError, match="Only a reply with text"):
        await drain(workspace.continue_reply(prompt.id))
    await workspace.aclose()
