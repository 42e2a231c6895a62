"""Folds a reply's stream events into its stored message; joins text only when flushing."""

from __future__ import annotations

from collections.abc import Callable
from typing import assert_never

from tui_chat.core.events import (
    ContentDelta,
    FinishReason,
    ModelChosen,
    ReasoningDelta,
    RetryScheduled,
    SentAs,
    StreamDone,
    StreamEvent,
    ToolCallDelta,
    UsageReported,
)
from tui_chat.core.models import Message, MessageStatus
from tui_chat.core.protection import END_TO_END, with_end_to_end
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
        if message.content:  # a reply that continues another starts with its text
            self._content.append(message.content)
        self._reasoning = GrowingText()
        self._deltas = 0
        self._applied = 0  # events folded in; `_saved_at`: how many of them the store has
        self._saved_at = 0
        self._started = clock()
        self._first_token: float | None = None
        self._last_flush = self._started
        self._tool_calls = ToolCalls()
        self._usage_note: str | None = None

    def apply(self, event: StreamEvent) -> None:
        self._applied += 1
        # Exhaustive: a new kind of stream event is a type error here until it is handled.
        match event:
            case ContentDelta() | ReasoningDelta():
                (self._content if isinstance(event, ContentDelta) else self._reasoning).append(
                    event.text)
                self._deltas += 1
                if self._first_token is None:
                    self._first_token = self._clock()
                    self.message.time_to_first_token = self._first_token - self._started
            case FinishReason():
                self.message.finish_reason = event.reason
            case UsageReported():
                if event.usage is not None:
                    self.message.usage = event.usage
                self._usage_note = event.note
            case ToolCallDelta():
                self._tool_calls.add(event)
            case ModelChosen():
                self.message.model = event.model  # the pool's choice: the one that answered
            case SentAs():
                if event.protection == END_TO_END:
                    self.message.sent_as = with_end_to_end(self.message.sent_as)
            case StreamDone():
                if event.whole:  # sent at once (a JSON body), not streamed
                    self.message.streamed = False
            case RetryScheduled():
                pass  # a retry comes before any of the reply
            case _:
                assert_never(event)

    @property
    def received(self) -> bool:
        """Whether any text (answer or reasoning) arrived."""
        return self._deltas > 0

    def since_flush(self) -> float:
        return self._clock() - self._last_flush

    def flushed(self) -> None:
        self._last_flush = self._clock()
        self._saved_at = self._applied

    def unsaved(self) -> bool:
        """Whether events arrived since the last save."""
        return self._applied != self._saved_at

    def snapshot(self) -> Message:
        self.message.content = self._content.text
        self.message.reasoning = self._reasoning.text
        return self.message.model_copy()

    def finish(self) -> ReplyFold:
        self._measure()
        self.message.status = MessageStatus.COMPLETE
        if self._tool_calls:  # kept as data; none is run (tool_calls.tool_call_lines)
            self.message.tool_calls = self._tool_calls.calls()
        if self._usage_note:  # usage is advisory: the reply is complete, and notes it
            self.message.note = self._usage_note
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
        if self._first_token is None or not self.message.streamed:
            return  # a reply that came whole has no speed to measure
        usage = self.message.usage
        # The provider's count when it gave one; else an estimate from the text (chunks are
        # no measure: one may hold a word or a paragraph).
        tokens = (usage.completion_tokens if usage and usage.completion_tokens
                  else estimate_tokens(self._content.text) + estimate_tokens(self._reasoning.text))
        elapsed = self._clock() - self._first_token
        if elapsed > 0 and tokens > 0:
            self.message.tokens_per_second = tokens / elapsed
