"""Compare: one prompt to 2-4 (provider client, model) targets at once.

Usage::

    targets = [CompareTarget(chutes_client, "deepseek-ai/DeepSeek-V3-0324"),
               CompareTarget(sutra_client, "sutra-v2")]
    async for event in compare(session, "Explain RFC 9110", targets):
        match event:
            case UserMessageSaved() | ActivePathChanged(): ...   # once, as for send()
            case TargetEvent(index, ReplyStarted(message)): ...  # one column per target
            case TargetEvent(index, ContentDelta(text)): ...
            case TargetEvent(index, ReplyFinished() | ReplyFailed()): ...
    choose(session, chosen_reply_id)     # the conversation continues from that one

Each target streams independently (one task each) into one iterator of events tagged with the
target's index. Each reply is a sibling of the same user message, saved while it streams like
any reply (ChatSession.reply_to), so a crash leaves every partial reply marked interrupted.
Text deltas of one target that wait in the merge one after the other are handed on as one
(the same text): one network read can hold hundreds of deltas, and whoever reads the events
(the app draws them) pays per event. A provider failing ends only its own target
(TargetEvent(i, ReplyFailed)); the others go on.
Cancelling the consumer, or closing the iterator, stops every target (each partial reply is
saved as stopped by the user) before it returns. A bug in one stops all and propagates.
The first target's reply is the active one until `choose` picks another.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui_chat.core.errors import UsageError
from tui_chat.core.events import ContentDelta, ReasoningDelta
from tui_chat.core.models import ActivePathChanged, Parameters
from tui_chat.core.session import ChatSession, SessionEvent, UserMessageSaved

if TYPE_CHECKING:
    from tui_chat.core.client import ProviderClient
    from tui_chat.core.models import Attachment

MIN_TARGETS = 2
MAX_TARGETS = 4


@dataclass(frozen=True, slots=True)
class CompareTarget:
    client: ProviderClient
    model: str


@dataclass(frozen=True, slots=True)
class TargetEvent:
    """An event of target number `target` (its index in the list given to `compare`)."""

    target: int
    event: SessionEvent


CompareEvent = UserMessageSaved | ActivePathChanged | TargetEvent


class _Done:
    """A target's stream has ended."""


async def compare(session: ChatSession, prompt: str, targets: Sequence[CompareTarget], *,
                  parameters: Parameters | None = None, attachments: Sequence[Attachment] = ()
                  ) -> AsyncGenerator[CompareEvent, None]:
    """Save `prompt` with `attachments` (a retry reuses it, as `send` does), then stream
    every target's reply."""
    if not MIN_TARGETS <= len(targets) <= MAX_TARGETS:
        raise UsageError(f"Compare takes {MIN_TARGETS} to {MAX_TARGETS} models, not "
                         f"{len(targets)}: choose again.")
    if parameters is not None:
        session.set_parameters(parameters)
    user, events = session.prepare_prompt(prompt, attachments=attachments)
    for event in events:
        assert isinstance(event, UserMessageSaved | ActivePathChanged)
        yield event
    async with contextlib.aclosing(compare_replies(session, user.id, targets)) as replies:
        async for tagged in replies:
            yield tagged


async def compare_replies(session: ChatSession, prompt_id: str,
                          targets: Sequence[CompareTarget]
                          ) -> AsyncGenerator[TargetEvent, None]:
    """Stream one new reply per target to user message `prompt_id`, merged (text deltas of
    a target waiting one after the other joined: see the module docstring)."""
    waiting: collections.deque[tuple[int, SessionEvent | _Done | BaseException]] = (
        collections.deque())
    arrived = asyncio.Event()

    def put(index: int, item: SessionEvent | _Done | BaseException) -> None:
        waiting.append((index, item))
        arrived.set()

    async def run(index: int, target: CompareTarget) -> None:
        try:
            async with contextlib.aclosing(session.reply_to(
                    prompt_id, client=target.client, model=target.model,
                    activate=index == 0)) as events:
                async for event in events:
                    put(index, event)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a bug: the consumer re-raises it and stops the others
            put(index, error)
        finally:
            put(index, _Done())

    tasks = [asyncio.create_task(run(index, target)) for index, target in enumerate(targets)]
    remaining = len(tasks)
    try:
        while remaining:
            if not waiting:
                arrived.clear()
                await arrived.wait()
                continue
            index, item = waiting.popleft()
            if isinstance(item, _Done):
                remaining -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield TargetEvent(index, _joined(index, item, waiting))
    finally:
        for task in tasks:
            task.cancel()
        # Every stopped target saves its partial reply before this returns.
        await asyncio.gather(*tasks, return_exceptions=True)


def _joined(index: int, event: SessionEvent,
            waiting: collections.deque[tuple[int, SessionEvent | _Done | BaseException]]
            ) -> SessionEvent:
    """`event`, with the deltas of its kind and target that wait right after it joined to it
    (taken from `waiting`)."""
    kind = type(event)
    if kind is not ContentDelta and kind is not ReasoningDelta:
        return event
    parts: list[str] | None = None
    while waiting and waiting[0][0] == index and type(waiting[0][1]) is kind:
        following = waiting.popleft()[1]
        assert isinstance(following, ContentDelta | ReasoningDelta)
        if parts is None:
            assert isinstance(event, ContentDelta | ReasoningDelta)
            parts = [event.text]
        parts.append(following.text)
    if parts is None:
        return event
    return kind("".join(parts))


def choose(session: ChatSession, reply_id: str) -> ActivePathChanged | None:
    """Continue the conversation from the compared reply `reply_id`; the others stay as its
    siblings."""
    return session.activate(reply_id)
