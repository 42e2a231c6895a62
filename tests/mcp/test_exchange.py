"""The tool loop inside the exchange (Workspace.send, regenerate): every step kept in the tree
as it happens, requests that stay valid, models that take no tools, compare without tools.
Against the fake provider and mcp-server-time, a real server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of, tool_call_stream
from tests.mcp.conftest import everything, time_server  # noqa: F401  (a fixture)
from tui_chat.core.config import Settings
from tui_chat.core.errors import UsageError
from tui_chat.core.mcp.config import McpServerConfig, McpSettings
from tui_chat.core.mcp.loop import DENIED
from tui_chat.core.mcp.results import result_links
from tui_chat.core.model_facts import ModelSettings
from tui_chat.core.models import MessageStatus, Role
from tui_chat.core.session import ReplyFinished, SessionEvent
from tui_chat.core.store import Store
from tui_chat.core.tool_exchange import ToolCallFinished, ToolCallStarted
from tui_chat.core.workspace import Workspace

MODEL = "deepseek-ai/DeepSeek-V3-0324"
KOLKATA = ("time__get_current_time", '{"timezone": "Asia/Kolkata"}')


class Choosing:
    """The exchange's asker: chooses `choice` for every tool call, says `yes` to every
    confirmation; keeps the questions."""

    def __init__(self, choice: str | None = "Run once", yes: bool = False) -> None:
        self.choice, self.yes = choice, yes
        self.questions: list[str] = []
        self.confirmations: list[str] = []

    async def confirm(self, question: str) -> bool:
        self.confirmations.append(question)
        return self.yes

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        self.questions.append(question)
        return self.choice


def settings(servers: dict[str, McpServerConfig], *, tools: bool = True,
             **mcp: Any) -> Settings:
    return Settings(mcp=McpSettings(servers=servers, **mcp),
                    models={f"chutes:{MODEL}": ModelSettings(tools=tools)})


@pytest.fixture
async def workspace_of(chutes_server: FakeProvider, tmp_path: Path
                       ) -> AsyncIterator[Any]:
    made: list[tuple[Workspace, Store]] = []

    def make(given: Settings) -> Workspace:
        store = Store.open(tmp_path / "store.sqlite3")
        env = {"CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": "cpk_test-0001",
               "PATH": "/usr/bin:/bin"}
        workspace = Workspace(given, store, env=env)
        made.append((workspace, store))
        return workspace

    yield make
    for workspace, store in made:
        await workspace.aclose()
        store.close()


def bodies(server: FakeProvider) -> list[dict[str, Any]]:
    return [r.body for r in server.requests if r.method == "POST"]


async def collect(events: AsyncIterator[SessionEvent]) -> list[SessionEvent]:
    return [event async for event in events]


async def test_a_question_a_call_an_approval_a_result_and_the_answer_all_kept(
        chutes_server: FakeProvider, workspace_of: Any) -> None:
    workspace: Workspace = workspace_of(settings({"time": time_server()}))
    chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=["call_k"], pieces=3)))
    asker = Choosing("Run once")
    events = await collect(workspace.send("What time is it in Kolkata?", asker=asker))
    kinds = [type(e).__name__ for e in events
             if isinstance(e, ReplyFinished | ToolCallStarted | ToolCallFinished)]
    assert kinds == ["ReplyFinished", "ToolCallStarted", "ToolCallFinished", "ReplyFinished"]
    assert len(asker.questions) == 1 and "get_current_time" in asker.questions[0]
    user, called, tool, answer = workspace.session.messages()
    assert (user.role, called.role, tool.role, answer.role) == (
        Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT)
    assert [c.id for c in called.tool_calls] == ["call_k"]
    assert tool.parent_id == called.id and answer.parent_id == tool.id
    assert tool.tool_call_id == "call_k" and tool.status is MessageStatus.COMPLETE
    assert tool.tool_run is not None
    assert (tool.tool_run.status, tool.tool_run.server) == ("ok", "time")
    assert tool.tool_run.seconds is not None
    assert json.loads(tool.content)["timezone"] == "Asia/Kolkata"
    assert answer.content == f"The tool call_k said: {tool.content}"
    first, second = bodies(chutes_server)
    assert [t["function"]["name"] for t in first["tools"]] == [
        "time__get_current_time", "time__convert_time"]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "tool"]
    assert second["messages"][1]["tool_calls"][0]["id"] == "call_k"
    assert second["messages"][2] == {"role": "tool", "tool_call_id": "call_k",
                                     "content": tool.content}
    # Reopened, the tree is as it was, and search finds the tool's result.
    workspace.open_conversation(workspace.session.conversation.id)
    assert [m.id for m in workspace.session.messages()] == [user.id, called.id, tool.id,
                                                            answer.id]
    hits = workspace.store.search("Asia/Kolkata")
    assert tool.id in {hit.message_id for hit in hits}


async def test_a_denied_call_is_kept_and_its_denial_goes_back(
        chutes_server: FakeProvider, workspace_of: Any) -> None:
    workspace: Workspace = workspace_of(settings({"time": time_server()}))
    chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=["call_k"])))
    await collect(workspace.send("What time is it in Kolkata?", asker=Choosing("Deny")))
    tool = workspace.session.messages()[2]
    assert tool.tool_run is not None and tool.tool_run.status == "denied"
    assert tool.content.startswith(DENIED)
    assert bodies(chutes_server)[1]["messages"][-1]["content"] == tool.content


async def test_regenerate_after_the_tools_writes_the_answer_again_from_the_same_results(
        chutes_server: FakeProvider, workspace_of: Any) -> None:
    workspace: Workspace = workspace_of(settings({"time": time_server()}))
    chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=["call_k"])))
    await collect(workspace.send("What time is it in Kolkata?", asker=Choosing()))
    *_, tool, answer = workspace.session.messages()
    await collect(workspace.regenerate(asker=Choosing()))
    *_, tool_again, again = workspace.session.messages()
    assert tool_again.id == tool.id and again.id != answer.id and again.parent_id == tool.id
    assert [m["role"] for m in bodies(chutes_server)[-1]["messages"]] == [
        "user", "assistant", "tool"]


async def test_the_loop_stops_at_max_steps_and_every_call_is_answered(
        chutes_server: FakeProvider, workspace_of: Any) -> None:
    workspace: Workspace = workspace_of(settings({"time": time_server(approve="always")},
                                                 max_steps=1))
    for call_id in ("call_1", "call_2"):
        chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=[call_id])))
    await collect(workspace.send("What time is it in Kolkata?", asker=Choosing(None)))
    path = workspace.session.messages()
    assert [m.role for m in path] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT,
                                      Role.TOOL]
    last = path[-1]
    assert last.tool_run is not None and last.tool_run.status == "not-run"
    assert "max_steps" in last.content
    assert len(bodies(chutes_server)) == 2


async def test_a_model_that_takes_no_tools_is_sent_without_them_only_if_the_user_agrees(
        chutes_server: FakeProvider, workspace_of: Any) -> None:
    workspace: Workspace = workspace_of(settings({"time": time_server()}, tools=False))
    refusing = Choosing(yes=False)
    with pytest.raises(UsageError, match=r"does not take tools.*nothing was sent"):
        await collect(workspace.send("What time is it?", asker=refusing))
    assert len(refusing.confirmations) == 1 and bodies(chutes_server) == []
    assert not workspace.session.is_saved
    chutes_server.script(Reply(stream_of(["I cannot tell."])))
    await collect(workspace.send("What time is it?", asker=Choosing(yes=True)))
    [body] = bodies(chutes_server)
    assert "tools" not in body


async def test_compare_says_it_sends_no_tools(workspace_of: Any) -> None:
    workspace: Workspace = workspace_of(settings({"time": time_server()}))
    note = workspace.compare_note()
    assert note is not None and note.startswith("Compare sends no tools")
    workspace.set_tool_server("time", False)
    assert workspace.compare_note() is None and workspace.tool_servers() == []


async def test_no_servers_no_tools(chutes_server: FakeProvider, workspace_of: Any) -> None:
    workspace: Workspace = workspace_of(settings({}))
    chutes_server.script(Reply(tool_call_stream([KOLKATA])))
    await collect(workspace.send("What time is it?"))
    assert "tools" not in bodies(chutes_server)[0]
    [_, reply] = workspace.session.messages()
    assert reply.tool_calls and reply.role is Role.ASSISTANT




async def test_export_and_import_round_trip_the_tool_messages(
        chutes_server: FakeProvider, workspace_of: Any, tmp_path: Path) -> None:
    from tui_chat.core.export import export_json, export_markdown, import_file

    workspace: Workspace = workspace_of(settings({"time": time_server()}))
    chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=["call_k"])))
    await collect(workspace.send("What time is it in Kolkata?", asker=Choosing()))
    conversation = workspace.session.conversation.id
    markdown = export_markdown(workspace.store, [conversation])
    assert "The model called a tool (time__get_current_time)." in markdown
    assert "*Result of time.get_current_time ·" in markdown
    assert "tools are not enabled" not in markdown
    exported = tmp_path / "export.json"
    exported.write_text(export_json(workspace.store, [conversation]), encoding="utf-8")
    with Store.open(tmp_path / "other.sqlite3") as other:
        import_file(other, exported)
        assert other.get_messages(conversation) == workspace.session.messages()
        assert other.get_messages(conversation)[2].tool_run is not None


class Filling(Choosing):
    """Approves every call and fills in every form a server asks for with `answers`."""

    def __init__(self, answers: dict[str, Any]) -> None:
        super().__init__("Run once")
        self.answers = answers
        self.requests: list[Any] = []

    async def elicit(self, request: Any) -> Any:
        self.requests.append(request)
        return "accept", self.answers


async def test_a_server_asks_the_exchange_asker_for_input(
        chutes_server: FakeProvider, workspace_of: Any,
        everything: Path) -> None:  # noqa: F811
    workspace: Workspace = workspace_of(settings({"everything": McpServerConfig(
        command=str(everything), args=["stdio"])}))
    chutes_server.script(Reply(tool_call_stream(
        [("everything__trigger-elicitation-request", "{}")], ids=["call_e"])))
    asker = Filling({"name": "Asha", "integer": 9})
    await collect(workspace.send("Ask me for my name", asker=asker))
    [request] = asker.requests
    assert request.server == "everything" and "name" in request.schema["properties"]
    tool = workspace.session.messages()[2]
    assert tool.tool_run is not None and tool.tool_run.status == "ok"
    assert "- Name: Asha" in tool.content and "- Favorite Integer: 9" in tool.content
    # An asker that cannot ask (a script's, REFUSE's) declines: the server is told so.
    chutes_server.script(Reply(tool_call_stream(
        [("everything__trigger-elicitation-request", "{}")], ids=["call_f"])))
    await collect(workspace.send("Again", asker=Choosing("Run once")))
    assert "User declined" in workspace.session.messages()[-2].content


async def test_an_image_result_is_kept_as_a_file_of_the_tool_message_and_not_sent(
        chutes_server: FakeProvider, workspace_of: Any,
        everything: Path) -> None:  # noqa: F811
    workspace: Workspace = workspace_of(settings({"everything": McpServerConfig(
        command=str(everything), args=["stdio"])}))
    chutes_server.script(Reply(tool_call_stream(
        [("everything__get-tiny-image", "{}"),
         ("everything__get-resource-links", '{"count": 2}')], ids=["call_i", "call_l"])))
    await collect(workspace.send("Show me a picture", asker=Choosing("Run once")))
    _user, _called, image, links, _answer = workspace.session.messages()
    assert [(a.name, a.kind, a.mime) for a in image.attachments] == [
        ("image-1.png", "image", "image/png")]
    [kept] = workspace.store.attachments_of([image.id])[image.id]
    assert kept.data is not None and kept.data.startswith(b"\x89PNG")
    assert kept.size == len(kept.data) == image.attachments[0].size
    assert "image-1.png]" in image.content  # the model is told its name, not its pixels
    assert not links.attachments and result_links(links.content)
    second = bodies(chutes_server)[1]["messages"]
    assert second[2] == {"role": "tool", "tool_call_id": "call_i", "content": image.content}
    # Reopened, the tool message still has its file.
    workspace.open_conversation(workspace.session.conversation.id)
    assert workspace.session.messages()[2].attachments == image.attachments


async def test_a_chutes_model_listed_with_tools_is_offered_them_with_nothing_in_config(
        chutes_server: FakeProvider, workspace_of: Any) -> None:
    """Chutes' /models lists "tools" in the model's `supported_features`: that alone makes it
    take tools. The list is read before the first message with tools when it never was (a
    fresh machine: `ask`, or the app before its start-up list arrived)."""
    chutes_server.models_list = {"object": "list", "data": [
        {"id": MODEL, "supported_features": ["json_mode", "tools"]}]}
    workspace: Workspace = workspace_of(Settings(mcp=McpSettings(
        servers={"time": time_server()})))
    chutes_server.script(Reply(stream_of(["I will ask the tool."])))
    asker = Choosing()
    await collect(workspace.send("What time is it?", asker=asker))
    [body] = bodies(chutes_server)
    assert {tool["function"]["name"] for tool in body["tools"]} == {
        "time__get_current_time", "time__convert_time"}
    assert asker.confirmations == []


LISTED = {"id": MODEL, "supported_features": ["json_mode", "tools"]}


@pytest.mark.parametrize(("listed", "tools", "status", "reason"), [
    ({"id": MODEL, "supported_features": ["json_mode"]}, None, 200,
     "Chutes' model list does not name tools among its supported features"),
    ({"id": MODEL}, None, 200, "Chutes' model list does not say whether it takes them"),
    ({"id": "another/model", "supported_features": ["tools"]}, None, 200,
     "Chutes' model list does not have it"),
    (LISTED, None, 500, "Chutes' model list could not be read"),
    (LISTED, False, 200, 'config.toml says tools = false under [models."chutes:'),
])
async def test_the_question_says_why_a_model_takes_no_tools(
        chutes_server: FakeProvider, workspace_of: Any, listed: dict[str, Any],
        tools: bool | None, status: int, reason: str) -> None:
    chutes_server.models_list = {"object": "list", "data": [listed]}
    chutes_server.models_status = status
    models = {} if tools is None else {f"chutes:{MODEL}": ModelSettings(tools=tools)}
    workspace: Workspace = workspace_of(Settings(mcp=McpSettings(
        servers={"time": time_server()}), models=models))
    asker = Choosing(yes=False)
    with pytest.raises(UsageError) as refused:
        await collect(workspace.send("What time is it?", asker=asker))
    [question] = asker.confirmations
    assert question.startswith(f"{MODEL} does not take tools: {reason}")
    assert question.endswith("Send this message without them?")
    assert reason in str(refused.value) and "nothing was sent" in str(refused.value)
    assert bodies(chutes_server) == []


async def test_sutra_documents_no_tools_and_says_so(sutra_server: FakeProvider,
                                                    tmp_path: Path) -> None:
    store = Store.open(tmp_path / "store.sqlite3")
    env = {"SUTRA_BASE_URL": sutra_server.url, "SUTRA_API_KEY": "sutra_test-0001",
           "PATH": "/usr/bin:/bin"}
    workspace = Workspace(Settings(mcp=McpSettings(servers={"time": time_server()})), store,
                          env=env, provider="sutra", model="sutra-v2")
    try:
        asker = Choosing(yes=True)
        sutra_server.script(Reply(stream_of(["नमस्ते"], flavour="sutra")))
        await collect(workspace.send("What time is it?", asker=asker))
        [question] = asker.confirmations
        assert question.startswith("sutra-v2 does not take tools: SUTRA's API documents no "
                                   "tools")
        [body] = bodies(sutra_server)
        assert "tools" not in body
        assert [r for r in sutra_server.requests if r.method == "GET"] == []
    finally:
        await workspace.aclose()
        store.close()


async def test_editing_a_message_branches_around_the_tool_messages(
        chutes_server: FakeProvider, workspace_of: Any) -> None:
    """Edit & resend after a tool exchange: a later message edited keeps the calls and
    results before it in its request; the first one edited branches before them, and its
    call is put to the user again. Nothing is removed."""
    workspace: Workspace = workspace_of(settings({"time": time_server()}))
    chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=["call_k"])))
    asker = Choosing()
    await collect(workspace.send("What time is it in Kolkata?", asker=asker))
    await collect(workspace.send("Thanks.", asker=asker))
    first, called, tool, answer, thanks, _ = workspace.session.messages()
    await collect(workspace.edit_and_resend(thanks.id, "And in Tokyo?", asker=asker))
    path = workspace.session.messages()
    assert [m.id for m in path[:4]] == [first.id, called.id, tool.id, answer.id]
    assert path[4].content == "And in Tokyo?" and path[4].parent_id == answer.id
    assert [m["role"] for m in bodies(chutes_server)[-1]["messages"]] == [
        "user", "assistant", "tool", "assistant", "user"]
    chutes_server.script(Reply(tool_call_stream(
        [("time__get_current_time", '{"timezone": "Asia/Tokyo"}')], ids=["call_t"])))
    await collect(workspace.edit_and_resend(first.id, "What time is it in Tokyo?",
                                            asker=asker))
    assert len(asker.questions) == 2  # asked again: "Run once" was for that call only
    edited, called_again, tool_again, _ = workspace.session.messages()
    assert edited.parent_id is None and called_again.tool_calls[0].id == "call_t"
    assert "Asia/Tokyo" in tool_again.content and tool_again.tool_run is not None
    for kept in (called, tool, answer, thanks):
        assert workspace.store.get_message(kept.id).id == kept.id
