"""What tui-chat knows about one model: its provider's /models entry, with the user's own
per-model settings from config.toml over it.

    [models."chutes:deepseek-ai/DeepSeek-V3-0324"]
    context_length = 163840     # the window, prompt and reply together, in tokens
    input_price = 0.27          # USD per million prompt tokens
    output_price = 1.1          # USD per million completion tokens
    images = false              # whether it reads images
    tools = true                # whether it may be offered tools (MCP servers)
    reasoning = true            # whether it takes a reasoning setting (off, low, …)

The key is the provider's name, a colon, and the model id as the provider spells it (the id
may hold colons itself: only the first one separates). Every field is optional; one left out
comes from the provider's list, when it gives it. The model catalog (`model_catalog`) is where
the app and the commands ask: `catalog.facts(provider, model)`.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from tui_chat.core.models import ModelInfo
from tui_chat.core.records import Bounds, Record


class ModelSettings(Record):
    """`[models."provider:model-id"]` in config.toml (a record: see core.records)."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    context_length: Annotated[int | None, Bounds(gt=0)] = None
    """The model's window in tokens (prompt and reply together)."""
    input_price: Annotated[float | None, Bounds(ge=0, allow_inf_nan=False)] = None
    """USD per million prompt tokens."""
    output_price: Annotated[float | None, Bounds(ge=0, allow_inf_nan=False)] = None
    """USD per million completion tokens."""
    images: bool | None = None
    """Whether the model reads images (attached PNG, JPEG, WebP, GIF)."""
    tools: bool | None = None
    """Whether the model may be offered tools (tool servers: docs/tools.md)."""
    reasoning: bool | None = None
    """Whether the model takes a reasoning setting (`reasoning_effort`, or thinking turned
    off through `chat_template_kwargs`: core.dialect)."""


def split_key(key: str) -> tuple[str, str] | None:
    """("provider", "model-id") from "provider:model-id"; None when either part is empty."""
    provider, colon, model = key.partition(":")
    if not colon or not provider.strip() or not model.strip():
        return None
    return provider.strip(), model.strip()


def key_problem(key: str, providers: list[str]) -> str | None:
    """Why `key` cannot name a model of one of `providers`, else None."""
    parts = split_key(key)
    if parts is None:
        return (f"the key {key[:80]!r} must be \"provider:model-id\" (for example "
                "\"chutes:deepseek-ai/DeepSeek-V3-0324\")")
    if parts[0] not in providers:
        return (f"the key {key[:80]!r} names the provider {parts[0][:40]!r}, which is not "
                f"configured (known: {', '.join(providers)})")
    return None


def merged(info: ModelInfo | None, provider: str, model: str,
           own: ModelSettings | None) -> ModelInfo:
    """The provider's facts about `model` (None: it listed nothing about it) with the user's
    settings over them."""
    base = info if info is not None else ModelInfo(id=model, provider=provider)
    if own is None:
        return base
    changes: dict[str, object] = {}
    if own.context_length is not None:
        changes["context_length"] = own.context_length
    if own.input_price is not None:
        changes["input_price"] = own.input_price
    if own.output_price is not None:
        changes["output_price"] = own.output_price
    if own.input_price is not None or own.output_price is not None:
        changes["price"] = _price_text(own.input_price if own.input_price is not None
                                       else base.input_price,
                                       own.output_price if own.output_price is not None
                                       else base.output_price) or base.price
    if own.images is not None:
        others = tuple(m for m in (base.input_modalities or ("text",)) if m != "image")
        changes["input_modalities"] = (*others, "image") if own.images else others
    if own.tools is not None:
        changes["takes_tools"] = own.tools
    if own.reasoning is not None:
        others_f = tuple(f for f in base.features if f != "reasoning")
        changes["features"] = (*others_f, "reasoning") if own.reasoning else others_f
    return base.model_copy(update=changes)


def _price_text(prompt: float | None, completion: float | None) -> str | None:
    if prompt is None or completion is None:
        return None
    return f"in {prompt:g} / out {completion:g}"
