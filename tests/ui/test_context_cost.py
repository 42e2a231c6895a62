"""Context and cost in the app, against usage and prices the fake provider reports: the status
line's figures, the warning near the window, the offer when a message would not fit (and the
messages it leaves out), a reply cut at max_tokens, and figures cleared on a change."""

from __future__ import annotations

from typing import Any

import msgspec
from textual.pilot import Pilot

from tests.fakeprovider import (
    PRICED_MODELS,
    FakeProvider,
    Reply,
    counted_prompt,
    roles_problem,
    stream_of,
)
from tests.ui.conftest import AppFactory, conversation, rendered_text, wait_idle, wait_until
from tui_chat.core.costs import cost_text
from tui_chat.core.models import Parameters
from tui_chat.core.store import Store
from tui_chat.core.summaries import SUMMARY_HEADING
from tui_chat.ui.screens.context_offer import ContextOverflowScreen
from tui_chat.ui.screens.model_picker import ModelPickerScreen
from tui_chat.ui.services import AppServices
from tui_chat.ui.widgets.conversation_list import ConversationList
from tui_chat.ui.widgets.message_view import OUT_OF_CONTEXT, MessageView
from tui_chat.ui.widgets.status_bar import status_text

LONG = "many words in this message " * 20


async def listed(app: Any, server: FakeProvider) -> None:
    """The fake's priced models listed, as the app does once at start."""
    server.models_list = PRICED_MODELS
    server.count_usage = True
    workspace = app.workspace
    await workspace.catalog.refresh(workspace.provider)


def status(app: Any) -> str:
    return status_text(conversation(app).status.info).plain


async def send(pilot: Pilot[Any], text: str) -> None:
    screen = conversation(pilot.app)
    screen.prompt.load_text(text)
    await pilot.press("enter")
    await wait_idle(pilot)


async def test_the_status_line_shows_the_window_the_cost_and_real_tokens(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/large")
    await listed(app, chutes_server)
    async with app.run_test(size=(160, 30)) as pilot:
        await send(pilot, "hello there")
        body = chutes_server.requests[-1].body
        info = conversation(app).status.info
        assert info.usage is not None and info.usage.prompt_tokens == counted_prompt(body)
        assert info.context.endswith(" / 131k ctx") and not info.context_warning
        assert info.tokens_per_second is not None and not info.speed_estimated
        cost = (info.usage.prompt_tokens * 0.25 + info.usage.completion_tokens * 1.0) / 1e6
        assert info.usage.cost_usd == cost
        assert f"{cost_text(cost)} · total {cost_text(cost)}" in status(app)
        await send(pilot, "and again")
        total, _ = conversation(app).workspace.conversation_cost()
        assert total is not None and total > cost
        assert f"· total {cost_text(total)}" in status(app) and status(app).count("USD") == 2


async def test_each_reply_header_shows_its_tokens_and_cost(
        make_app: AppFactory, chutes_server: FakeProvider, store: Store) -> None:
    """Every reply's header, not only the status line, says what it took and cost (issue
    25), and so does a reply of a conversation opened again."""
    app = make_app(model="fake/large")
    await listed(app, chutes_server)
    async with app.run_test(size=(160, 30)) as pilot:
        await send(pilot, "hello there")
        await send(pilot, "and again")
        screen = conversation(app)
        replies = [v for v in screen.query(MessageView) if v.message.role.value == "assistant"]
        assert len(replies) == 2
        for view in replies:
            usage = store.get_message(view.message.id).usage
            assert usage is not None and usage.cost_usd is not None
            header = rendered_text(view).splitlines()[0]
            assert (f"{usage.prompt_tokens:,} in · {usage.completion_tokens:,} out · "
                    f"{cost_text(usage.cost_usd)}") in header, header
        mine = [v for v in screen.query(MessageView) if v.message.role.value == "user"]
        assert " in · " not in rendered_text(mine[0]).splitlines()[0]


async def test_figures_of_the_last_reply_clear_when_the_model_or_conversation_changes(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/large")
    await listed(app, chutes_server)
    async with app.run_test(size=(160, 30)) as pilot:
        await send(pilot, "hello")
        screen = conversation(app)
        assert screen.status.info.tokens_per_second is not None
        screen.workspace.choose("chutes", "fake/small")
        screen.context_status.changed()
        info = screen.status.info
        assert info.tokens_per_second is None and info.usage is None
        assert info.context.endswith(" / 2.0k ctx") and "total" in info.cost
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: not screen.message_list.messages)
        assert screen.status.info.cost == "" and screen.status.info.context == ""


async def test_near_the_window_the_status_line_warns_and_the_message_goes(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/small")
    await listed(app, chutes_server)
    async with app.run_test(size=(160, 30)) as pilot:
        for _ in range(3):
            await send(pilot, LONG * 2)
        info = conversation(app).status.info
        assert info.context_warning and "%" in info.context
        assert "⚠" in status(app)


async def test_a_message_that_would_not_fit_is_offered_to_leave_the_oldest_turns_out(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/small")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        for turn in range(3):
            await send(pilot, f"turn {turn}: {LONG * 2}")
        posts = len([r for r in chutes_server.requests if r.method == "POST"])
        screen.prompt.load_text(LONG * 3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextOverflowScreen))
        offer = app.screen
        assert "window of fake/small" in offer.text and "Leave the oldest" in offer.text
        assert len([r for r in chutes_server.requests if r.method == "POST"]) == posts
        assert screen.prompt.text == LONG * 3  # not sent, not lost
        await pilot.press("l")
        await wait_until(pilot, lambda: app.screen is screen)
        await wait_idle(pilot)
        body = chutes_server.requests[-1].body
        keep_from = screen.workspace.session.conversation.context_from
        assert keep_from is not None
        views = list(screen.query(MessageView))
        out = [v for v in views if v.out_of_context]
        assert out and views.index(out[-1]) == len(out) - 1  # the oldest ones
        assert OUT_OF_CONTEXT in rendered_text(out[0])
        assert not any(OUT_OF_CONTEXT in rendered_text(v) for v in views[len(out):])
        sent = [m["content"] for m in body["messages"]]
        assert all(v.message.content not in sent for v in out)
        assert sent[-1] == LONG * 3


async def test_or_to_send_a_summary_of_the_oldest_turns_in_their_place(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/small")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        for turn in range(3):
            await send(pilot, f"turn {turn}: {LONG * 2}")
        screen.prompt.load_text(LONG * 3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextOverflowScreen))
        assert "send a summary of them" in app.screen.text
        chutes_server.script(Reply(stream_of(["The user sent three long turns."])))
        await pilot.press("s")
        await wait_until(pilot, lambda: chutes_server.requests[-1].body["messages"][-1]
                         .get("content") == LONG * 3)
        await wait_idle(pilot)
        asked, body = [r.body for r in chutes_server.requests if r.method == "POST"][-2:]
        assert [m["role"] for m in asked["messages"]] == ["user"]  # the summary's request
        assert body["messages"][0] == {
            "role": "system", "content": f"{SUMMARY_HEADING}\n\nThe user sent three long turns."}
        assert roles_problem(body) is None
        views = list(screen.query(MessageView))
        assert any(v.out_of_context for v in views)  # the turns stay, marked
        assert screen.workspace.summary() is not None


async def test_a_summary_that_still_does_not_fit_brings_the_offer_again(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/small")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        for turn in range(3):
            await send(pilot, f"turn {turn}: {LONG * 2}")
        screen.prompt.load_text(LONG * 3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextOverflowScreen))
        first = app.screen
        chutes_server.script(Reply(stream_of([LONG * 6])))  # longer than what it replaces
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextOverflowScreen)
                         and app.screen is not first)
        posts = [r.body for r in chutes_server.requests if r.method == "POST"]
        assert [m["role"] for m in posts[-1]["messages"]] == ["user"]  # only the summary's
        # Turns counted from the context's start: the summarised one is not offered again.
        assert "Leave the oldest 1 turn (2 messages)" in app.screen.text
        assert screen.prompt.text == LONG * 3  # not sent, not lost


async def test_or_to_pick_a_model_with_a_larger_window(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/small")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        await send(pilot, LONG)
        screen.prompt.load_text(LONG * 12)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextOverflowScreen))
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        await pilot.press(*"fake/large")
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is screen)
        await wait_idle(pilot)
        body = chutes_server.requests[-1].body
        assert body["model"] == "fake/large" and body["messages"][-1]["content"] == LONG * 12
        assert screen.workspace.session.conversation.context_from is None


async def test_max_tokens_is_clamped_so_that_the_provider_takes_the_request(
        make_app: AppFactory, chutes_server: FakeProvider, store: Store) -> None:
    app = make_app(model="fake/small")
    app.workspace.session.set_parameters(Parameters(max_tokens=2048))
    await listed(app, chutes_server)
    chutes_server.windows = {"fake/small": 2048}
    async with app.run_test(size=(120, 30)) as pilot:
        await send(pilot, "fits")
        body = chutes_server.requests[-1].body
        assert body["max_tokens"] < 2048 - counted_prompt(body)
        assert conversation(app).status.info.state == "ready"


async def test_a_reply_cut_at_max_tokens_is_marked(make_app: AppFactory,
                                                    chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["It was the best of times, it was"],
                                         finish_reason="length")))
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await send(pilot, "tell me a story")
        screen = conversation(app)
        reply = list(screen.query(MessageView))[-1]
        assert "cut at the max-tokens limit" in rendered_text(reply)
        assert "max-tokens limit" in screen.status.info.note


def test_refreshing_model_facts_at_start_is_the_commands_choice() -> None:
    from tui_chat.commands.app import build_services
    from tui_chat.commands.context import Context

    services = build_services(Context({}))
    try:
        assert services.list_models_at_start
    finally:
        services.workspace.store.close()
    defaults = {field.name: field.default for field in msgspec.structs.fields(AppServices)}
    assert defaults["list_models_at_start"] is False


async def test_a_conversation_opened_shows_its_context_after_its_messages(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """The figures are worked out once the messages are drawn (a long path takes a while to
    estimate): blank at first, not the last conversation's, then this one's."""
    app = make_app(model="fake/large")
    await listed(app, chutes_server)
    async with app.run_test(size=(160, 30)) as pilot:
        await send(pilot, "hello")
        screen = conversation(app)
        chat_id = screen.workspace.session.conversation.id
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: not screen.message_list.messages)
        await send(pilot, "another")
        assert screen.status.info.context.endswith(" / 131k ctx")
        screen.post_message(ConversationList.ConversationChosen(chat_id))
        await wait_until(pilot, lambda: screen.workspace.session.conversation.id == chat_id)
        await wait_until(pilot, lambda: screen.status.info.context.endswith(" / 131k ctx")
                         and "total" in screen.status.info.cost)


async def test_the_app_lists_the_models_once_when_it_never_did(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    chutes_server.models_list = PRICED_MODELS
    app = make_app(model="fake/large")
    app.services.list_models_at_start = True
    async with app.run_test(size=(160, 30)) as pilot:
        screen = conversation(app)
        await wait_until(pilot, lambda: any(r.path == "/v1/models"
                                            for r in chutes_server.requests))
        await send(pilot, "hi")
        await wait_until(pilot, lambda: screen.status.info.context.endswith("/ 131k ctx"))
    gets = [r for r in chutes_server.requests if r.path == "/v1/models"]
    assert len(gets) == 1


async def test_the_status_line_says_what_the_cache_saved_and_the_quota_left(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """Issue 27: cached prompt tokens at the `input_cache_read` price, the saving said; the
    quota headers' figure, dim, after the reply."""
    import copy

    from tests.fakeprovider import DONE, chunk, sse, usage_chunk

    models = copy.deepcopy(PRICED_MODELS)
    models["data"][1]["price"]["input_cache_read"] = {"usd": 0.05}
    app = make_app(model="fake/large")
    chutes_server.models_list = models
    await app.workspace.catalog.refresh(app.workspace.provider)
    usage = usage_chunk(10_000, 1_000, model="fake/large")
    usage["usage"]["prompt_tokens_details"] = {"cached_tokens": 8_000}
    chutes_server.script(Reply(
        [sse(chunk("hi", model="fake/large")),
         sse(chunk(model="fake/large", finish_reason="stop")), sse(usage), DONE],
        headers={"x-chutes-quota-total": "5000", "x-chutes-quota-used": "3766",
                 "x-chutes-quota-remaining": "1234"}))
    async with app.run_test(size=(200, 30)) as pilot:
        await send(pilot, "hello there")
        line = status_text(conversation(app).status.info)
        saved = 8_000 * (0.25 - 0.05) / 1e6
        assert f"(cache saved {cost_text(saved)})" in line.plain
        assert "│  quota 1,234 of 5,000 left" in line.plain
        assert conversation(app).status.info.quota == "quota 1,234 of 5,000 left"


async def test_a_summary_too_long_for_the_message_is_offered_to_be_left_out(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """Issue 25: with a long summary in force the offer said "Even without the earlier
    messages it would not fit" when the message alone fits, and offered only Cancel and Other
    model. It offers to leave the summary out too (no second summary of a summary)."""
    app = make_app(model="fake/small")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        await send(pilot, "my cat is Miso")
        chutes_server.script(Reply(stream_of(["Miso the cat. " * 1000])))
        await screen.workspace.summarise_before(screen.workspace.session.messages()[-1].id)
        screen.prompt.load_text("what food?")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextOverflowScreen))
        offer = app.screen
        assert "Even without" not in offer.text and "summary" in offer.text
        assert offer.query("#leave") and not offer.query("#summarise")
        await pilot.press("l")
        await wait_until(pilot, lambda: chutes_server.requests[-1].body["messages"][-1]
                         .get("content") == "what food?")
        await wait_idle(pilot)
        body = chutes_server.requests[-1].body
        assert [m["role"] for m in body["messages"]] == ["user"]
        assert screen.workspace.summary() is None
