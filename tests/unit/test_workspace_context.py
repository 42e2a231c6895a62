"""Context and cost through the workspace, against the loopback fake provider: usage asked for
where it is taken, the window's figures, max_tokens clamped, an overflow refused before
anything is saved, the oldest turns left out, each reply priced, the store's figures."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.fakeprovider import PRICED_MODELS, FakeProvider, counted_prompt, fake_tokens
from tui_chat.core.config import Settings
from tui_chat.core.context import ContextOverflowError
from tui_chat.core.model_facts import ModelSettings
from tui_chat.core.models import Conversation, Message, Parameters, Role, Usage
from tui_chat.core.session import ReplyFinished, SessionEvent
from tui_chat.core.store import Store
from tui_chat.core.store_schema import SCHEMA_VERSION
from tui_chat.core.workspace import Workspace

FIXTURE_V4 = Path(__file__).parent.parent / "fixtures" / "store-v4.sqlite3"
HINDI = "भारत एक विशाल देश है जिसकी संस्कृति बहुत पुरानी और समृद्ध है। "


async def drain(events: object) -> list[SessionEvent]:
    return [event async for event in events]  # type: ignore[attr-defined]


def finished(events: list[SessionEvent]) -> Message:
    return next(e.message for e in events if isinstance(e, ReplyFinished))


async def priced_workspace(store: Store, server: FakeProvider, model: str = "fake/small",
                           **settings: object) -> Workspace:
    server.models_list = PRICED_MODELS
    server.count_usage = True
    env = {"CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": "cpk_context-test-0001"}
    workspace = Workspace(Settings(**settings), store, env=env, model=model)  # type: ignore[arg-type]
    await workspace.catalog.refresh(workspace.provider)
    return workspace


# --- usage asked for where it is taken ------------------------------------------------------

async def test_a_provider_that_refuses_stream_options_is_asked_once_more_without_and_remembered(
        store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.reject_stream_options = True
    chutes_server.count_usage = True
    settings = Settings.model_validate({"providers": {"chutes": {
        "supports_stream_options": True}}})
    env = {"CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": "cpk_context-test-0002"}
    workspace = Workspace(settings, store, env=env, model="m")
    reply = finished(await drain(workspace.send("hello")))
    bodies = [r.body for r in chutes_server.requests if r.method == "POST"]
    assert [("stream_options" in body) for body in bodies] == [True, False]
    assert reply.content == "Hello! You said: hello"
    await drain(workspace.send("again"))
    later = [r.body for r in chutes_server.requests if r.method == "POST"][2:]
    assert [("stream_options" in body) for body in later] == [False]  # remembered
    await workspace.aclose()


async def test_a_provider_that_takes_stream_options_reports_usage(
        store: Store, sutra_server: FakeProvider) -> None:
    sutra_server.count_usage = True  # the fake SUTRA reports usage only when asked
    env = {"SUTRA_BASE_URL": sutra_server.url, "SUTRA_API_KEY": "sutra-key-0001"}
    workspace = Workspace(Settings(), store, env=env, provider="sutra")
    reply = finished(await drain(workspace.send(HINDI)))
    body = sutra_server.requests[-1].body
    assert body["stream_options"] == {"include_usage": True}
    assert reply.usage is not None and reply.usage.prompt_tokens == counted_prompt(body)
    assert reply.tokens_per_second is not None
    await workspace.aclose()


# --- the window ---------------------------------------------------------------------------

async def test_the_context_figure_follows_the_providers_count_and_calibrates_on_it(
        store: Store, chutes_server: FakeProvider) -> None:
    workspace = await priced_workspace(store, chutes_server, "fake/large")
    before = workspace.context_plan(HINDI * 3).use
    assert before.window == 131072 and before.counted == 0
    await drain(workspace.send(HINDI * 3))
    body = chutes_server.requests[-1].body
    use = workspace.context_plan().use
    reply = workspace.session.messages()[-1]
    assert use.counted == counted_prompt(body) + fake_tokens(reply.content) + 4
    # What the provider counted for Hindi is what the next Hindi prompt is estimated at.
    draft = HINDI * 5
    estimate = workspace.context_plan(draft).use.estimated - use.estimated
    assert estimate == pytest.approx(fake_tokens(draft) + 4, rel=0.1)
    await workspace.aclose()


async def test_max_tokens_is_lowered_so_that_prompt_and_reply_fit(
        store: Store, chutes_server: FakeProvider) -> None:
    workspace = await priced_workspace(store, chutes_server, "fake/small",
                                       parameters=Parameters(max_tokens=2048))
    chutes_server.windows = {"fake/small": 2048}  # as Chutes: max_tokens = window is a 400
    reply = finished(await drain(workspace.send("hello there")))
    sent = chutes_server.requests[-1].body["max_tokens"]
    assert reply.content.startswith("Hello!") and sent < 2048 - counted_prompt(
        chutes_server.requests[-1].body)
    assert workspace.session.conversation.parameters.max_tokens == 2048  # the user's own stays
    await workspace.aclose()


async def test_a_request_that_cannot_fit_is_not_sent_and_nothing_is_saved(
        store: Store, chutes_server: FakeProvider) -> None:
    workspace = await priced_workspace(store, chutes_server, "fake/small")
    for index in range(4):
        await drain(workspace.send(f"turn {index} " + "many words here " * 40))
    posts = len([r for r in chutes_server.requests if r.method == "POST"])
    messages = len(workspace.session.messages())
    plan = workspace.context_plan("one more " * 200)
    assert plan.state == "over" and plan.keep_from is not None and plan.left_out >= 2
    with pytest.raises(ContextOverflowError) as caught:
        workspace.send("one more " * 200)
    assert "window of fake/small" in caught.value.message
    assert len([r for r in chutes_server.requests if r.method == "POST"]) == posts
    assert len(workspace.session.messages()) == messages
    workspace.leave_out_before(plan.keep_from)
    await drain(workspace.send("one more " * 200))
    sent = chutes_server.requests[-1].body["messages"]
    kept = workspace.session.messages()
    first_kept = next(m for m in kept if m.id == plan.keep_from)
    assert sent[0] == {"role": "user", "content": first_kept.content}
    assert len(sent) == len(kept) - plan.left_out - 1  # the reply being written is not sent
    reopened = Workspace(workspace.settings, store, env=workspace.env)
    reopened.open_conversation(workspace.session.conversation.id)
    assert reopened.session.conversation.context_from == plan.keep_from  # it is stored
    await workspace.aclose()


# --- cost ---------------------------------------------------------------------------------

async def test_each_reply_is_priced_and_the_store_adds_them_up(
        store: Store, chutes_server: FakeProvider) -> None:
    workspace = await priced_workspace(store, chutes_server, "fake/small")
    assert workspace.conversation_cost() == (None, 0)  # nothing sent yet
    empty = store.create_conversation(Conversation(title="nothing spent"))
    assert store.conversation_cost(empty.id) == (None, 0)
    first = finished(await drain(workspace.send("what does it cost")))
    assert first.usage is not None and first.usage.cost_usd is not None
    expected = (first.usage.prompt_tokens * 0.5 + first.usage.completion_tokens * 2) / 1e6
    assert first.usage.cost_usd == pytest.approx(expected)
    assert store.get_message(first.id).usage == first.usage  # saved with the reply
    workspace.choose("chutes", "fake/unpriced")
    second = finished(await drain(workspace.send("and this one")))
    assert second.usage is not None and second.usage.cost_usd is None
    assert workspace.conversation_cost() == (pytest.approx(expected), 1)
    spent = store.spent_by_conversation([workspace.session.conversation.id])
    row = spent[workspace.session.conversation.id]
    assert (row.replies, row.unpriced) == (2, 1)
    assert row.tokens == first.usage.total_tokens + second.usage.total_tokens
    await workspace.aclose()


async def test_config_prices_a_model_its_provider_lists_without_prices(
        store: Store, chutes_server: FakeProvider) -> None:
    workspace = await priced_workspace(
        store, chutes_server, "fake/unpriced",
        models={"chutes:fake/unpriced": ModelSettings(input_price=1, output_price=1)})
    reply = finished(await drain(workspace.send("priced by me")))
    assert reply.usage is not None
    assert reply.usage.cost_usd == pytest.approx(reply.usage.total_tokens / 1e6)
    await workspace.aclose()


def test_usage_by_day_groups_replies_per_local_day_and_model(store: Store) -> None:
    now = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
    conversation = store.create_conversation(Conversation(title="t"))
    for days_ago, model, cost in ((0, "a", 0.5), (0, "a", 0.25), (0, "b", None), (1, "a", 1.0),
                                  (9, "a", 9.0)):
        store.add_message(Message(conversation_id=conversation.id, role=Role.USER, content="q"))
        store.add_message(Message(
            conversation_id=conversation.id, role=Role.ASSISTANT, content="r", provider="p",
            model=model, created=now - timedelta(days=days_ago),
            usage=Usage(prompt_tokens=10, completion_tokens=5, total_tokens=15,
                        cost_usd=cost)))
    rows = store.usage_by_day(7, now)
    today = now.astimezone().date().isoformat()
    assert [(r.day == today, r.model, r.spent.replies, r.spent.cost_usd, r.spent.unpriced)
            for r in rows] == [(True, "a", 2, 0.75, 0), (True, "b", 1, None, 1),
                               (False, "a", 1, 1.0, 0)]
    assert rows[0].spent.tokens == 30


# --- the store of today's code --------------------------------------------------------------

def test_a_store_of_schema_4_migrates_and_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "v4.sqlite3"
    shutil.copy(FIXTURE_V4, path)
    with sqlite3.connect(path) as raw:
        before = raw.execute("SELECT id, content, usage, parent_id FROM messages ORDER BY seq"
                             ).fetchall()
    raw.close()
    with Store.open(path) as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
        after = store._conn.execute("SELECT id, content, usage, parent_id FROM messages "
                                    "ORDER BY seq").fetchall()
        assert [tuple(row) for row in after] == before
        conversation = store.get_conversation("d1" + "0" * 30)
        assert conversation.context_from is None
        assert [m.id for m in store.get_messages(conversation.id)] == ["n101", "n103", "n104",
                                                                      "n105"]
        assert store.conversation_cost(conversation.id) == (None, 2)  # usage, no price then
        store.set_context_from(conversation.id, "n104")
        assert store.get_conversation(conversation.id).context_from == "n104"


async def test_the_only_earlier_turn_can_be_left_out_when_the_message_alone_fits(
        store: Store, chutes_server: FakeProvider) -> None:
    workspace = await priced_workspace(store, chutes_server, "fake/small")
    await drain(workspace.send("turn one " + "many words here " * 120))
    draft = "one more " * 600
    plan = workspace.context_plan(draft)
    assert plan.state == "over"
    workspace.new_conversation()
    assert workspace.context_plan(draft).state != "over"  # alone, it fits
    # Back in the conversation: leaving out its only turn is offered, and then it goes.
    workspace.open_conversation(store.latest_conversation().id)  # type: ignore[union-attr]
    plan = workspace.context_plan(draft)
    assert plan.state == "over" and plan.keep_from is not None and plan.left_out == 2
    workspace.leave_out_before(plan.keep_from)
    assert workspace.context_plan(draft).state != "over"
    reply = finished(await drain(workspace.send(draft)))
    assert chutes_server.requests[-1].body["messages"] == [{"role": "user", "content": draft}]
    assert reply.content.startswith("Hello!")
    await workspace.aclose()


async def test_max_tokens_is_lowered_to_the_longest_reply_the_provider_lists(
        store: Store, chutes_server: FakeProvider) -> None:
    """Chutes lists each model's `max_output_length`: a larger `max_tokens` goes as that."""
    workspace = await priced_workspace(store, chutes_server, "fake/large",
                                       parameters=Parameters(max_tokens=50_000))
    listed = dict(chutes_server.models_list)
    listed["data"] = [dict(entry, max_output_length=8192) if entry["id"] == "fake/large"
                      else entry for entry in listed["data"]]
    chutes_server.models_list = listed
    await workspace.catalog.refresh(workspace.provider)
    finished(await drain(workspace.send("hello there")))
    assert chutes_server.requests[-1].body["max_tokens"] == 8192
    workspace.session.set_parameters(Parameters(max_tokens=1000))  # under it: as set
    finished(await drain(workspace.send("and again")))
    assert chutes_server.requests[-1].body["max_tokens"] == 1000
    assert workspace.session.conversation.parameters.max_tokens == 1000
    await workspace.aclose()
