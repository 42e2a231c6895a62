"""Pilot tests of branches in the app: the ‹ n/m › indicator, switching with ←/→, delete of a
subtree (asked first), fork, a search hit on another branch, continuing from a cut-off reply."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, rendered_text, wait_idle, wait_until
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.ui.screens.confirm import ConfirmScreen
from tui_chat.ui.widgets.message_view import MessageView


def texts(pilot: Pilot[Any]) -> list[str]:
    return [v.message.content for v in conversation(pilot.app).query(MessageView)]


def header(view: MessageView) -> str:
    return rendered_text(view).splitlines()[0]


def branched_chat(store: Store, below: int = 0) -> tuple[Conversation, list[Message]]:
    """q ─ a1 (‹ 1/2 ›, with `below` more messages under it) and its sibling a2 (‹ 2/2 ›,
    active)."""
    chat = store.create_conversation(Conversation(title="Branched"))
    q = store.add_message(Message(conversation_id=chat.id, role=Role.USER, content="q"))
    a1 = store.add_message(Message(conversation_id=chat.id, role=Role.ASSISTANT,
                                   content="first answer", provider="chutes", model="m1"))
    for index in range(below):
        store.add_message(Message(conversation_id=chat.id,
                                  role=Role.USER if index % 2 == 0 else Role.ASSISTANT,
                                  content=f"below {index}"))
    a2 = store.add_message(Message(conversation_id=chat.id, role=Role.ASSISTANT,
                                   content="second answer", provider="chutes", model="m2",
                                   parent_id=q.id))
    return chat, [q, a1, a2]


async def test_a_regenerated_reply_says_it_is_the_second_and_arrows_switch(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["first answer"])), Reply(stream_of(["second one"])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("q", "enter")
        await wait_idle(pilot)
        assert "‹" not in header(screen.query(MessageView)[1])  # one reply: no indicator
        await pilot.press("ctrl+r")
        await wait_idle(pilot)
        views = list(screen.query(MessageView))
        assert [v.message.content for v in views] == ["q", "second one"]
        assert "‹ 2/2 ›" in header(views[1])
        assert screen.status.info.note.startswith("alternative 2 of 2")
        prompt_view = views[0]
        await pilot.press("ctrl+o")  # the last message is selected
        assert screen.message_list.check_action("branch", (-1,)) is True
        await pilot.press("left")
        await wait_until(pilot, lambda: texts(pilot) == ["q", "first answer"])
        views = list(screen.query(MessageView))
        assert "‹ 1/2 ›" in header(views[1])
        assert views[0] is prompt_view  # only the part below the branch point was redrawn
        assert views[1].has_class("-selected")
        chat_id = screen.workspace.session.conversation.id
        assert [m.content for m in store.get_messages(chat_id)] == ["q", "first answer"]
        await pilot.press("right")
        await wait_until(pilot, lambda: texts(pilot) == ["q", "second one"])
        await pilot.press("up")  # the prompt has no alternatives: no branch keys
        assert screen.message_list.check_action("branch", (1,)) is False


async def test_r_in_message_mode_leaves_the_new_reply_selected_for_the_arrows(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """r writes the selected reply again; the new one is selected once it is written, so ←
    goes straight back to the old one (it was: nothing selected, ↑/↓ first)."""
    chutes_server.script(Reply(stream_of(["first answer"])), Reply(stream_of(["second one"])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("q", "enter")
        await wait_idle(pilot)
        await pilot.press("ctrl+o")  # the reply is selected
        await wait_until(pilot, lambda: screen.message_list.selected == 1)
        await pilot.press("r")
        await wait_until(pilot, lambda: texts(pilot) == ["q", "second one"])
        await wait_idle(pilot)
        reply = screen.query(MessageView)[1]
        assert screen.message_list.has_focus and screen.message_list.selected == 1
        assert reply.has_class("-selected")
        await pilot.press("left")
        await wait_until(pilot, lambda: texts(pilot) == ["q", "first answer"])


async def test_the_branch_keys_are_in_the_footer_only_where_they_apply(
        make_app: AppFactory, store: Store) -> None:
    chat, _ = branched_chat(store)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(160, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("ctrl+o")
        await pilot.pause()

        def footer_actions() -> set[str]:
            return {binding.action for _, binding, enabled, _ in
                    screen.active_bindings.values() if binding.show and enabled}

        assert "branch(-1)" in footer_actions()
        await pilot.press("up")
        await pilot.pause()
        assert "branch(-1)" not in footer_actions()


async def test_edit_and_resend_keeps_the_original_as_a_branch(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        for text in ("one", "two"):
            await pilot.press(*text, "enter")
            await wait_idle(pilot)
        await pilot.press("ctrl+o", "up", "up", "up", "e")
        await pilot.press("backspace", "backspace", "backspace", *"uno", "enter")
        await wait_idle(pilot)
        views = list(screen.query(MessageView))
        assert [v.message.content for v in views] == ["uno", "Hello! You said: uno"]
        assert "‹ 2/2 ›" in header(views[0])
        await pilot.press("ctrl+o", "up", "left")
        await wait_until(pilot, lambda: texts(pilot)[0] == "one")
        assert texts(pilot) == ["one", "Hello! You said: one", "two", "Hello! You said: two"]
        assert "‹ 1/2 ›" in header(screen.query(MessageView)[0])


async def test_switching_deep_in_a_long_path_shows_the_other_branch_below(
        make_app: AppFactory, store: Store) -> None:
    chat, (_, a1, a2) = branched_chat(store, below=60)
    store.activate(a1.id)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        messages = screen.message_list
        await wait_until(pilot, lambda: not messages.reading)  # read newest first, then all
        assert len(messages.messages) == 62
        await messages.reveal(a1.id)
        messages.focus()
        await pilot.pause()
        assert messages.selected == 1
        await pilot.press("right")
        await wait_until(pilot, lambda: len(messages.messages) == 2)
        assert [m.id for m in messages.messages][-1] == a2.id
        assert messages.selected == 1
        await pilot.press("left")
        await wait_until(pilot, lambda: len(messages.messages) == 62)
        assert messages.messages[-1].content == "below 59"
        assert messages.selected == 1 and messages.messages[1].id == a1.id


async def test_delete_asks_then_removes_the_message_and_what_is_below_it(
        make_app: AppFactory, store: Store) -> None:
    chat, (_, _, a2) = branched_chat(store, below=2)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("ctrl+o", "d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")  # no: nothing changes
        await wait_until(pilot, lambda: app.screen is screen)
        assert store.count_messages(chat.id) == 5
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: texts(pilot) == ["q", "first answer", "below 0",
                                                         "below 1"])
        assert store.count_messages(chat.id) == 4
        assert "‹" not in header(screen.query(MessageView)[1])  # the only reply now
        assert screen.message_list.selected == 1  # now on "first answer"
        await pilot.press("d")  # it, and what is below it
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: texts(pilot) == ["q"])
    assert [m.content for m in store.get_messages(chat.id)] == ["q"]
    assert a2.id not in {m.id for m in store.get_tree(chat.id).messages}


async def test_fork_continues_in_a_new_conversation(make_app: AppFactory, store: Store,
                                                    chutes_server: FakeProvider) -> None:
    chat, (_, _, a2) = branched_chat(store, below=2)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("ctrl+o", "f")
        await wait_until(pilot, lambda: screen.workspace.session.conversation.id != chat.id)
        assert texts(pilot) == ["q", "second answer"]
        fork = screen.workspace.session.conversation
        assert fork.forked_from == chat.id and fork.forked_from_message == a2.id
        assert "(fork)" in rendered_text(screen.query_one("#title-bar"))
        await pilot.press("n", "e", "x", "t", "enter")
        await wait_idle(pilot)
    assert [m.content for m in store.get_messages(fork.id)][-1] == "Hello! You said: next"
    assert store.count_messages(chat.id) == 5  # the original is as it was


async def test_a_search_hit_on_another_branch_opens_that_branch(make_app: AppFactory,
                                                                 store: Store) -> None:
    from tui_chat.ui.widgets.conversation_list import ConversationList

    chat, (_, a1, _) = branched_chat(store, below=2)  # a2 is active
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        screen.post_message(ConversationList.ConversationChosen(chat.id, a1.id))
        await wait_until(pilot, lambda: texts(pilot) == ["q", "first answer", "below 0",
                                                         "below 1"])
        assert screen.message_list.selected == 1
    assert store.get_messages(chat.id)[1].id == a1.id


async def test_continuing_from_a_cut_off_reply_is_chosen_on_purpose(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["half ", "of it", "x"]), drop_after=3),
                         Reply(stream_of(["fine"])), Reply(stream_of(["again"])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("q", "enter")
        await wait_idle(pilot)
        cut = screen.message_list.messages[-1]
        assert cut.status is MessageStatus.INTERRUPTED and cut.content == "half of it"
        assert "p continues" in screen.status.info.note
        await pilot.press("ctrl+o")
        assert screen.message_list.check_action("continue_partial", ()) is True
        await pilot.press("p")
        assert app.focused is screen.prompt and screen.branches.continue_partial
        await pilot.press(*"go on", "enter")
        await wait_idle(pilot)
        body = chutes_server.requests[-1].body
        assert [m["content"] for m in body["messages"]] == ["q", "half of it", "go on"]
        assert not screen.branches.continue_partial  # once
        await pilot.press("ctrl+o", "up", "up")
        assert screen.message_list.check_action("continue_partial", ()) is False


async def test_without_the_choice_a_cut_off_reply_is_not_context(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["half ", "of it", "x"]), drop_after=3),
                         Reply(stream_of(["fine"])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("q", "enter")
        await wait_idle(pilot)
        await pilot.press("ctrl+o", "p", "escape")  # chosen, then cancelled
        assert not screen.branches.continue_partial
        await pilot.press(*"go on", "enter")
        await wait_idle(pilot)
        body = chutes_server.requests[-1].body
        # Not context: the cut-off turn is left out whole, so that the roles alternate.
        assert [m["content"] for m in body["messages"]] == ["go on"]


async def test_g_continues_the_selected_reply_as_a_new_branch(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    """g in message mode: the selected reply goes on where it ended, as its ‹ 2/2 ›
    sibling; the original stays one ← away."""
    chutes_server.script(Reply(stream_of(["Once upon a time"])),
                         Reply(stream_of([", there was a cat."])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press(*"story", "enter")
        await wait_idle(pilot)
        await pilot.press("ctrl+o")  # the last message, the reply, is selected
        await pilot.press("g")
        await wait_until(pilot, lambda: texts(pilot)[-1:] ==
                         ["Once upon a time, there was a cat."])
        await wait_idle(pilot)
        views = list(screen.query(MessageView))
        assert "‹ 2/2 ›" in header(views[-1])
        assert chutes_server.requests[-1].body["continue_final_message"] is True
        await pilot.press("ctrl+o", "left")
        await wait_until(pilot, lambda: texts(pilot) == ["story", "Once upon a time"])
