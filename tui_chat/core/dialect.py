"""A provider's dialect: how its streamed chunks depart from OpenAI's, in one place.

Each provider's spec carries one (`ProviderSpec.dialect`); the client reads a chunk through it:
- `reasoning_keys`: the delta keys that carry reasoning, in the order they are looked at
  (vLLM and SGLang send `reasoning_content`, OpenRouter and others `reasoning`). Each must be
  a field of `chunks.ChunkDelta`, or the decoder drops it (a test checks).
- the client's fast path (a delta with nothing but a piece of the answer, once per token) is
  taken only when none of `slow_keys` is set: the reasoning keys and `tool_calls`, derived
  here, so the fast path and the full reading can never disagree on which keys matter.
- `bare_json_errors`: a line outside the SSE fields that is a JSON object is an error report
  (Chutes sends its mid-stream failures so, then ends the body), not a line to ignore.

- how a request asks for less or no reasoning (`Parameters.reasoning`, `reasoning_body`):
  "low" / "medium" / "high" as `reasoning_effort` (OpenAI's key, which vLLM and SGLang take);
  "off" as `chat_template_kwargs` that switch the chat template's thinking off
  (`enable_thinking: false` for Qwen3 and GLM, `thinking: false` for DeepSeek-V3.1; a
  template ignores the flag it does not read). Sent only for a model known to take it
  (`takes_reasoning`): Chutes' /models lists "reasoning" in its `supported_features`, or
  config.toml says `reasoning = true` for it; for any other model nothing is sent.

Inline reasoning tags (`<think>`, SUTRA's `<thinking>`) are read for every provider
(core.reasoning). Whether the provider takes `stream_options` stays
`ProviderSpec.supports_stream_options`, which config.toml can set; a server that refuses it
anyway is remembered by the `UsageRefusals` its clients share (one per workspace).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, cast

from msgspec import Struct

if TYPE_CHECKING:
    from tui_chat.core.chunks import ChunkDelta
    from tui_chat.core.models import ModelInfo
    from tui_chat.core.providers import Provider


REASONING_CHOICES: Final = ("default", "off", "low", "medium", "high")
"""The reasoning settings a conversation may take, in the order the key cycles them
("default": none sent, the model's own; the rest: `Parameters.reasoning`)."""


def takes_reasoning(info: ModelInfo | None) -> bool:
    """Whether `info`'s model is known to take a reasoning setting ("reasoning" among its
    features: Chutes' `supported_features`, or `reasoning = true` in config.toml)."""
    return info is not None and "reasoning" in info.features


class Dialect(Struct, frozen=True, kw_only=True):
    reasoning_keys: tuple[str, ...] = ("reasoning_content", "reasoning")
    bare_json_errors: bool = True
    effort_key: str = "reasoning_effort"
    """The request key that carries "low" / "medium" / "high"."""
    thinking_switches: tuple[str, ...] = ("enable_thinking", "thinking")
    """The `chat_template_kwargs` flags set to false for "off"."""

    def reasoning_body(self, effort: str | None) -> dict[str, Any]:
        """The request keys for the reasoning setting `effort` (None or "default": none)."""
        if effort is None or effort == "default":
            return {}
        if effort == "off":
            return {"chat_template_kwargs": dict.fromkeys(self.thinking_switches, False)}
        return {self.effort_key: effort}

    @property
    def slow_keys(self) -> tuple[str, ...]:
        """The delta keys any of which rules the fast path out."""
        return (*self.reasoning_keys, "tool_calls")

    def plain(self, delta: ChunkDelta) -> bool:
        """Whether `delta` holds nothing the fast path would miss (its `content` aside): none
        of `slow_keys` (looked at without building it: this runs once per token)."""
        if delta.get("tool_calls"):
            return False
        fields = cast("Mapping[str, object]", delta)
        return not any(fields.get(key) for key in self.reasoning_keys)

    def reasoning(self, delta: ChunkDelta) -> str | None:
        """The reasoning `delta` carries, if any."""
        fields = cast("Mapping[str, object]", delta)
        for key in self.reasoning_keys:
            text = fields.get(key)
            if isinstance(text, str) and text:
                return text
        return None


OPENAI_COMPATIBLE = Dialect()
"""What an OpenAI-compatible server that tui-chat knows nothing more of gets: both reasoning
keys, and a bare JSON line read as an error (servers in front of Chutes pass its own on)."""
CHUTES = Dialect()
"""Chutes: both reasoning keys (its models run on vLLM or SGLang, and some report reasoning
as `reasoning`); mid-stream failures as a bare JSON line."""
SUTRA = Dialect()
"""SUTRA: sutra-r0 reasons in inline `<thinking>` tags, which every provider's content is
read for; the keys stay, should it send them."""


class UsageRefusals:
    """The (provider, base URL) pairs that refused `stream_options` (a 400 or 422 that a
    request without it did not get): not asked again by the clients sharing this memory."""

    def __init__(self) -> None:
        self._refused: set[tuple[str, str]] = set()

    def asks_for_usage(self, provider: Provider) -> bool:
        """Whether a request to `provider` asks for usage (`stream_options.include_usage`):
        its spec says it takes it, and it has not refused it here."""
        return (provider.spec.supports_stream_options
                and (provider.name, provider.base_url) not in self._refused)

    def refused(self, provider: Provider) -> None:
        self._refused.add((provider.name, provider.base_url))
