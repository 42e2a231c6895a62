"""The workspace's branches, comparisons and personas, headless, against the loopback fake
providers: what the app and `ask` build on."""

from __future__ import annotations

import threading

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.unit.test_workspace import drain, env_for
from tui_chat.core.compare import TargetEvent
from tui_chat.core.config import Settings
from tui_chat.core.errors import UnknownProviderError, UsageError
from tui_chat.core.events import ContentDelta
from tui_chat.core.models import MessageStatus, Parameters
from tui_chat.core.personas import Persona
from tui_chat.core.session import ReplyFailed, ReplyFinished, UserMessageSaved
from tui_chat.core.store import Store
from tui_chat.core.workspace import Workspace, split_model_ref


def sent_contents(server: FakeProvider) -> list[str]:
    body = server.requests[-1].body
    assert isinstance(body, dict)
    return [m["content"] for m in body["messages"]]


def test_a_model_may_name_its_provider() -> None:
    settings = Settings.model_validate({"providers": {"local": {
        "base_url": "http://127.0.0.1:9/v1", "models": ["llama3:8b"]}}})
    assert split_model_ref(settings, "sutra:sutra-v2", "chutes") == ("sutra", "sutra-v2")
    assert split_model_ref(settings, "local:llama3:8b", "chutes") == ("local", "llama3:8b")
    assert split_model_ref(settings, "llama3:8b", "local") == ("local", "llama3:8b")
    assert split_model_ref(settings, "x/y", "sutra") == ("sutra", "x/y")
    assert split_model_ref(settings, "sutra:", "chutes") == ("chutes", "sutra:")


async def test_compare_streams_both_providers_and_one_is_chosen(
        store: Store, chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["from ", "chutes"])))
    sutra_server.script(Reply(stream_of(["from ", "sutra"], flavour="sutra"), drop_after=2))
    workspace = Workspace(Settings(), store, env=env_for(chutes_server, sutra_server))
    workspace.choose_several([("chutes", "deepseek-ai/DeepSeek-V3-0324"),
                              ("sutra", "sutra-v2")])
    events = await drain(workspace.compare("q"))
    assert workspace.compare_models == ()  # spent: the next message goes to one model
    assert isinstance(events[0], UserMessageSaved)
    ends = {e.target: e.event for e in events if isinstance(e, TargetEvent)
            and isinstance(e.event, ReplyFinished | ReplyFailed)}
    assert isinstance(ends[0], ReplyFinished) and isinstance(ends[1], ReplyFailed)
    chutes_reply, sutra_reply = ends[0].message, ends[1].message
    assert sutra_reply.status is MessageStatus.INTERRUPTED and sutra_reply.content == "from "
    assert store.siblings(sutra_reply.id).ids == (chutes_reply.id, sutra_reply.id)
    assert workspace.session.messages()[-1].id == chutes_reply.id  # the first, until chosen
    change = workspace.choose_reply(sutra_reply.id)
    assert change is not None and change.after_id == events[0].message.id
    assert workspace.session.messages()[-1].id == sutra_reply.id
    assert (workspace.provider_name, workspace.model) == ("sutra", "sutra-v2")
    await drain(workspace.send("next"))
    # The cut-off reply chosen is not context (it failed): its turn is left out whole, so
    # that the roles alternate.
    assert sent_contents(sutra_server) == ["next"]
    await workspace.aclose()


async def test_compare_leases_each_client_until_its_stream_ends(
        store: Store, chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["a ", "b"]), gate=gate, gate_after=2))
    sutra_server.script(Reply(stream_of(["c"], flavour="sutra")))
    workspace = Workspace(Settings(), store, env=env_for(chutes_server, sutra_server))
    workspace.choose_several([("chutes", "m1"), ("sutra", "sutra-v2")])
    events = workspace.compare("q")
    async for event in events:
        if isinstance(event, TargetEvent) and isinstance(event.event, ContentDelta) \
                and event.target == 0:
            break
    chutes = workspace._clients.get(workspace.settings.resolve_provider("chutes",
                                                                        workspace.env))
    await workspace.apply_settings(Settings(max_retries=1))
    assert not chutes._http.is_closed  # still streaming the first column
    gate.set()
    rest = await drain(events)
    assert any(isinstance(e, TargetEvent) and isinstance(e.event, ReplyFinished)
               and e.target == 0 for e in rest)
    assert chutes._http.is_closed
    await workspace.aclose()


async def test_compare_takes_two_to_four_known_models(store: Store) -> None:
    workspace = Workspace(Settings(), store, env={})
    with pytest.raises(UsageError, match="2 to 4"):
        workspace.choose_several([("chutes", "a")])
    with pytest.raises(UsageError, match="2 to 4"):
        workspace.choose_several([("chutes", "a"), ("chutes", "a")])  # the same one twice
    with pytest.raises(UsageError, match="2 to 4"):
        workspace.choose_several([("chutes", f"m{i}") for i in range(5)])
    with pytest.raises(UnknownProviderError):
        workspace.choose_several([("chutes", "a"), ("nowhere", "b")])
    assert workspace.compare_models == ()
    with pytest.raises(UsageError):
        workspace.compare("q")
    workspace.choose_several([("chutes", "a"), ("sutra", "b")])
    workspace.choose("chutes", "c")  # one model chosen again: no comparison
    assert workspace.compare_models == ()


async def test_a_search_hit_on_another_branch_opens_that_branch(
        store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["first"])), Reply(stream_of(["second"])))
    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    await drain(workspace.send("q"))
    first = workspace.session.messages()[-1]
    await drain(workspace.regenerate())
    cid = workspace.session.conversation.id
    assert workspace.open_conversation(cid)[-1].content == "second"
    shown = workspace.open_conversation(cid, at_message=first.id)
    assert [m.content for m in shown] == ["q", "first"]
    assert [m.content for m in store.get_messages(cid)] == ["q", "first"]
    await workspace.aclose()


async def test_a_fork_continues_in_a_new_conversation_and_leaves_the_original(
        store: Store, chutes_server: FakeProvider) -> None:
    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    for prompt in ("one", "two"):
        await drain(workspace.send(prompt))
    original = workspace.session.conversation.id
    first_reply = workspace.session.messages()[1]
    shown = workspace.fork(first_reply.id)
    assert [m.content for m in shown] == ["one", "Hello! You said: one"]
    fork = workspace.session.conversation
    assert fork.id != original and fork.forked_from == original
    assert fork.forked_from_message == first_reply.id
    await drain(workspace.send("three"))
    assert sent_contents(chutes_server) == ["one", "Hello! You said: one", "three"]
    assert len(store.get_messages(original)) == 4
    await workspace.aclose()


async def test_continuing_from_a_cut_off_reply_is_a_choice(
        store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["half ", "of it", "x"]), drop_after=3),
                         Reply(stream_of(["ok"])), Reply(stream_of(["ok"])))
    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    await drain(workspace.send("q"))
    cut = workspace.session.messages()[-1]
    assert cut.status is MessageStatus.INTERRUPTED
    await drain(workspace.send("go on", continue_partial=True))
    assert sent_contents(chutes_server) == ["q", "half of it", "go on"]
    await workspace.aclose()


async def test_a_persona_sets_the_prompt_parameters_and_model_unless_chosen(
        store: Store) -> None:
    persona = Persona(name="t", system_prompt="Translate.", provider="sutra",
                      model="sutra-r0", parameters=Parameters(temperature=0.3))
    workspace = Workspace(Settings(), store, env={})
    workspace.apply_persona(persona)
    assert (workspace.provider_name, workspace.model) == ("sutra", "sutra-r0")
    conversation = workspace.session.conversation
    assert conversation.system_prompt == "Translate."
    assert conversation.parameters.temperature == 0.3
    other = Workspace(Settings(), store, env={}, provider="chutes", model="x/y")
    other.apply_persona(persona, keep_model=True)
    assert (other.provider_name, other.model) == ("chutes", "x/y")
    assert other.session.conversation.system_prompt == "Translate."
