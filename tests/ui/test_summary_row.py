"""Issue 25: the summary sent in place of the oldest turns is shown in the message list, folded,
right after the last message it covers; Enter unfolds it (drawn literally: it is model
output), `e` edits it (Enter saves, through Workspace.edit_summary) and the next request
sends the edited text; it survives a reopen and goes when it is no longer in force."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import (
    AppFactory,
    conversation,
    footer_label,
    rendered_text,
    wait_idle,
    wait_until,
)
from tests.ui.test_context_cost import LONG, listed, send
from tui_chat.core.summaries import SUMMARY_HEADING
from tui_chat.ui.screens.context_offer import ContextOverflowScreen
from tui_chat.ui.screens.conversation import ConversationScreen
from tui_chat.ui.widgets.conversation_list import ConversationList
from tui_chat.ui.widgets.message_view import MessageView
from tui_chat.ui.widgets.summary_row import SummaryRow, SummaryText

SUMMARY = "The user sent [b]three[/b] long turns about `words`."
"""Model output with what would be markup: shown as written."""


async def summarised(pilot: Pilot[Any], server: FakeProvider) -> ConversationScreen:
    """Three long turns on the small-window model, then a fourth that does not fit, sent
    with a summary of the oldest turns in their place (the overflow offer's `s`)."""
    app = pilot.app
    screen = conversation(app)
    for turn in range(3):
        await send(pilot, f"turn {turn}: {LONG * 2}")
    screen.prompt.load_text(LONG * 3)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, ContextOverflowScreen))
    server.script(Reply(stream_of([SUMMARY])))
    await pilot.press("s")
    await wait_until(pilot, lambda: server.requests[-1].body["messages"][-1]
                     .get("content") == LONG * 3)
    await wait_idle(pilot)
    return screen


def the_row(screen: ConversationScreen) -> SummaryRow:
    rows = list(screen.query(SummaryRow))
    assert len(rows) == 1, rows
    return rows[0]


def placed_after_its_parent(screen: ConversationScreen) -> bool:
    summary = screen.workspace.summary()
    children = list(screen.message_list.children)
    rows = [i for i, child in enumerate(children) if isinstance(child, SummaryRow)]
    if summary is None or len(rows) != 1:
        return False
    before = children[rows[0] - 1]
    return isinstance(before, MessageView) and before.message.id == summary.parent_id


async def onto_the_row(pilot: Pilot[Any], screen: ConversationScreen) -> None:
    """Message mode (the last message chosen), then ↓ (a row after every message is
    below it) and ↑ until the summary row is chosen (it lies between messages)."""
    await pilot.press("ctrl+o", "down")
    for _ in range(len(screen.message_list.messages)):
        if screen.message_list.summary_place.chosen:
            break
        await pilot.press("up")
    assert screen.message_list.summary_place.chosen
    assert screen.message_list.selected is None  # no message is chosen with it


async def test_a_summary_made_shows_folded_after_the_last_message_it_covers(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/small")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await summarised(pilot, chutes_server)
        await wait_until(pilot, lambda: placed_after_its_parent(screen))
        row = the_row(screen)
        summary = screen.workspace.summary()
        assert summary is not None
        covered = [m.id for m in screen.message_list.messages].index(summary.parent_id) + 1
        text = rendered_text(row)
        assert f"▶ Summary of {covered} earlier messages, sent in their place" in text
        assert "Enter shows it · e edits" in text
        assert "three" not in text  # folded: the summary's text is not shown


async def test_enter_unfolds_the_summary_drawn_literally_and_folds_it_again(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/small")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await summarised(pilot, chutes_server)
        await onto_the_row(pilot, screen)
        row = the_row(screen)
        assert row.has_class("-selected")
        assert not any(v.has_class("-selected") for v in screen.query(MessageView))
        await pilot.press("enter")
        await wait_until(pilot, lambda: row.unfolded)
        await pilot.pause()
        text = rendered_text(row)
        assert "▼ Summary of" in text and "[b]three[/b]" in text  # not markup
        await pilot.press("t")
        await wait_until(pilot, lambda: not row.unfolded)
        await pilot.press("down")  # off the row, onto the first message sent
        summary = screen.workspace.summary()
        assert summary is not None
        chosen = screen.message_list.selected_message()
        assert chosen is not None and chosen.parent_id == summary.parent_id
        assert not screen.message_list.summary_place.chosen


async def summarised_directly(pilot: Pilot[Any], server: FakeProvider) -> ConversationScreen:
    """One short turn, summarised through the core (as the offer's `s` does), on a model
    whose window takes the next message too."""
    screen = conversation(pilot.app)
    await send(pilot, "my cat is Miso")
    server.script(Reply(stream_of([SUMMARY])))
    await screen.workspace.summarise_before(screen.workspace.session.messages()[-1].id)
    screen.context_status.refresh()
    await wait_until(pilot, lambda: placed_after_its_parent(screen))
    return screen


async def test_e_edits_the_summary_enter_saves_it_and_the_next_request_sends_it(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/large")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await summarised_directly(pilot, chutes_server)
        await onto_the_row(pilot, screen)
        await pilot.press("e")
        await wait_until(pilot, lambda: screen.prompt.text == SUMMARY)
        assert screen.controller.editing_summary
        assert "editing summary: Enter saves" in screen.status.info.note
        posts = len([r for r in chutes_server.requests if r.method == "POST"])
        screen.prompt.load_text("The user's cat is called Miso.")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not screen.controller.editing_summary)
        summary = screen.workspace.summary()
        assert summary is not None and summary.content == "The user's cat is called Miso."
        assert len([r for r in chutes_server.requests if r.method == "POST"]) == posts
        assert screen.prompt.text == ""
        row = the_row(screen)
        await wait_until(pilot, lambda: row.summary.content == summary.content)
        await send(pilot, "what is my cat called?")
        body = chutes_server.requests[-1].body
        assert body["messages"] == [
            {"role": "system", "content": f"{SUMMARY_HEADING}\n\nThe user's cat is called Miso."},
            {"role": "user", "content": "what is my cat called?"}]


async def test_esc_cancels_an_edit_of_the_summary(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/small")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await summarised(pilot, chutes_server)
        await onto_the_row(pilot, screen)
        await pilot.press("e")
        await wait_until(pilot, lambda: screen.controller.editing_summary)
        screen.prompt.load_text("something else")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not screen.controller.editing_summary)
        summary = screen.workspace.summary()
        assert summary is not None and summary.content == SUMMARY
        assert screen.prompt.text == ""


async def test_the_summary_row_survives_a_reopen(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/small")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await summarised(pilot, chutes_server)
        chat_id = screen.workspace.session.conversation.id
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: not screen.message_list.messages)
        assert not screen.query(SummaryRow)
        screen.post_message(ConversationList.ConversationChosen(chat_id))
        await wait_until(pilot, lambda: screen.workspace.session.conversation.id == chat_id)
        await wait_until(pilot, lambda: placed_after_its_parent(screen))
    again = make_app(model="fake/small", conversation=chat_id)  # the app started on it
    async with again.run_test(size=(120, 40)) as pilot:
        screen = conversation(again)
        await wait_until(pilot, lambda: placed_after_its_parent(screen))
        assert "Summary of" in rendered_text(the_row(screen))


async def test_the_row_goes_when_the_summary_is_left_out(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """A summary of every turn that leaves no room: the offer leaves it out (see
    test_context_cost), and the row goes with it."""
    app = make_app(model="fake/small")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        await send(pilot, "my cat is Miso")
        chutes_server.script(Reply(stream_of(["Miso the cat. " * 1000])))
        await screen.workspace.summarise_before(screen.workspace.session.messages()[-1].id)
        screen.context_status.refresh()
        await wait_until(pilot, lambda: placed_after_its_parent(screen))
        assert list(screen.message_list.children)[-1] is the_row(screen)  # after every turn
        screen.prompt.load_text("what food?")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextOverflowScreen))
        await pilot.press("l")
        await wait_until(pilot, lambda: chutes_server.requests[-1].body["messages"][-1]
                         .get("content") == "what food?")
        await wait_idle(pilot)
        assert screen.workspace.summary() is None
        await wait_until(pilot, lambda: not screen.query(SummaryRow))


def test_the_unfolded_text_starts_on_its_first_row_even_with_a_list() -> None:
    """Rich puts a blank row before a leading list; the row has its own blank row after the
    heading, so the text's own leading blank rows are dropped."""
    console = Console(width=60, record=True, color_system=None)
    console.print(SummaryText("- The user sent **three** turns.\n- [b]x[/b]", "monokai", None))
    lines = console.export_text().splitlines()
    assert lines[0].strip() == "• The user sent three turns."
    assert lines[1].strip() == "• [b]x[/b]"  # as written: not markup


async def test_the_row_goes_with_another_branch_and_comes_back_with_the_summarised_one(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """The summary covers the reply; a new reply in its place (Ctrl+R) puts it off the path,
    so the summary is not in force there (context_start ignores it); ← brings it back."""
    app = make_app(model="fake/large")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await summarised_directly(pilot, chutes_server)
        summarised_reply = screen.message_list.messages[-1]
        await pilot.press("ctrl+r")
        await wait_idle(pilot)
        assert screen.message_list.messages[-1].id != summarised_reply.id
        await wait_until(pilot, lambda: not screen.query(SummaryRow))
        assert screen.workspace.summary() is None
        await pilot.press("ctrl+o", "left")  # the last message chosen: back to the first reply
        await wait_until(pilot, lambda: screen.message_list.messages[-1].id
                         == summarised_reply.id)
        await wait_until(pilot, lambda: placed_after_its_parent(screen))


async def test_on_the_row_e_is_offered_as_edit_summary_and_on_a_message_as_edit_resend(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """The footer names what `e` does where the user is: a summary is saved, not resent."""
    app = make_app(model="fake/large")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await summarised_directly(pilot, chutes_server)
        await onto_the_row(pilot, screen)
        assert footer_label(screen, "e") == "Edit summary"
        await pilot.press("up")  # off the row, onto the last message it covers
        await wait_until(pilot, lambda: not screen.message_list.summary_place.chosen)
        assert footer_label(screen, "e") == "Edit & resend"
