"""`estimate_tokens` against real tokenizers' counts, script by script (the samples and the
counts are in tests/fixtures/token_samples.json; token_reference.py.txt made the counts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_chat.core.tokens import estimate_tokens

SAMPLES = json.loads((Path(__file__).parents[1] / "fixtures" / "token_samples.json")
                     .read_text(encoding="utf-8"))
LATIN = {"english", "python", "json", "german", "hinglish", "emoji", "numbers"}


def middle(name: str) -> float:
    """The middle of today's large-vocabulary tokenizers' counts (DeepSeek's and Qwen's)."""
    counts = SAMPLES[name]["tokens"]
    return (counts["deepseek"] + counts["qwen"]) / 2


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_estimate_is_near_the_tokenizers_count(name: str) -> None:
    estimate = estimate_tokens(SAMPLES[name]["text"])
    tolerance = 0.35 if name in LATIN else 0.2  # romanised Hindi and digit runs vary most
    assert abs(estimate - middle(name)) <= tolerance * middle(name), (name, estimate)


DEFEAT_THE_ENGLISH_RULE = ("hindi", "bengali", "tamil", "telugu", "chinese", "japanese",
                           "korean", "arabic", "greek")


@pytest.mark.parametrize("name", DEFEAT_THE_ENGLISH_RULE)
def test_non_latin_scripts_are_not_counted_as_english(name: str) -> None:
    """Four characters a token (the English rule) undercounts these by a quarter or more."""
    text = SAMPLES[name]["text"]
    assert len(text) / 4 < 0.75 * middle(name)  # the sample does defeat the English rule
    assert estimate_tokens(text) > 0.8 * middle(name)


def test_empty_and_tiny_texts() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens(" ") == 1
    assert estimate_tokens("hi") == 1
    assert estimate_tokens("नमस्ते") >= 2


def test_more_text_is_more_tokens() -> None:
    for sample in SAMPLES.values():
        text = sample["text"]
        assert estimate_tokens(text + text) >= 2 * estimate_tokens(text) - 1
