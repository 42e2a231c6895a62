"""The workspace, headless: the one owner of the conversation for `ask` and the app. Against
the loopback fake providers; no Textual."""

from __future__ import annotations

import threading

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.config import Settings
from tui_chat.core.events import ContentDelta
from tui_chat.core.models import Parameters
from tui_chat.core.session import ReplyFailed, ReplyFinished, SessionEvent
from tui_chat.core.store import Store
from tui_chat.core.workspace import NoModelError, Workspace

KEY = "cpk_workspace-test-key-0001"
NEW_KEY = "cpk_workspace-test-key-0002"


def env_for(chutes: FakeProvider, sutra: FakeProvider | None = None,
            key: str = KEY) -> dict[str, str]:
    env = {"CHUTES_BASE_URL": chutes.url, "CHUTES_API_KEY": key}
    if sutra is not None:
        env |= {"SUTRA_BASE_URL": sutra.url, "SUTRA_API_KEY": "sutra-key-0001"}
    return env


async def drain(events: object) -> list[SessionEvent]:
    return [event async for event in events]  # type: ignore[attr-defined]


def text_of(events: list[SessionEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ContentDelta))


# --- which provider and model ------------------------------------------------------------

async def test_defaults_then_command_line_choices_then_a_conversations_own(
        store: Store, chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    env = env_for(chutes_server, sutra_server)
    settings = Settings(default_model="x/default")
    workspace = Workspace(settings, store, env=env)
    assert (workspace.provider_name, workspace.model) == ("chutes", "x/default")
    assert (Workspace(settings, store, env=env, provider="sutra").model) == "sutra-v2"
    assert Workspace(settings, store, env=env, model="y/z").model == "y/z"
    await drain(Workspace(settings, store, env=env, provider="sutra").send("hi"))
    latest = store.latest_conversation()
    assert latest is not None and latest.provider == "sutra"
    workspace.open_conversation(latest.id[:6])
    assert (workspace.provider_name, workspace.model) == ("sutra", "sutra-v2")
    workspace.override(None, "sutra-r0")
    assert (workspace.provider_name, workspace.model) == ("sutra", "sutra-r0")
    await workspace.aclose()


async def test_a_provider_without_a_default_model_is_refused_not_sent_default(
        store: Store, chutes_server: FakeProvider) -> None:
    settings = Settings.model_validate({"providers": {"local": {
        "base_url": chutes_server.url, "api_key": "local-key-0001"}}})
    workspace = Workspace(settings, store, env={}, provider="local")
    assert workspace.model is None
    with pytest.raises(NoModelError) as raised:
        workspace.send("hi")
    assert "local" in raised.value.message and "default model" in raised.value.message
    assert not chutes_server.requests and store.latest_conversation() is None


# --- settings change in one place ----------------------------------------------------------

async def test_saving_settings_mid_reply_lets_the_reply_finish_on_its_client(
        store: Store, chutes_server: FakeProvider) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["one ", "two ", "three"]), gate=gate, gate_after=2),
                         Reply(stream_of(["next"])))
    env = env_for(chutes_server)
    workspace = Workspace(Settings(), store, env=env)
    events = workspace.send("hi")
    received: list[SessionEvent] = []
    async for event in events:
        received.append(event)
        if isinstance(event, ContentDelta):
            break  # the reply is streaming: the gate holds the rest back
    old_client = workspace.client()
    env["CHUTES_API_KEY"] = NEW_KEY
    change = await workspace.apply_settings(Settings(max_retries=1))
    assert "retries" in change.now
    assert not old_client._http.is_closed  # the streaming reply still uses it
    gate.set()
    received += [event async for event in events]
    assert isinstance(received[-1], ReplyFinished), received[-1]
    assert text_of(received) == "one two three"
    assert old_client._http.is_closed  # closed once its stream ended
    assert not any(isinstance(e, ReplyFailed) for e in received)
    await drain(workspace.send("again"))
    assert workspace.client() is not old_client
    assert chutes_server.requests[-1].headers["authorization"] == f"Bearer {NEW_KEY}"
    await workspace.aclose()


async def test_new_defaults_reach_a_conversation_with_nothing_sent(
        store: Store, chutes_server: FakeProvider) -> None:
    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    change = await workspace.apply_settings(Settings(
        system_prompt="Be brief.", default_model="x/new",
        parameters=Parameters(temperature=0.2)))
    assert set(change.here) == {"system prompt", "parameters", "default model"}
    assert not change.later
    assert workspace.model == "x/new"
    await drain(workspace.send("hi"))
    body = chutes_server.requests[-1].body
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert body["temperature"] == 0.2 and body["model"] == "x/new"
    await workspace.aclose()


async def test_a_conversation_with_messages_keeps_its_own_until_asked(
        store: Store, chutes_server: FakeProvider) -> None:
    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    await drain(workspace.send("first"))
    change = await workspace.apply_settings(Settings(
        system_prompt="Be brief.", default_model="x/new",
        parameters=Parameters(temperature=0.2)))
    assert set(change.later) == {"system prompt", "parameters", "default model"}
    assert not change.here
    await drain(workspace.send("second"))
    body = chutes_server.requests[-1].body
    assert body["messages"][0]["role"] == "user" and "temperature" not in body
    assert body["model"] == "deepseek-ai/DeepSeek-V3-0324"
    workspace.apply_defaults_here()
    await drain(workspace.send("third"))
    body = chutes_server.requests[-1].body
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert body["temperature"] == 0.2
    saved = store.get_conversation(workspace.session.conversation.id)
    assert saved.system_prompt == "Be brief." and saved.parameters.temperature == 0.2
    # A new conversation (Ctrl+N) is on the new default model.
    workspace.new_conversation()
    await drain(workspace.send("fourth"))
    assert chutes_server.requests[-1].body["model"] == "x/new"
    await workspace.aclose()


async def test_a_model_chosen_for_the_empty_conversation_is_kept_over_a_new_default(
        store: Store, chutes_server: FakeProvider) -> None:
    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    workspace.choose("chutes", "picked/model")
    change = await workspace.apply_settings(Settings(default_model="x/new",
                                                     system_prompt="Hi."))
    assert change.here == ("system prompt",) and change.later == ("default model",)
    assert workspace.model == "picked/model"
    assert workspace.session.conversation.system_prompt == "Hi."


async def test_a_new_conversation_keeps_the_model_last_picked(
        store: Store, chutes_server: FakeProvider) -> None:
    """Ctrl+N starts on the model the user last picked (F2), not the start-up default; a
    conversation reopened on its own model is not a pick."""
    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    await drain(workspace.send("on the default"))
    other = workspace.session.conversation.id
    workspace.new_conversation()
    workspace.choose("chutes", "picked/model")
    await drain(workspace.send("on the pick"))
    workspace.open_conversation(other)
    assert workspace.model == "deepseek-ai/DeepSeek-V3-0324"
    workspace.new_conversation()
    assert (workspace.provider_name, workspace.model) == ("chutes", "picked/model")
    await workspace.aclose()


async def test_a_provider_removed_from_the_settings_falls_back_to_the_default(
        store: Store, chutes_server: FakeProvider) -> None:
    settings = Settings.model_validate({"providers": {"local": {
        "base_url": chutes_server.url, "api_key": "local-key-0001", "models": ["l/1"]}}})
    workspace = Workspace(settings, store, env=env_for(chutes_server), provider="local")
    change = await workspace.apply_settings(Settings())
    assert change.provider_removed == "local"
    assert (workspace.provider_name, workspace.model) == ("chutes",
                                                         "deepseek-ai/DeepSeek-V3-0324")


async def test_a_conversation_deleted_elsewhere_starts_a_new_one(
        store: Store, chutes_server: FakeProvider) -> None:
    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    await drain(workspace.send("hi"))
    gone = workspace.session.conversation.id
    store.delete_conversation(gone)
    assert workspace.forget_conversation(gone)
    assert not workspace.session.is_saved
    assert not workspace.forget_conversation(gone)
    await drain(workspace.send("again"))
    assert workspace.session.conversation.id != gone


async def test_a_new_reading_width_is_in_force_at_once_and_said_so(
        store: Store, chutes_server: FakeProvider) -> None:
    from tui_chat.ui.screens.settings_note import settings_sentence

    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    change = await workspace.apply_settings(Settings(reading_width=72, max_retries=1))
    assert workspace.settings.reading_width == 72
    assert set(change.now) == {"reading width", "retries"}
    sentence = settings_sentence(change, streaming=False)
    assert "Reading width: in force at once." in sentence
    assert "Retries: in force from the next request." in sentence
    await workspace.aclose()
