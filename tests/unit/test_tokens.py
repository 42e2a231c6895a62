"""`estimate_tokens` against real tokenizers' counts, script by script (the samples and the
counts are in tests/fixtures/token_samples.json; token_reference.py.txt made the counts)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from tui_chat.core import tokens
from tui_chat.core.tokens import estimate_tokens, script_counts

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


def regex_counts(text: str) -> dict[str, int]:
    """script_counts as the regexes of its classes define it, character by character."""
    counts: dict[str, int] = {}
    covered = 0
    for name, pattern in tokens._script_patterns():
        found = sum(map(len, pattern.findall(text)))
        if found:
            counts[name] = found
            covered += found
    runs = re.findall(r"[\t\n\r\f\v]+ *| {2,}", text)
    if runs:
        counts["space"] = len(runs)
        covered += sum(map(len, runs))
    other = len(text) - covered - (text.count(" ") - sum(r.count(" ") for r in runs))
    if other > 0:
        counts["other"] = other
    return counts


def test_a_text_is_counted_class_by_class() -> None:
    assert script_counts("Ab  c!?\n\n  9 x\tй") == {
        "latin": 4, "punct": 2, "digit": 1, "space": 3, "cyrillic": 1}


@pytest.mark.parametrize("alphabet", ["ascii", "mixed"])
def test_counts_match_the_classes_regexes(alphabet: str) -> None:
    """The ASCII text's quick count (bytes deleted by class) and the regexes agree."""
    rng = random.Random(5)
    pool = [chr(c) for c in range(128)] + ["  ", "\n\n", " \n  "]
    if alphabet == "mixed":
        pool += list("नमस्ते你好Привет😀é")
    for _ in range(300):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 60)))
        assert script_counts(text) == regex_counts(text), repr(text)
