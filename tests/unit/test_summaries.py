"""A summary of the oldest turns is stored as a node of the tree, off the active path (the
turns stay, shown, with no new branch), and sent in the system message in their place; the
request that asks for it and every request after it alternate roles (core.summaries)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakeprovider import FakeProvider, Reply, roles_problem, stream_of
from tui_chat.core.config import Settings
from tui_chat.core.errors import UsageError
from tui_chat.core.models import Role
from tui_chat.core.store import Store
from tui_chat.core.summaries import SUMMARY_HEADING
from tui_chat.core.workspace import Workspace

MODEL = "x/echo"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(tmp_path / "store.sqlite3")
    yield opened
    opened.close()


def workspace_for(server: FakeProvider, store: Store) -> Workspace:
    env = {"CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": "cpk_summary-test-key-0001"}
    return Workspace(Settings(default_model=MODEL, max_retries=0), store, env=env)


def posted(server: FakeProvider) -> list[dict[str, Any]]:
    return [r.body for r in server.requests
            if r.method == "POST" and r.path.endswith("/chat/completions")]


async def drain(events: AsyncGenerator[Any, None]) -> None:
    async for _ in events:
        pass


async def three_turns(workspace: Workspace) -> None:
    for prompt in ("my cat is Miso", "she is 3", "what food?"):
        await drain(workspace.send(prompt))


async def test_a_summary_is_sent_in_place_of_the_turns_before_it(
        chutes_server: FakeProvider, store: Store) -> None:
    workspace = workspace_for(chutes_server, store)
    workspace.session.set_system_prompt("be brief")
    await three_turns(workspace)
    path = workspace.session.messages()
    keep_from = path[4]  # "what food?"
    chutes_server.script(Reply(stream_of(["Cat ", "Miso, ", "3 years."])))
    summary = await workspace.summarise_before(keep_from.id)

    asked = posted(chutes_server)[-1]["messages"]
    assert [m["role"] for m in asked] == ["user"]
    assert "User: my cat is Miso" in asked[0]["content"]
    assert "User: she is 3" in asked[0]["content"]
    assert "what food?" not in asked[0]["content"]

    # Stored as a node off the path: the turns stay, and no branch appears.
    assert summary.role is Role.SYSTEM and summary.parent_id == path[3].id
    assert summary.content == "Cat Miso, 3 years."
    assert [m.id for m in workspace.session.messages()] == [m.id for m in path]
    assert store.siblings(keep_from.id).count == 1
    assert store.positions(keep_from.conversation_id, [keep_from.id]) == {keep_from.id: (1, 1)}
    assert workspace.summary() == summary

    await drain(workspace.send("and toys?"))
    sent = posted(chutes_server)[-1]
    assert roles_problem(sent) is None
    system, *rest = sent["messages"]
    assert system["role"] == "system"
    assert system["content"].startswith("be brief\n\n" + SUMMARY_HEADING)
    assert system["content"].endswith("Cat Miso, 3 years.")
    assert [m["content"] for m in rest if m["role"] == "user"] == ["what food?", "and toys?"]
    await workspace.aclose()


async def test_an_edited_summary_is_what_the_next_request_sends(
        chutes_server: FakeProvider, store: Store) -> None:
    workspace = workspace_for(chutes_server, store)
    await three_turns(workspace)
    keep_from = workspace.session.messages()[4]
    chutes_server.script(Reply(stream_of(["first draft"])))
    summary = await workspace.summarise_before(keep_from.id)
    workspace.edit_summary(summary.id, "The cat is Miso, aged 3.")
    with pytest.raises(UsageError):
        workspace.edit_summary(summary.id, "  ")
    with pytest.raises(UsageError):
        workspace.edit_summary(keep_from.id, "not a summary")
    await drain(workspace.send("next"))
    system = posted(chutes_server)[-1]["messages"][0]
    assert system == {"role": "system",
                      "content": f"{SUMMARY_HEADING}\n\nThe cat is Miso, aged 3."}
    await workspace.aclose()


async def test_a_second_summary_covers_the_first(
        chutes_server: FakeProvider, store: Store) -> None:
    workspace = workspace_for(chutes_server, store)
    await three_turns(workspace)
    await drain(workspace.send("fourth"))
    path = workspace.session.messages()
    chutes_server.script(Reply(stream_of(["SUMMARY ONE"])))
    await workspace.summarise_before(path[2].id)
    chutes_server.script(Reply(stream_of(["SUMMARY TWO"])))
    await workspace.summarise_before(path[6].id)
    asked = posted(chutes_server)[-1]["messages"][0]["content"]
    assert "SUMMARY ONE" in asked and "User: she is 3" in asked
    assert "my cat is Miso" not in asked  # covered by the first summary
    await drain(workspace.send("fifth"))
    sent = posted(chutes_server)[-1]["messages"]
    assert sent[0]["content"].endswith("SUMMARY TWO")
    assert [m["content"] for m in sent[1:] if m["role"] == "user"] == ["fourth", "fifth"]
    await workspace.aclose()


async def test_a_summary_of_nothing_is_refused_and_nothing_is_asked(
        chutes_server: FakeProvider, store: Store) -> None:
    workspace = workspace_for(chutes_server, store)
    await drain(workspace.send("only"))
    before = len(posted(chutes_server))
    with pytest.raises(UsageError, match="no earlier turns"):
        await workspace.summarise_before(workspace.session.messages()[0].id)
    assert len(posted(chutes_server)) == before
    await workspace.aclose()


async def test_a_summary_makes_the_context_smaller(
        chutes_server: FakeProvider, store: Store) -> None:
    workspace = workspace_for(chutes_server, store)
    for index in range(4):
        await drain(workspace.send(f"a long message {index} " + "word " * 300))
    workspace.leave_out_before(workspace.session.messages()[0].id)  # all, estimated
    before = workspace.context_plan("next").use.tokens
    chutes_server.script(Reply(stream_of(["short"])))
    await workspace.summarise_before(workspace.session.messages()[6].id)
    assert workspace.context_plan("next").use.tokens < before / 2
    await workspace.aclose()


async def test_a_summarised_conversation_survives_export_and_import(
        chutes_server: FakeProvider, store: Store, tmp_path: Path) -> None:
    from tui_chat.core.export import export_json, import_file
    from tui_chat.core.session import ChatSession

    workspace = workspace_for(chutes_server, store)
    await three_turns(workspace)
    path = workspace.session.messages()
    chutes_server.script(Reply(stream_of(["Cat Miso, 3."])))
    summary = await workspace.summarise_before(path[4].id)
    conversation_id = workspace.session.conversation.id
    await workspace.aclose()
    exported = tmp_path / "export.json"
    exported.write_text(export_json(store, [conversation_id]), encoding="utf-8")

    other = Store.open(tmp_path / "other.sqlite3")
    try:
        import_file(other, exported)
        session = ChatSession.resume(other, conversation_id)
        assert [m.id for m in session.messages()] == [m.id for m in path]
        history = session.history()
        assert history[0].role is Role.SYSTEM and history[0].content.endswith("Cat Miso, 3.")
        assert history[1].content == "what food?"
        assert other.get_message(summary.id).role is Role.SYSTEM
    finally:
        other.close()


async def test_a_summary_of_every_turn_hangs_under_the_last_reply_and_covers_it(
        chutes_server: FakeProvider, store: Store) -> None:
    """Issue 25: with one earlier turn the offer names the reply the path ends with (every
    turn left out: core.context); the summary then covered only the turn's prompt and was
    stored under it, not under the last message it summarises (docs/conversations.md)."""
    workspace = workspace_for(chutes_server, store)
    await drain(workspace.send("my cat is Miso"))
    user, reply = workspace.session.messages()
    chutes_server.script(Reply(stream_of(["Cat Miso."])))
    summary = await workspace.summarise_before(reply.id)
    assert summary.parent_id == reply.id
    asked = posted(chutes_server)[-1]["messages"][0]["content"]
    assert "User: my cat is Miso" in asked and f"Assistant: {reply.content}" in asked
    assert [m.id for m in workspace.session.messages()] == [user.id, reply.id]  # off the path
    await drain(workspace.send("what food?"))
    assert workspace.session.messages()[2].parent_id == reply.id
    await workspace.aclose()


async def test_a_summary_too_long_to_go_with_the_message_is_offered_to_be_left_out(
        chutes_server: FakeProvider, store: Store) -> None:
    """Issue 25: a summary in force that leaves no room for the message made the offer say
    that even without the earlier messages it would not fit, when the message alone fits:
    the plan names the last reply, leaving the summary out with everything before it."""
    from tests.fakeprovider import PRICED_MODELS

    chutes_server.models_list = PRICED_MODELS
    workspace = workspace_for(chutes_server, store)
    workspace.choose("chutes", "fake/small")  # a 2,048-token window
    await workspace.catalog.refresh(workspace.provider)
    await drain(workspace.send("my cat is Miso"))
    reply = workspace.session.messages()[-1]
    chutes_server.script(Reply(stream_of(["Miso the cat. " * 400])))
    await workspace.summarise_before(reply.id)
    plan = workspace.context_plan("what food?")
    assert plan.state == "over" and plan.keep_from == reply.id
    workspace.leave_out_before(plan.keep_from)
    assert workspace.summary() is None
    assert workspace.context_plan("what food?").state != "over"
    await workspace.aclose()
