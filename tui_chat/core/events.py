"""Typed events the streaming client yields, one per meaningful piece of a chunk."""

from __future__ import annotations

from msgspec import Struct

from tui_chat.core.models import Usage


class ContentDelta(Struct):
    text: str


class ReasoningDelta(Struct):
    text: str


class ToolCallDelta(Struct):
    index: int
    id: str | None
    name: str | None
    arguments: str | None


class FinishReason(Struct):
    reason: str


class UsageReported(Struct):
    usage: Usage | None
    """None: the provider's usage object did not parse (`note` says so); the reply stands."""
    note: str | None = None


class StreamDone(Struct):
    """The stream completed: `[DONE]` arrived, or the body ended after a finish_reason.
    `whole`: the provider answered with the whole reply at once (a JSON body), not a stream."""

    whole: bool = False


class RetryScheduled(Struct):
    """Before the first token a request failed and will be tried again after `delay` seconds."""

    attempt: int
    delay: float
    reason: str


class SentAs(Struct):
    """How the request went and the reply comes, before its first token: `protection` is
    "end-to-end" when both are encrypted to the model's instance (tui_chat.core.e2ee)."""

    protection: str


class ModelChosen(Struct):
    """The model that answers, when the provider chose it from a routing pool (Chutes'
    `model="a,b,c"`, `:latency`, `:throughput`; its `x-chutes-chosen-model` header)."""

    model: str


StreamEvent = (
    ContentDelta
    | ReasoningDelta
    | ToolCallDelta
    | FinishReason
    | UsageReported
    | StreamDone
    | RetryScheduled
    | SentAs
    | ModelChosen
)
