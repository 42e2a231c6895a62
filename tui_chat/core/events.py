"""Typed events the streaming client yields, one per meaningful piece of a chunk."""

from __future__ import annotations

from dataclasses import dataclass

from tui_chat.core.models import Usage


@dataclass(frozen=True, slots=True)
class ContentDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    index: int
    id: str | None
    name: str | None
    arguments: str | None


@dataclass(frozen=True, slots=True)
class FinishReason:
    reason: str


@dataclass(frozen=True, slots=True)
class UsageReported:
    usage: Usage


@dataclass(frozen=True, slots=True)
class StreamDone:
    """The stream completed: `[DONE]` arrived, or the body ended after a finish_reason."""


@dataclass(frozen=True, slots=True)
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
