"""Reasoning off or lighter per conversation (`Parameters.reasoning`): the request carries
what the provider's dialect says ("off": `chat_template_kwargs` that switch thinking off;
"low"/"medium"/"high": `reasoning_effort`) only for a model known to take it (Chutes' /models
lists "reasoning" in `supported_features`; config.toml's `reasoning = true`); any other model
gets nothing, and the workspace has one sentence saying so. The reply remembers what it was
sent with (`Message.reasoning_sent`), which its header shows."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core import dialect
from tui_chat.core.config import Settings
from tui_chat.core.model_facts import ModelSettings, merged
from tui_chat.core.models import Conversation, ModelInfo, Parameters
from tui_chat.core.session import ChatSession, ReplyFinished
from tui_chat.core.store import Store
from tui_chat.core.workspace import Workspace

THINKER = "fake/thinker"
PLAIN = "fake/plain"
MODELS = {"object": "list", "data": [
    {"id": THINKER, "object": "model", "supported_features": ["tools", "reasoning"]},
    {"id": PLAIN, "object": "model", "supported_features": ["tools"]},
]}
OFF = {"chat_template_kwargs": {"enable_thinking": False, "thinking": False}}


async def send_with(server: FakeProvider, store: Store, model: str, reasoning: str,
                    settings: Settings | None = None,
                    provider: str = "chutes") -> tuple[dict[str, Any], ReplyFinished,
                                                       str | None]:
    """The body of the request sent with `reasoning`, the reply, and the workspace's note."""
    server.models_list = MODELS
    server.script(Reply(stream_of(["Hi"])))
    env = {f"{provider.upper()}_BASE_URL": server.url,
           f"{provider.upper()}_API_KEY": "cpk_reasoning-test-key-01"}
    base = settings or Settings()
    workspace = Workspace(base.model_copy(update={"default_provider": provider,
                                                  "default_model": model}), store, env=env)
    try:
        await workspace.catalog.refresh(workspace.provider)
        note = workspace.set_reasoning(reasoning)
        events = [event async for event in workspace.send("hi")]
    finally:
        await workspace.aclose()
    finished = [e for e in events if isinstance(e, ReplyFinished)]
    assert len(finished) == 1
    return server.requests[-1].body, finished[0], note


@pytest.mark.parametrize("effort", ["low", "medium", "high"])
async def test_a_lighter_setting_is_sent_as_reasoning_effort(
        chutes_server: FakeProvider, store: Store, effort: str) -> None:
    body, finished, note = await send_with(chutes_server, store, THINKER, effort)
    assert body["reasoning_effort"] == effort
    assert "chat_template_kwargs" not in body
    assert finished.message.reasoning_sent == effort
    assert note is None


async def test_off_switches_the_chat_templates_thinking_off(
        chutes_server: FakeProvider, store: Store) -> None:
    body, finished, note = await send_with(chutes_server, store, THINKER, "off")
    assert body["chat_template_kwargs"] == OFF["chat_template_kwargs"]
    assert "reasoning_effort" not in body
    assert finished.message.reasoning_sent == "off"
    assert note is None


async def test_default_sends_neither_key(chutes_server: FakeProvider, store: Store) -> None:
    body, finished, _ = await send_with(chutes_server, store, THINKER, "default")
    assert "reasoning_effort" not in body and "chat_template_kwargs" not in body
    assert finished.message.reasoning_sent is None


async def test_a_model_not_known_to_reason_gets_nothing_and_a_sentence(
        chutes_server: FakeProvider, store: Store) -> None:
    body, finished, note = await send_with(chutes_server, store, PLAIN, "off")
    assert "reasoning_effort" not in body and "chat_template_kwargs" not in body
    assert finished.message.reasoning_sent is None
    assert note is not None and PLAIN in note and "not sent" in note
    assert "reasoning = true" in note


async def test_config_says_a_custom_model_takes_it(sutra_server: FakeProvider,
                                                   store: Store) -> None:
    settings = Settings(models={"sutra:sutra-r0": ModelSettings(reasoning=True)})
    body, finished, note = await send_with(sutra_server, store, "sutra-r0", "off",
                                           settings, provider="sutra")
    assert body["chat_template_kwargs"] == OFF["chat_template_kwargs"]
    assert finished.message.reasoning_sent == "off" and note is None


def test_the_setting_is_kept_with_the_conversation(store: Store) -> None:
    conversation = store.create_conversation(Conversation())
    session = ChatSession.resume(store, conversation.id)
    session.set_parameters(Parameters(reasoning="low"))
    again = ChatSession.resume(store, session.conversation.id)
    assert again.conversation.parameters.reasoning == "low"
    assert "reasoning" not in again.conversation.parameters.to_request()


def test_config_can_turn_a_listed_feature_off_or_on() -> None:
    listed = ModelInfo(id="m", provider="chutes", features=("reasoning", "json_mode"))
    assert not dialect.takes_reasoning(merged(listed, "chutes", "m",
                                              ModelSettings(reasoning=False)))
    bare = ModelInfo(id="m", provider="chutes")
    assert dialect.takes_reasoning(merged(bare, "chutes", "m", ModelSettings(reasoning=True)))
    assert not dialect.takes_reasoning(bare)


def test_every_choice_is_a_body_every_dialect_can_build() -> None:
    for spoken in (dialect.OPENAI_COMPATIBLE, dialect.CHUTES, dialect.SUTRA):
        assert spoken.reasoning_body("default") == spoken.reasoning_body(None) == {}
        assert spoken.reasoning_body("off") == OFF
        assert spoken.reasoning_body("high") == {"reasoning_effort": "high"}
