"""t/Enter on a message is named by what it does now: Unfold while its thinking, tool calls
or result are folded, Fold once they are unfolded (a static "Unfold" on an unfolded row
told the user the opposite of what the key would do)."""

from __future__ import annotations

from tests.ui.conftest import AppFactory, conversation, footer_label, wait_until
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.ui.widgets.message_view import MessageView


def seed_thinking_reply(store: Store) -> Conversation:
    chat = store.create_conversation(Conversation(title="Thought"))
    question = store.add_message(Message(conversation_id=chat.id, role=Role.USER,
                                         content="Why is the sky blue?"))
    store.add_message(Message(conversation_id=chat.id, parent_id=question.id,
                              role=Role.ASSISTANT, provider="chutes", model="m",
                              reasoning="Rayleigh scattering, shorter wavelengths…",
                              content="Blue light scatters more."))
    return chat


async def test_t_is_offered_as_unfold_then_as_fold_and_back(make_app: AppFactory,
                                                            store: Store) -> None:
    chat = seed_thinking_reply(store)
    app = make_app(conversation=chat.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("ctrl+o")  # the last message chosen
        await wait_until(pilot, lambda: screen.message_list.selected == 1)
        reply = screen.query(MessageView)[-1]
        assert footer_label(screen, "t") == "Unfold"
        assert footer_label(screen, "enter") == "Unfold"
        await pilot.press("t")
        await wait_until(pilot, lambda: reply.show_reasoning)
        assert footer_label(screen, "t") == "Fold"
        assert footer_label(screen, "enter") == "Fold"
        await pilot.press("enter")  # Fold: the same keys fold it again
        await wait_until(pilot, lambda: not reply.show_reasoning)
        assert footer_label(screen, "t") == "Unfold"
        await pilot.press("t")
        await wait_until(pilot, lambda: reply.show_reasoning)
        await pilot.press("up")  # onto the question: nothing unfolded there
        await wait_until(pilot, lambda: screen.message_list.selected == 0)
        assert footer_label(screen, "t") == "Unfold"
