"""Every request alternates roles: system first, then user and assistant turns from a user turn
(tool messages only right after the call). Strict chat templates (Gemma's, served by vLLM)
refuse anything else with a 400, and the fake provider refuses it the same way
(`roles_problem`). A turn whose reply failed, or was stopped before it began, is left out
whole when another prompt follows it; a reply that only called tools is sent as its note.

The property test runs random flows (send, fail, retry, Esc before and after the first token,
edit, regenerate, compare, continue a cut reply, leave out earlier turns, a reply that only
calls a tool, summarise the turns before a message, continue any reply) through the workspace
against the fake, and checks the shape of every request the fake received."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fakeprovider import FakeProvider, Reply, roles_problem, stream_of, tool_call_stream
from tui_chat.core.config import Settings
from tui_chat.core.errors import UsageError
from tui_chat.core.events import ContentDelta
from tui_chat.core.models import Role
from tui_chat.core.session import ReplyFailed, ReplyStarted
from tui_chat.core.store import Store
from tui_chat.core.workspace import Workspace

MODEL = "x/echo"


def sent_requests(server: FakeProvider) -> list[dict[str, Any]]:
    return [r.body for r in server.requests
            if r.method == "POST" and r.path.endswith("/chat/completions")]


def roles(request: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in request["messages"]]


def fail() -> Reply:
    return Reply.error(500, {"error": {"message": "internal error"}})


async def drain(events: AsyncGenerator[Any, None]) -> list[Any]:
    return [event async for event in events]


async def stop_after(events: AsyncGenerator[Any, None], kind: type) -> None:
    """Esc: stop the reply once an event of `kind` came (ReplyStarted: before any token)."""
    async with contextlib.aclosing(events) as stream:
        async for event in stream:
            if isinstance(event, kind):
                break


def workspace_for(server: FakeProvider, store: Store) -> Workspace:
    env = {"CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": "cpk_shape-test-key-0001"}
    return Workspace(Settings(default_model=MODEL, max_retries=0), store, env=env)


# --- the fake refuses what vLLM refuses ----------------------------------------------------

async def test_the_fake_refuses_two_user_turns_in_a_row_as_vllm_does(
        chutes_server: FakeProvider, store: Store) -> None:
    import httpx

    async with httpx.AsyncClient() as client:
        answer = await client.post(f"{chutes_server.url}/chat/completions", json={
            "model": MODEL, "stream": True,
            "messages": [{"role": "user", "content": "fail me"},
                         {"role": "user", "content": "next"}]})
    assert answer.status_code == 400
    assert "Conversation roles must alternate user/assistant/user/assistant/" in answer.text


# --- the flows the issue names -------------------------------------------------------------

async def test_after_a_failed_reply_the_next_prompt_leaves_the_failed_turn_out(
        chutes_server: FakeProvider, store: Store) -> None:
    workspace = workspace_for(chutes_server, store)
    await drain(workspace.send("hello"))
    chutes_server.script(fail())
    failed = await drain(workspace.send("fail me"))
    assert any(isinstance(e, ReplyFailed) for e in failed)
    events = await drain(workspace.send("next"))
    assert not any(isinstance(e, ReplyFailed) for e in events)
    last = sent_requests(chutes_server)[-1]
    assert [role for role, _ in roles(last)] == ["user", "assistant", "user"]
    assert roles(last)[-1] == ("user", "next")
    # The failed turn stays in the conversation, shown.
    assert [m.content for m in workspace.session.messages() if m.role is Role.USER] == [
        "hello", "fail me", "next"]
    await workspace.aclose()


async def test_after_esc_before_the_first_token_the_next_prompt_alternates(
        chutes_server: FakeProvider, store: Store) -> None:
    workspace = workspace_for(chutes_server, store)
    await stop_after(workspace.send("stop me"), ReplyStarted)
    await drain(workspace.send("next"))
    assert roles(sent_requests(chutes_server)[-1]) == [("user", "next")]
    await workspace.aclose()


async def test_a_reply_that_only_called_a_tool_is_sent_as_its_note(
        chutes_server: FakeProvider, store: Store) -> None:
    workspace = workspace_for(chutes_server, store)
    chutes_server.script(Reply(tool_call_stream([("get_weather", '{"city": "Pune"}')])))
    await drain(workspace.send("weather please"))
    events = await drain(workspace.send("thanks"))
    assert not any(isinstance(e, ReplyFailed) for e in events)
    sent = roles(sent_requests(chutes_server)[-1])
    assert [role for role, _ in sent] == ["user", "assistant", "user"]
    assert "get_weather" in sent[1][1] and "none was run" in sent[1][1]
    await workspace.aclose()


async def test_leaving_out_every_earlier_turn_sends_the_prompt_alone(
        chutes_server: FakeProvider, store: Store) -> None:
    workspace = workspace_for(chutes_server, store)
    await drain(workspace.send("first"))
    reply = workspace.session.messages()[-1]
    workspace.leave_out_before(reply.id)  # a reply named: it goes with its prompt
    await drain(workspace.send("second"))
    assert roles(sent_requests(chutes_server)[-1]) == [("user", "second")]
    await workspace.aclose()


# --- every flow, at random -----------------------------------------------------------------

STEPS = st.sampled_from(["send", "fail", "retry", "esc_before", "esc_after", "edit",
                         "regenerate", "compare", "cut", "continue", "leave_out", "tool",
                         "system", "summarise", "continue_reply"])


async def run_step(step: str, index: int, workspace: Workspace, server: FakeProvider) -> None:
    session = workspace.session
    path = session.messages()
    users = [m for m in path if m.role is Role.USER]
    last_user = users[-1].content if users else "hello"
    match step:
        case "send":
            await drain(workspace.send(f"prompt {index}"))
        case "fail":
            server.script(fail())
            await drain(workspace.send(f"fail {index}"))
        case "retry":
            await drain(workspace.send(last_user))
        case "esc_before":
            await stop_after(workspace.send(f"stopped {index}"), ReplyStarted)
        case "esc_after":
            server.script(Reply(stream_of(["one ", "two ", "three"])))
            await stop_after(workspace.send(f"cut short {index}"), ContentDelta)
        case "edit" if users:
            await drain(workspace.edit_and_resend(users[index % len(users)].id,
                                                  f"edited {index}"))
        case "regenerate" if users:
            await drain(workspace.regenerate())
        case "compare":
            workspace.choose_several([("chutes", "x/one"), ("chutes", "x/two")])
            events = await drain(workspace.compare(f"compare {index}"))
            replies = [e.event.message for e in events
                       if type(e).__name__ == "TargetEvent" and isinstance(e.event, ReplyStarted)]
            if replies:
                workspace.choose_reply(replies[index % len(replies)].id)
            workspace.choose("chutes", MODEL, persist=False)
        case "cut":
            server.script(Reply(stream_of(["half ", "a ", "reply"]), drop_after=2))
            await drain(workspace.send(f"cut {index}"))
        case "continue":
            await drain(workspace.send(f"go on {index}", continue_partial=True))
        case "leave_out" if path:
            workspace.leave_out_before(path[index % len(path)].id)
        case "tool":
            server.script(Reply(tool_call_stream([("lookup", '{"q": 1}')])))
            await drain(workspace.send(f"call a tool {index}"))
        case "system":
            session.set_system_prompt(f"be brief {index}" if index % 2 else None)
        case "continue_reply" if any(m.role is Role.ASSISTANT and m.content for m in path):
            replies = [m for m in path if m.role is Role.ASSISTANT and m.content]
            with contextlib.suppress(UsageError):  # one that called tools
                await drain(workspace.continue_reply(replies[index % len(replies)].id))
        case "summarise" if len(path) > 1:
            server.script(Reply(stream_of([f"summary {index}"])))
            with contextlib.suppress(UsageError):  # nothing sent before that message
                await workspace.summarise_before(path[index % (len(path) - 1) + 1].id)
        case _:
            await drain(workspace.send(f"prompt {index}"))


async def run_flow(steps: list[str], server: FakeProvider, store: Store) -> None:
    workspace = workspace_for(server, store)
    try:
        for index, step in enumerate(steps):
            await run_step(step, index, workspace, server)
            server.clear_script()
    finally:
        await workspace.aclose()


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(STEPS, min_size=1, max_size=9))
def test_every_request_of_every_flow_alternates(
        steps: list[str], chutes_server: FakeProvider, tmp_path: Path) -> None:
    chutes_server.requests.clear()
    chutes_server.clear_script()
    chutes_server.strict_roles = False  # record what is sent, as it is: checked below
    with contextlib.closing(Store.open(tmp_path / f"flow-{id(steps)}.sqlite3")) as store:
        asyncio.run(run_flow(steps, chutes_server, store))
    for request in sent_requests(chutes_server):
        assert roles_problem(request) is None, (steps, roles(request))
        last = "assistant" if request.get("continue_final_message") else "user"
        assert request["messages"][-1]["role"] == last, (steps, roles(request))
