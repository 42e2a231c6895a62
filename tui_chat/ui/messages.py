"""Messages that cross screens, named for what happened."""

from __future__ import annotations

from textual.message import Message


class ConversationChanged(Message):
    """A conversation was created, renamed, or got new messages; lists should refresh."""

    def __init__(self, conversation_id: str) -> None:
        super().__init__()
        self.conversation_id = conversation_id


class ConversationShown(Message):
    """Another conversation (or a new one) is on screen: the prompt's draft follows it."""
