"""The store's figures of tokens and cost: per conversation (`tui-chat history`, the status
line) and per day and model (`tui-chat usage`). A part of `Store` (its base class).

Tokens and cost are those of replies whose provider reported usage, on every branch (a
regenerated reply cost as much as the one shown). A reply's cost is `usage.cost_usd`, written
when it finished from its model's prices then; a reply with usage and no cost had no known
price, and is counted apart ("unpriced") rather than as free.
"""

from __future__ import annotations

import contextlib
import sqlite3
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from msgspec import Struct

from tui_chat.core.models import MAX_COST_USD, MAX_TOKENS
from tui_chat.core.store_schema import to_text

_PROMPT = "coalesce(json_extract(usage, '$.prompt_tokens'), 0)"
_COMPLETION = "coalesce(json_extract(usage, '$.completion_tokens'), 0)"
_COST = "json_extract(usage, '$.cost_usd')"


def _sane(field: str, types: str, most: float) -> str:
    kind = f"json_type(usage, '$.{field}')"
    return (f"(CASE WHEN {kind} IS NULL OR {kind} = 'null' THEN 1 WHEN {kind} IN ({types}) "
            f"THEN json_extract(usage, '$.{field}') BETWEEN 0 AND {most} ELSE 0 END)")


# A row's usage counts only if it makes sense: a store may hold what an older version or
# another program wrote (negative, absurd, non-numeric figures), and they are no facts.
# CASE, not AND: json_type of text that is not JSON raises, and only CASE is evaluated in order.
_SANE_USAGE = ("CASE WHEN json_valid(usage) AND json_type(usage) = 'object' THEN "
               + " AND ".join([*(_sane(f, "'integer'", MAX_TOKENS) for f in
                                 ("prompt_tokens", "completion_tokens", "total_tokens")),
                               _sane("cost_usd", "'integer', 'real'", MAX_COST_USD)])
               + " ELSE 0 END")
_REPLIES = f"role = 'assistant' AND usage IS NOT NULL AND {_SANE_USAGE}"


class Spent(Struct, frozen=True):
    """Tokens and cost of some replies."""

    replies: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    """The sum of the priced replies' costs; None when none was priced."""
    unpriced: int = 0
    """Replies with usage but no price."""

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class DayUsage(Struct, frozen=True):
    """One row of `tui-chat usage`: a local day, a provider and model, what they spent."""

    day: str
    provider: str
    model: str
    spent: Spent


def _spent(row: sqlite3.Row) -> Spent:
    return Spent(replies=int(row["replies"]), prompt_tokens=int(row["prompt"]),
                 completion_tokens=int(row["completion"]),
                 cost_usd=row["cost"] if row["priced"] else None,
                 unpriced=int(row["replies"]) - int(row["priced"]))


_SUMS = (f"count(*) AS replies, coalesce(sum({_PROMPT}), 0) AS prompt, "
         f"coalesce(sum({_COMPLETION}), 0) AS completion, sum({_COST}) AS cost, "
         f"count({_COST}) AS priced")


class UsageQueries:
    """Usage figures; `Store` provides the connection."""

    if TYPE_CHECKING:
        def _read(self) -> contextlib.AbstractContextManager[sqlite3.Connection]: ...

    def conversation_spent(self, conversation_id: str) -> Spent:
        """What the replies of one conversation spent, on every branch."""
        with self._read() as conn:
            row = conn.execute(f"SELECT {_SUMS} FROM messages WHERE conversation_id = ? "
                               f"AND {_REPLIES}",
                               (conversation_id,)).fetchone()
        return _spent(row)

    def conversation_cost(self, conversation_id: str) -> tuple[float | None, int]:
        """(USD spent in the conversation, None when nothing was priced; unpriced replies)."""
        spent = self.conversation_spent(conversation_id)
        return spent.cost_usd, spent.unpriced

    def spent_by_conversation(self, conversation_ids: list[str]) -> dict[str, Spent]:
        """`conversation_spent` of each of these conversations (those with none are left
        out)."""
        if not conversation_ids:
            return {}
        marks = ",".join("?" * len(conversation_ids))
        with self._read() as conn:
            rows = conn.execute(f"SELECT conversation_id, {_SUMS} FROM messages "
                                f"WHERE conversation_id IN ({marks}) AND {_REPLIES} "
                                "GROUP BY conversation_id",
                                conversation_ids).fetchall()
        return {row["conversation_id"]: _spent(row) for row in rows}

    def usage_by_day(self, days: int, now: datetime) -> list[DayUsage]:
        """Per local day (newest first), provider and model: what replies spent in the last
        `days` days up to `now` (today counts as one)."""
        local = now.astimezone()
        start = (local - timedelta(days=days - 1)).replace(hour=0, minute=0, second=0,
                                                            microsecond=0)
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT date(created, 'localtime') AS day, coalesce(provider, '') AS provider, "
                f"coalesce(model, '') AS model, {_SUMS} FROM messages "
                f"WHERE {_REPLIES} AND created >= ? "
                "GROUP BY day, provider, model ORDER BY day DESC, provider, model",
                (to_text(start),)).fetchall()
        return [DayUsage(row["day"], row["provider"], row["model"], _spent(row))
                for row in rows]
