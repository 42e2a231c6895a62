"""Typed events the streaming client yields, one per meaningful piece of a chunk."""

from __future__ import annotations

from dataclasses import dataclass

from tui_chat.core.models import Usage


@dataclass(slots=True)
class ContentDelta:
    text: str


@dataclass(slots=True)
class ReasoningDelta:
    text: str


@dataclass(slots=True)
class ToolCallDelta:
    index: int
    id: str | None
    name: str | None
    arguments: str | None


@dataclass(slots=True)
class FinishReason:
    reason: str


@dataclass(slots=True)
class UsageReported:
    usage: Usage


@dataclass(slots=True)
class StreamDone:
    """The stream completed: `[DONE]` arrived, or the body ended after a finish_reason."""


@dataclass(slots=True)
class RetryScheduled:
    """Before the first token a request failed and will be tried again after `delay` seconds."""

    attempt: int
    delay: float
    reason: str


StreamEvent = (
    ContentDelta
    | ReasoningDelta
    | ToolCallDelta
    | FinishReason
    | UsageReported
    | StreamDone
    | RetryScheduled
)
