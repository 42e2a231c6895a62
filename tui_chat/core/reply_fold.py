"""Folds a reply's stream events into its stored message; joins text only when flushing."""

from __future__ import annotations

from collections.abc import Callable

from tui_chat.core.events import (
    ContentDelta,
    FinishReason,
    ReasoningDelta,
    StreamEvent,
    ToolCallDelta,
    UsageReported,
)
from tui_chat.core.models import Message, MessageStatus
from tui_chat.core.text import GrowingText
from tui_chat.core.tokens import estimate_tokens
from tui_chat.core.tool_calls import ToolCalls

Clock = Callable[[], float]


class ReplyFold:
    """Folds stream events into the assistant message; joins text only when flushing."""

    def __init__(self, message: Message, clock: Clock) -> None:
        self.message = message
        self._clock = clock
        self._content = GrowingText()
        self._reasoning = GrowingText()
        self._deltas = 0
        self._started = clock()
        self._first_token: float | None = None
        self._last_flush = self._started
        self._tool_calls = ToolCalls()
        self._usage_note: str | None = None

    def apply(self, event: StreamEvent) -> None:
        if isinstance(event, ContentDelta | ReasoningDelta):
            (self._content if isinstance(event, ContentDelta) else self._reasoning).append(
                event.text)
            self._deltas += 1
            if self._first_token is None:
                self._first_token = self._clock()
                self.message.time_to_first_token = self._first_token - self._started
        elif isinstance(event, FinishReason):
            self.message.finish_reason = event.reason
        elif isinstance(event, UsageReported):
            if event.usage is not None:
                self.message.usage = event.usage
            self._usage_note = event.note
        elif isinstance(event, ToolCallDelta):
            self._tool_calls.add(event)

    @property
    def received(self) -> bool:
        """Whether any text (answer or reasoning) arrived."""
        return self._deltas > 0

    def since_flush(self) -> float:
        return self._clock() - self._last_flush

    def flushed(self) -> None:
        self._last_flush = self._clock()

    def snapshot(self) -> Message:
        self.message.content = self._content.text
        self.message.reasoning = self._reasoning.text
        return self.message.model_copy()

    def finish(self) -> ReplyFold:
        self._measure()
        self.message.status = MessageStatus.COMPLETE
        if self._tool_calls:  # none is run: the reply says so, with the calls
            self.message.error = self._tool_calls.note()
        elif self._usage_note:  # usage is advisory: the reply is complete, and says so
            self.message.error = self._usage_note
        return self

    def fail(self, sentence: str) -> ReplyFold:
        return self.stop(sentence,
                         MessageStatus.INTERRUPTED if self.received else MessageStatus.ERROR)

    def stop(self, sentence: str, status: MessageStatus) -> ReplyFold:
        self._measure()
        self.message.status = status
        self.message.error = sentence
        return self

    def _measure(self) -> None:
        if self._first_token is None:
            return
        usage = self.message.usage
        # The provider's count when it gave one; else an estimate from the text (chunks are
        # no measure: one may hold a word or a paragraph).
        tokens = (usage.completion_tokens if usage and usage.completion_tokens
                  else estimate_tokens(self._content.text) + estimate_tokens(self._reasoning.text))
        elapsed = self._clock() - self._first_token
        if elapsed > 0 and tokens > 0:
            self.message.tokens_per_second = tokens / elapsed
