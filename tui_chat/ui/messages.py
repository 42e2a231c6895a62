"""Messages that cross screens, named for what happened."""

from __future__ import annotations

from textual.message import Message


class ConversationChanged(Message):
    """A conversation was created, renamed, or got new messages; lists should refresh."""

    def __init__(self, conversation_id: str) -> None:
        super().__init__()
        self.conversation_id = conversation_id


class ReplyStateChanged(Message):
    """A reply started (streaming=True) or ended (streaming=False) in the conversation screen."""

    def __init__(self, streaming: bool) -> None:
        super().__init__()
        self.streaming = streaming
