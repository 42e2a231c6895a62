"""What replies cost, from the model's prices (USD per million tokens, as Chutes lists them)."""

from __future__ import annotations

import math

from tui_chat.core.models import ModelInfo, Usage, sane_cost

PER = 1_000_000


def reply_cost(usage: Usage, info: ModelInfo) -> float | None:
    """USD for a reply of `usage` at `info`'s prices; None when they are not known. Prompt
    tokens the provider read from its cache cost its cache price, when it lists one."""
    if info.input_price is None or info.output_price is None:
        return None
    cached = usage.cached_tokens if info.cache_read_price is not None else 0
    # Prices that make no sense (absurd, from a server or a config) give no cost either.
    return sane_cost(((usage.prompt_tokens - cached) * info.input_price
                      + cached * (info.cache_read_price or 0.0)
                      + usage.completion_tokens * info.output_price) / PER)


def cache_saving(usage: Usage, info: ModelInfo) -> float | None:
    """USD that cached prompt tokens saved against the input price; None when nothing was
    cached or no cache price is known."""
    if not usage.cached_tokens or info.input_price is None or info.cache_read_price is None:
        return None
    return usage.cached_tokens * (info.input_price - info.cache_read_price) / PER


def cost_line(reply_cost: float | None, total: float | None, unpriced: int,
              saved: float | None = None) -> str:
    """The status line's cost: "0.0012 USD (cache saved 0.00030 USD) · total 0.0340 USD"
    (each part only when known; the saving only for a priced reply that the cache made
    cheaper)."""
    parts = []
    if reply_cost is not None:
        reply = cost_text(reply_cost)
        if saved is not None and saved > 0 and math.isfinite(saved):
            reply += f" (cache saved {cost_text(saved)})"
        parts.append(reply)
    if total is not None:
        parts.append(f"total {cost_text(total)}" + (" + unpriced" if unpriced else ""))
    return " · ".join(parts)


def cost_text(usd: float) -> str:
    """"1.35 USD", "0.0420 USD", and a small cost with two significant digits: "0.0012 USD",
    "0.000024 USD" (at most eight decimals: "<0.00000001 USD" below)."""
    if not math.isfinite(usd) or usd < 0:  # never a figure: the callers' sums are sane
        return "unknown cost"
    if usd == 0:
        return "0 USD"
    if usd >= 1:
        return f"{usd:.2f} USD"
    if usd >= 0.01:
        return f"{usd:.4f} USD"
    decimals = 1 - math.floor(math.log10(usd))
    if decimals > 8:
        return "<0.00000001 USD"
    return f"{usd:.{decimals}f} USD"
