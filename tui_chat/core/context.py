"""How full the model's window is, and what the next request may hold.

The context is what the next request sends: the system prompt, then the active path from the
conversation's `context_from` message on (the oldest turns the user chose to leave out are
not sent), without replies still streaming, empty or failed ones, then the new prompt. Its size
(`measure`) is anchored on what the provider counted: the `prompt_tokens` of the last reply on
the path that reported usage (same model), plus that reply itself (`completion_tokens` when it
has no reasoning, which is not sent back), plus an estimate for every message since and the
new prompt. Without such a reply everything is estimated. Estimates are calibrated on the
provider's counts (`calibration`).

Before a request (`plan`):
- the window unknown: nothing is decided, `max_tokens` goes as set;
- from 80 % of the window on, the request goes, with a warning;
- a request that leaves less than MIN_REPLY tokens for the reply (a fifth of the window, for
  a window under five times that, so that a small window warns from 80 % full as any other
  does; after a safety margin for what is estimated) does not go as it is: `keep_from` names
  the first message to keep so that it would fit, leaving the oldest turns out (None when
  even the prompt alone would not);
- `max_tokens`, when set, is lowered so that prompt and reply fit (providers refuse a request
  whose `max_tokens` does not fit beside the prompt: Chutes even one equal to the window).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from msgspec import Struct

from tui_chat.core.calibration import MESSAGE_OVERHEAD, REQUEST_OVERHEAD, Calibration
from tui_chat.core.errors import Hint, UsageError
from tui_chat.core.models import Message, MessageStatus, Role
from tui_chat.core.tokens import script_counts
from tui_chat.core.tool_calls import tool_call_lines

NEAR_FULL = 0.8
"""From this share of the window on, the status line warns."""
MIN_REPLY = 256
"""Tokens a reply needs at least for a request to be worth sending."""
SAFETY_TOKENS = 64
SAFETY_SHARE = 0.05
"""The margin kept free: SAFETY_TOKENS, plus this share of what is estimated (not counted)."""

State = Literal["fits", "near", "over"]


def in_context(path: Sequence[Message], context_from: str | None = None) -> list[Message]:
    """The messages of `path` that are sent as context, from `context_from` on (when it is on
    the path), in turns that alternate: user, assistant, user… (strict chat templates refuse
    anything else with a 400).

    Left out: replies still streaming, empty ones and failed ones; a prompt whose reply is left
    out, when another prompt follows it (the failed turn is left out whole: retrying it, or
    sending it again, is how the model reads it); a reply whose prompt is left out (the first
    message kept when `context_from` names a reply). A reply that only called tools (none is
    run) is kept: it is sent as its note (`sent_text`). A prompt at the end is kept even
    without a reply: it is the one being answered. Tool calls and results stay
    (`tool_turns.valid_turns` makes them valid); a reply may follow a tool result."""
    ids = [m.id for m in path]
    start = ids.index(context_from) if context_from in ids else 0
    sent: list[Message] = []
    for message in path[start:]:
        if message.role is Role.TOOL:  # a call's result, or a call stopped: core.tool_turns
            sent.append(message)
            continue
        if message.role == Role.ASSISTANT and (
                message.status == MessageStatus.STREAMING or message.failed
                or not (sent_text(message) or message.tool_calls) or not sent
                or sent[-1].role not in (Role.USER, Role.TOOL)):
            continue
        if message.role == Role.USER and not message.content:
            continue
        if message.role == Role.USER and sent and sent[-1].role == Role.USER:
            sent.pop()  # its reply is left out: so is the turn
        sent.append(message)
    return sent


def sent_text(message: Message) -> str:
    """The text a message is sent with: its content; for a reply that only called tools (none
    was run), the note that says so, so that the turn is not empty."""
    if message.content or message.role != Role.ASSISTANT:
        return message.content
    calls = tool_call_lines(message)
    return "\n".join([calls[0], *calls[1]]) if calls is not None else ""


class ContextUse(Struct, frozen=True):
    """The size of the next request: `counted` tokens from the provider's own figures and
    `estimated` tokens for the rest; `window` the model's, when known."""

    counted: int
    estimated: float
    window: int | None

    @property
    def tokens(self) -> int:
        return self.counted + math.ceil(self.estimated)

    @property
    def fraction(self) -> float | None:
        return self.tokens / self.window if self.window else None


class ContextPlan(Struct, frozen=True):
    """What `plan` decided for the next request."""

    use: ContextUse
    state: State
    max_tokens: int | None
    """The `max_tokens` to send (lowered when it would not fit), None: not set."""
    clamped: bool = False
    keep_from: str | None = None
    """When "over": the first message to keep for the request to fit; None: none does."""
    left_out: int = 0
    """When "over": how many messages starting at `keep_from` leaves out."""


class ContextMeter:
    """Measures contexts for one workspace; remembers what each message's text is made of."""

    def __init__(self, calibration: Calibration | None = None) -> None:
        self.calibration = calibration or Calibration()
        self._counts: dict[tuple[str, int, int], dict[str, int]] = {}

    def counts(self, message: Message) -> dict[str, int]:
        """What the message is sent as is made of: its text, and the name and arguments of
        each tool call it made (sent with every later request, as its result is)."""
        key = (message.id, len(message.content), len(message.tool_calls))
        found = self._counts.get(key)
        if found is None:
            if len(self._counts) > 20_000:
                self._counts.clear()
            text = message.content
            if message.tool_calls:
                text = "\n".join([text, *(f"{call.name} {call.arguments}"
                                           for call in message.tool_calls)])
            found = self._counts[key] = script_counts(text)
        return found

    def message_tokens(self, model: str | None, message: Message) -> float:
        attached = sum(a.tokens for a in message.attachments)
        return (self.calibration.estimate_counts(model, self.counts(message)) + attached
                + MESSAGE_OVERHEAD)

    def measure(self, sent: Sequence[Message], *, model: str | None, system_prompt: str | None,
                draft: str, window: int | None, counted_since: datetime | None = None,
                draft_extra: int = 0) -> ContextUse:
        """The size of a request of `sent` (`in_context`'s messages) and `draft` (with
        `draft_extra` tokens of attachments); the usage of a reply older than `counted_since`
        (when the context last changed) is not used."""
        estimate = self.calibration.estimate
        anchor = _anchor(sent, model, counted_since)
        counted, estimated = 0, 0.0
        if anchor is None:
            estimated = REQUEST_OVERHEAD + (estimate(model, system_prompt) + MESSAGE_OVERHEAD
                                            if system_prompt else 0.0)
            rest: Sequence[Message] = sent
        else:
            reply = sent[anchor]
            assert reply.usage is not None
            counted = reply.usage.prompt_tokens
            if reply.usage.completion_tokens and not reply.reasoning:
                counted += reply.usage.completion_tokens + MESSAGE_OVERHEAD
            else:
                estimated += self.message_tokens(model, reply)
            rest = sent[anchor + 1:]
        estimated += sum(self.message_tokens(model, message) for message in rest)
        if draft or draft_extra:
            estimated += estimate(model, draft) + draft_extra + MESSAGE_OVERHEAD
        return ContextUse(counted, estimated, window)

    def plan(self, sent: Sequence[Message], use: ContextUse, max_tokens: int | None, *,
             model: str | None) -> ContextPlan:
        """What the next request may hold (see the module docstring); `sent` as measured."""
        window = use.window
        if not window:
            return ContextPlan(use, "fits", max_tokens)
        need = min(MIN_REPLY, window // 5, max_tokens or MIN_REPLY)
        room = window - use.tokens - margin(use)
        if room < need:
            keep_from, left_out = self._keep_from(sent, use, window, need, model)
            return ContextPlan(use, "over", max_tokens, keep_from=keep_from, left_out=left_out)
        state: State = "near" if use.tokens >= NEAR_FULL * window else "fits"
        if max_tokens is not None and max_tokens > room:
            return ContextPlan(use, state, room, clamped=True)
        return ContextPlan(use, state, max_tokens)

    def _keep_from(self, sent: Sequence[Message], use: ContextUse, window: int, need: int,
                   model: str | None) -> tuple[str | None, int]:
        """The first message to keep (a prompt of the user's, the start of a turn) for the
        request to fit, and how many messages that leaves out; (None, 0) when none does."""
        estimates = [self.message_tokens(model, message) for message in sent]
        total = sum(estimates)
        # Anchored figures are the provider's: scale the estimates to them.
        scale = max(1.0, use.tokens / total) if total else 1.0
        excess = use.tokens + margin(use) + need - window
        dropped = 0.0
        for index, message in enumerate(sent):
            if index and message.role == Role.USER and dropped * scale >= excess:
                return message.id, index
            dropped += estimates[index]
        if sent and sent[-1].role == Role.ASSISTANT and dropped * scale >= excess:
            # Every earlier turn left out: the reply the path ends with is named, and it is
            # left out too, as a reply whose prompt is (see `in_context`).
            return sent[-1].id, len(sent)
        return None, 0


def _anchor(sent: Sequence[Message], model: str | None, since: datetime | None
            ) -> int | None:
    """The index of the last reply in `sent` whose usage `model` reported for a request of
    the context as it is (since `since`), if any."""
    for index in range(len(sent) - 1, -1, -1):
        message = sent[index]
        if since is not None and message.created < since:
            return None
        if (message.role == Role.ASSISTANT and message.usage is not None
                and message.usage.prompt_tokens > 0 and message.model == model):
            return index
    return None


def margin(use: ContextUse) -> int:
    return SAFETY_TOKENS + math.ceil(SAFETY_SHARE * use.estimated)


def needed_window(plan: ContextPlan) -> int:
    """The window, in tokens, that `plan`'s request fits in: the prompt, the margin kept for
    what the estimate may miss, and room for a reply (at least what `ContextMeter.plan` asks
    of a window that size)."""
    reply = min(MIN_REPLY, plan.max_tokens or MIN_REPLY)
    return plan.use.tokens + margin(plan.use) + reply


def short_tokens(count: int) -> str:
    """A token count as the status line shows it: 950, 38k, 1.2M."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.0f}k" if count >= 10_000 else f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def context_text(use: ContextUse) -> str:
    """The figure as the status line shows it: "38k / 131k ctx" ("38k ctx": no window)."""
    if use.window:
        return f"{short_tokens(use.tokens)} / {short_tokens(use.window)} ctx"
    return f"{short_tokens(use.tokens)} ctx"


class ContextOverflowError(UsageError):
    """The next request would not fit the model's window: it was not sent (nothing saved)."""

    def __init__(self, plan: ContextPlan, model: str, provider: str) -> None:
        window = plan.use.window or 0
        super().__init__(f"The conversation is about {short_tokens(plan.use.tokens)} tokens, "
                         f"more than fits in the {short_tokens(window)}-token window of "
                         f"{model} with room for a reply, so it was not sent.")
        self.plan = plan
        self.hinted(Hint.CONTEXT, provider)
