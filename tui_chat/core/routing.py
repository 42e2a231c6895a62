"""Chutes' routing pools (issue 27): several models asked as one, in the request's `model`.

Chutes reads `model="a,b,c"` as a pool tried in order (failover), `"a,b,c:latency"` as the
one with the lowest time to first token now, `"a,b,c:throughput"` as the one with the most
tokens a second; the response names the model that answered (`x-chutes-chosen-model`, else
each chunk's `model`: tui_chat.core.client). A pool is stored as the conversation's model,
so the next request asks the pool again. Only Chutes takes pools (`takes_pools`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, get_args
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from tui_chat.core.providers import Provider

Strategy = Literal["failover", "latency", "throughput"]
STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)
DESCRIBED: dict[Strategy, str] = {
    "failover": "failover: in the order picked",
    "latency": "latency: the quickest to its first token",
    "throughput": "throughput: the most tokens a second",
}
MAX_POOL = 20
"""Models in one pool at most (Chutes' limit)."""


def pool_model(models: Sequence[str], strategy: Strategy = "failover") -> str:
    """The `model` to send for a pool of `models` (two or more, in order)."""
    if len(models) < 2:
        raise ValueError("a routing pool needs two models or more")
    joined = ",".join(models)
    return joined if strategy == "failover" else f"{joined}:{strategy}"


def parse_pool(model: str) -> tuple[list[str], Strategy] | None:
    """A pool's models and strategy, or None when `model` is one model."""
    strategy: Strategy = "failover"
    body = model
    for named in STRATEGIES[1:]:
        if model.endswith(f":{named}"):
            body, strategy = model[: -len(named) - 1], named
    models = [m.strip() for m in body.split(",") if m.strip()]
    return (models, strategy) if len(models) > 1 else None


def is_pool(model: str) -> bool:
    return "," in model and parse_pool(model) is not None


def next_strategy(strategy: Strategy) -> Strategy:
    return STRATEGIES[(STRATEGIES.index(strategy) + 1) % len(STRATEGIES)]


def takes_pools(provider: Provider) -> bool:
    """Whether `provider` is Chutes (the built-in, or a base URL on chutes.ai)."""
    if provider.name == "chutes":
        return True
    try:
        host = (urlsplit(provider.base_url).hostname or "").lower()
    except ValueError:
        return False
    return host == "chutes.ai" or host.endswith(".chutes.ai")
