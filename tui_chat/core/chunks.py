"""Provider payloads: the streamed `chat.completion.chunk`, error bodies, /models entries.

A chunk is read strictly first (msgspec's typed JSON decoder, the fast path: decoding and
validation in one pass, a third of pydantic's time a chunk; benchmarks/bench_client.py).
What only a lenient reader accepts is still a reply, not a broken stream: raw control
characters inside strings (NUL, ESC: JSON wants them escaped) are kept as they are, and a lone
surrogate escape such as
"\\ud800" (valid JSON, but no UTF-8 text can hold it, so the store could not save it) becomes
U+FFFD, the replacement character.
"""

from __future__ import annotations

import json
import math
from typing import Any

import msgspec
from typing_extensions import TypedDict

from tui_chat.core.events import UsageReported
from tui_chat.core.models import ModelInfo, usage_from
from tui_chat.core.text import without_lone_surrogates

# TypedDicts: msgspec decodes into plain dicts, and the stream parser runs once per token.
# Unknown fields are dropped; numbers written as strings are accepted (strict=False).


class NotAChunk(ValueError):
    """An event's data that is not a chat.completion.chunk, even read leniently."""


class PromptTokensDetails(TypedDict, total=False):
    cached_tokens: int | None


class UsageCounts(TypedDict, total=False):
    prompt_tokens: int | None
    completion_tokens: int | None
    total_tokens: int | None
    prompt_tokens_details: PromptTokensDetails | None


class ToolCallFunction(TypedDict, total=False):
    name: str | None
    arguments: str | None


class ToolCallFragment(TypedDict, total=False):
    index: int
    id: str | None
    function: ToolCallFunction | None


class ChunkDelta(TypedDict, total=False):
    role: str | None
    content: str | None
    reasoning_content: str | None
    reasoning: str | None
    tool_calls: list[ToolCallFragment] | None


class ChunkChoice(TypedDict, total=False):
    index: int
    delta: ChunkDelta | None
    finish_reason: str | None


class ChatCompletionChunk(TypedDict, total=False):
    """A `chat.completion.chunk`, or an error object sent in its place inside the stream:
    `{"error": {...}}` (OpenAI, OpenRouter) or `{"object": "error", "message": ...}` (vLLM)."""

    id: str | None
    object: str | None
    model: str | None
    choices: list[ChunkChoice] | None
    usage: Any
    """Read as it came (`usage_event`): usage is advisory, never a reason to refuse a chunk."""
    error: Any
    message: Any
    code: Any


CHUNK_DECODER = msgspec.json.Decoder(ChatCompletionChunk, strict=False)


class CompletionChoice(TypedDict, total=False):
    index: int
    message: ChunkDelta | None
    finish_reason: str | None


class ChatCompletion(TypedDict, total=False):
    """A whole `chat.completion`: what a provider sends when it does not stream."""

    choices: list[CompletionChoice] | None
    usage: UsageCounts | None


def parse_completion(body: str) -> ChatCompletion | None:
    """The whole completion in a JSON body, when its first choice holds a message; else
    None (an error body, or something else)."""
    try:
        lenient = _replace_lone_surrogates(json.loads(body, strict=False))
        completion: ChatCompletion = msgspec.convert(lenient, ChatCompletion, strict=False)
    except (ValueError, RecursionError, msgspec.ValidationError):
        return None
    choices = completion.get("choices")
    return completion if choices and choices[0].get("message") is not None else None


def parse_chunk(data: str) -> ChatCompletionChunk:
    """The chunk in an event's data; raises NotAChunk if it is not one."""
    try:
        return CHUNK_DECODER.decode(data)
    except msgspec.DecodeError:
        try:
            lenient = _replace_lone_surrogates(json.loads(data, strict=False))
            chunk: ChatCompletionChunk = msgspec.convert(lenient, ChatCompletionChunk,
                                                         strict=False)
        except (ValueError, RecursionError, msgspec.ValidationError):
            raise NotAChunk(data[:60]) from None
        return chunk


def usage_event(raw: object) -> UsageReported:
    """A chunk's usage object as an event: its counts, or, when it does not parse (counts
    that are not whole numbers from 0 up, an object that is not one), none and a note. The
    reply it ends is complete all the same."""
    usage = usage_from(raw)
    if usage is not None:
        return UsageReported(usage)
    return UsageReported(None, note=f"{USAGE_NOTE_START}{preview_of(raw)}{USAGE_NOTE_END}")


USAGE_NOTE_START = "The provider's token usage ("
USAGE_NOTE_END = ") made no sense, so this reply has no token counts or cost."


def is_usage_note(text: str | None) -> bool:
    """Whether `text` is `usage_event`'s note (which a store before schema 8, or an export
    from one, kept in a complete reply's `error`)."""
    return (text is not None and text.startswith(USAGE_NOTE_START)
            and text.endswith(USAGE_NOTE_END) and "\n" not in text)


def preview_of(raw: object) -> str:
    text = json.dumps(raw, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:59] + "…"


def _replace_lone_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return without_lone_surrogates(value)  # json.loads has joined every valid pair
    if isinstance(value, list):
        return [_replace_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_replace_lone_surrogates(key): _replace_lone_surrogates(item)
                for key, item in value.items()}
    return value


def provider_message(body: str) -> str | None:
    """The human message inside an error body, in whichever shape the provider used.

    Shapes: {"detail": "…"}, {"detail": {"message": "…"}}, {"error": {"message": "…"}},
    {"error": "…"}, {"message": "…"}. An HTML page or anything else gives None.
    """
    try:
        data = json.loads(body)
    except ValueError:
        return None
    return message_from_json(data)


def message_from_json(data: object) -> str | None:
    if isinstance(data, str):
        return without_lone_surrogates(data) or None
    if isinstance(data, list) and data:
        return message_from_json(data[0])
    if not isinstance(data, dict):
        return None
    for key in ("detail", "error", "message", "msg"):
        if key in data:
            found = message_from_json(data[key])
            if found:
                return found
    return None


def model_info_from(provider: str, entry: object) -> ModelInfo | None:
    """A /models entry as a ModelInfo; every field but `id` is optional and may be spelled
    several ways (numbers may be strings). Prices are USD per million tokens, as Chutes lists
    them: `pricing: {prompt, completion}`, or `price: {input: {usd}, output: {usd}}`."""
    if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
        return None
    context = entry.get("context_length") or entry.get("max_model_len")
    context_length = _count(context)
    pricing = entry.get("pricing") or entry.get("price")
    input_price, output_price = prices_from(pricing)
    return ModelInfo(
        id=entry["id"], provider=provider, context_length=context_length,
        price=price_text(pricing), input_price=input_price, output_price=output_price,
        cache_read_price=(_usd(pricing.get("input_cache_read"))
                          if isinstance(pricing, dict) else None),
        input_modalities=_modalities(entry),
        confidential_compute=entry.get("confidential_compute") is True,
        takes_tools=_features_hold(entry, "tools"),
        features=_features(entry),
        quantization=_short_text(entry.get("quantization")),
        max_output=_count(entry.get("max_output_length")),
    )


def _features(entry: dict[str, Any]) -> tuple[str, ...]:
    features = entry.get("supported_features")
    if not isinstance(features, list):
        return ()
    return tuple(f for f in features if isinstance(f, str) and f and len(f) <= 40)[:20]


def _short_text(value: object) -> str | None:
    """A short label from an untrusted list (made one line where it is drawn)."""
    return value[:20] if isinstance(value, str) and value.strip() else None


def _features_hold(entry: dict[str, Any], feature: str) -> bool:
    features = entry.get("supported_features")
    return isinstance(features, list) and feature in features


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = int(value)
    except (ValueError, OverflowError):
        return None
    return number if number > 0 else None


def _usd(value: object) -> float | None:
    """A price: a number, a numeric string, or {"usd": …}; None for anything else."""
    if isinstance(value, dict):
        value = value.get("usd")
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


def prices_from(pricing: object) -> tuple[float | None, float | None]:
    """(input, output) USD per million tokens from a pricing object, where it has both."""
    if not isinstance(pricing, dict):
        return None, None
    for prompt_key, completion_key in (("prompt", "completion"), ("input", "output")):
        if prompt_key in pricing and completion_key in pricing:
            prompt, completion = _usd(pricing[prompt_key]), _usd(pricing[completion_key])
            if prompt is not None and completion is not None:
                return prompt, completion
    return None, None


def _modalities(entry: dict[str, Any]) -> tuple[str, ...] | None:
    found = entry.get("input_modalities")
    architecture = entry.get("architecture")
    if found is None and isinstance(architecture, dict):
        found = architecture.get("input_modalities")  # OpenRouter's spelling
    if not isinstance(found, list):
        return None
    return tuple(str(item).lower() for item in found if isinstance(item, str))


def price_text(pricing: object) -> str | None:
    if isinstance(pricing, dict):
        prompt, completion = pricing.get("prompt"), pricing.get("completion")
        if prompt is not None and completion is not None:
            return f"in {prompt} / out {completion}"
        prompt, completion = prices_from(pricing)
        if prompt is not None and completion is not None:
            return f"in {prompt:g} / out {completion:g}"
    if isinstance(pricing, str | int | float):
        return str(pricing)
    return None
