"""The workspace's part that knows about windows, token counts and prices.

One per workspace (so what it learns lasts as long as the process): it plans each request
against the model's window (`context.ContextMeter`), learns each model's tokenizer from the
usage its replies report (`calibration`), and prices finished replies from the model's facts
(`model_facts`, through the model catalog). Front-ends reach it through the workspace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from tui_chat.core.calibration import Calibration
from tui_chat.core.context import ContextMeter, ContextPlan, ContextUse, in_context
from tui_chat.core.costs import cache_saving, reply_cost
from tui_chat.core.models import Message, ModelInfo, Role

Facts = Callable[[str, str], ModelInfo]
"""(provider, model) -> what is known about the model now (no request)."""
LEARN_ON_OPEN = 4
"""Replies of a conversation just opened that calibration learns from (the newest)."""


class ContextTracker:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.calibration = Calibration()
        self.meter = ContextMeter(self.calibration)

    def measure(self, path: Sequence[Message], *, provider: str, model: str | None,
                system_prompt: str | None, context_from: str | None,
                context_from_set: datetime | None = None, draft: str = "",
                draft_extra: int = 0) -> tuple[list[Message], ContextUse]:
        """The messages of `path` that would be sent with `draft`, and their size."""
        sent = in_context(path, context_from)
        cut = context_from_set if any(m.id == context_from for m in path) else None
        if draft and sent and sent[-1].role == Role.USER and sent[-1].content == draft:
            draft = ""  # a retry: the prompt is saved already, and it is sent once
        window = self.facts(provider, model).context_length if model else None
        use = self.meter.measure(sent, model=model, system_prompt=system_prompt, draft=draft,
                                 window=window, counted_since=cut, draft_extra=draft_extra)
        return sent, use

    def plan(self, path: Sequence[Message], *, provider: str, model: str | None,
             system_prompt: str | None, context_from: str | None, max_tokens: int | None,
             context_from_set: datetime | None = None, draft: str = "",
             draft_extra: int = 0) -> ContextPlan:
        sent, use = self.measure(path, provider=provider, model=model,
                                 system_prompt=system_prompt, context_from=context_from,
                                 context_from_set=context_from_set, draft=draft,
                                 draft_extra=draft_extra)
        return self.meter.plan(sent, use, max_tokens, model=model)

    def cost_of(self, reply: Message) -> float | None:
        """What `reply` cost (USD) at its model's prices, when they and its usage are known."""
        if reply.usage is None or not reply.provider or not reply.model:
            return None
        return reply_cost(reply.usage, self.facts(reply.provider, reply.model))

    def cache_saving(self, reply: Message) -> float | None:
        """What the provider's prompt cache saved on `reply` (USD), when known."""
        if reply.usage is None or not reply.provider or not reply.model:
            return None
        return cache_saving(reply.usage, self.facts(reply.provider, reply.model))

    def learn(self, reply: Message, history: Sequence[str]) -> None:
        """`reply` finished with the provider's counts: `history` is the text of each message
        its request sent (system prompt included)."""
        usage = reply.usage
        if usage is None or not reply.model:
            return
        if usage.prompt_tokens:
            self.calibration.learn_request(reply.model, history, usage.prompt_tokens)
        if usage.completion_tokens:
            self.calibration.learn_reply(reply.model, reply.content + reply.reasoning,
                                         usage.completion_tokens)

    def learn_path(self, path: Sequence[Message], system_prompt: str | None,
                   context_from: str | None) -> None:
        """Learn from the newest replies of a conversation just opened (their requests are
        taken to be the path before them, as it is sent now)."""
        sent = in_context(path, context_from)
        head = [system_prompt] if system_prompt else []
        replies = [i for i, m in enumerate(sent) if m.role == Role.ASSISTANT and m.usage]
        for index in replies[-LEARN_ON_OPEN:]:
            self.learn(sent[index], [*head, *(m.content for m in sent[:index])])
