"""What replies cost, from the model's prices (USD per million tokens, as Chutes lists them)."""

from __future__ import annotations

from tui_chat.core.models import ModelInfo, Usage

PER = 1_000_000


def reply_cost(usage: Usage, info: ModelInfo) -> float | None:
    """USD for a reply of `usage` at `info`'s prices; None when they are not known."""
    if info.input_price is None or info.output_price is None:
        return None
    return (usage.prompt_tokens * info.input_price
            + usage.completion_tokens * info.output_price) / PER


def cost_text(usd: float) -> str:
    """"0.0012 USD", "1.35 USD"; a cost too small for four decimals is "<0.0001 USD"."""
    if usd == 0:
        return "0 USD"
    if usd < 0.0001:
        return "<0.0001 USD"
    return f"{usd:.4f} USD" if usd < 1 else f"{usd:.2f} USD"
