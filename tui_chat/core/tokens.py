"""Token estimates without a tokenizer: characters per token, by script.

tui-chat talks to models whose tokenizers it does not have (DeepSeek, Qwen, SUTRA…), so it
counts characters by script and divides by how many characters of that script a token holds.
The defaults below were fitted to DeepSeek's and Qwen's tokenizers on a sample per script
(tests/fixtures/token_samples.json holds the samples and their counts; tests/unit/test_tokens.py
keeps the estimate within 20 % of their middle for every script, 35 % for Latin-script text,
code and digits); they are not English-calibrated: Devanagari or Chinese text costs two to
four times the tokens per character of English, where a `len / 4` rule is off by 40-60 %.
Where a provider reports its own counts, `calibration.Calibration` learns the real ratio per
script and per model; `estimate_tokens` is the uncalibrated figure.

What a text is made of (`script_counts`): letters of each script (with their combining marks),
digits, ASCII punctuation, runs of whitespace other than a single space (a space before a word
is part of the word's token), and everything else (emoji, symbols, other scripts).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# Characters per token. Letters of a script first (these are what calibration refines), then
# the classes every script shares.
CHARS_PER_TOKEN: Mapping[str, float] = {
    "latin": 4.0,
    "cyrillic": 3.3,
    "greek": 2.2,        # Greek, Armenian, Georgian
    "arabic": 2.6,       # Arabic and Hebrew
    "indic": 1.8,        # Devanagari, Bengali, Gurmukhi, Gujarati, Oriya, Tamil
    "indic_south": 1.33,  # Telugu, Kannada, Malayalam, Sinhala
    "southeast": 3.3,    # Thai, Lao, Myanmar, Khmer
    "cjk": 2.0,          # Han, CJK punctuation, full-width forms
    "kana": 1.43,
    "hangul": 1.54,
    "digit": 1.5,        # Qwen splits digits one by one, DeepSeek by three
    "punct": 1.33,
    "space": 1.0,        # a run of whitespace: a newline, a tab, indentation
    "other": 0.5,        # emoji, symbols, scripts not listed: often several tokens each
}
SCRIPTS = ("latin", "cyrillic", "greek", "arabic", "indic", "indic_south", "southeast", "cjk",
           "kana", "hangul", "other")
"""The classes calibration learns (letters of a script); the rest keep their defaults."""

_CLASSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("latin", re.compile(r"[A-Za-z\u00C0-\u024F\u1E00-\u1EFF]+")),
    ("digit", re.compile(r"[0-9]+")),
    ("punct", re.compile(r"[!-/:-@\[-`{-~]+")),
)
_NON_ASCII: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("cyrillic", re.compile(r"[\u0400-\u052F]+")),
    ("greek", re.compile(r"[\u0370-\u03FF\u1F00-\u1FFF\u0530-\u058F\u10A0-\u10FF]+")),
    ("arabic", re.compile(r"[\u0590-\u06FF\u0750-\u077F\u08A0-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]+")),
    ("indic", re.compile(r"[\u0900-\u0BFF]+")),
    ("indic_south", re.compile(r"[\u0C00-\u0DFF]+")),
    ("southeast", re.compile(r"[\u0E00-\u0EFF\u1000-\u109F\u1780-\u17FF]+")),
    ("kana", re.compile(r"[\u3040-\u30FF\u31F0-\u31FF]+")),
    ("hangul", re.compile(r"[\u1100-\u11FF\u3130-\u318F\uAC00-\uD7AF]+")),
    ("cjk", re.compile(r"[\u2E80-\u303F\u3100-\u312F\u3190-\u31EF\u3200-\u9FFF"
                       r"\uF900-\uFAFF\uFF00-\uFFEF\U00020000-\U0003FFFF]+")),
)
_SPACE_RUN = re.compile(r"[\t\n\r\f\v]+ *| {2,}")


_ASCII_CLASSES: tuple[tuple[str, bytes], ...] = (
    ("latin", bytes(range(ord("A"), ord("Z") + 1)) + bytes(range(ord("a"), ord("z") + 1))),
    ("digit", b"0123456789"),
    ("punct", bytes(c for c in range(0x21, 0x7F) if not chr(c).isalnum())),
)
"""`_CLASSES` for ASCII text, as bytes to delete: counted by `bytes.translate`, many times
faster than a regex substitution (what makes opening a 10,000-message conversation cost)."""


def script_counts(text: str) -> dict[str, int]:
    """How many characters of each class `text` holds (whitespace: how many runs)."""
    counts: dict[str, int] = {}
    covered = 0
    raw = text.encode("ascii") if text.isascii() else None
    if raw is not None:
        for name, members in _ASCII_CLASSES:
            found = len(raw) - len(raw.translate(None, members))
            if found:
                counts[name] = found
                covered += found
    else:
        for name, pattern in (*_CLASSES, *_NON_ASCII):
            found = len(text) - len(pattern.sub("", text))
            if found:
                counts[name] = found
                covered += found
    runs, in_runs, spaces_in_runs = _space_runs(text, raw)
    if runs:
        counts["space"] = runs
        covered += in_runs
    single_spaces = text.count(" ") - spaces_in_runs
    other = len(text) - covered - single_spaces
    if other > 0:
        counts["other"] = other
    return counts


def _space_runs(text: str, raw: bytes | None) -> tuple[int, int, int]:
    """(how many whitespace runs, their characters, the spaces among them): what
    `_SPACE_RUN` finds, counted without it in an ASCII text (`raw`, its bytes)."""
    if raw is None:
        rest, runs = _SPACE_RUN.subn("", text)
        return runs, len(text) - len(rest), text.count(" ") - rest.count(" ")
    # Each byte as "n" (other whitespace), " " or "x" (the rest), after an "x" standing for
    # the start: a run is a group of "n" (with the spaces after it), or two spaces or more
    # after an "x".
    marks = b"x" + raw.translate(_WHITESPACE_MARKS)
    groups = marks.count(b"xn") + marks.count(b" n")
    long_spaces = marks.count(b"x  ")
    single_spaces = marks.count(b"x ") - long_spaces
    spaces_in_runs = text.count(" ") - single_spaces
    return groups + long_spaces, marks.count(b"n") + spaces_in_runs, spaces_in_runs


_WHITESPACE_MARKS = bytes(ord("n") if chr(c) in "\t\n\r\f\v" else ord(" ") if c == 0x20
                          else ord("x") for c in range(256))


def tokens_from_counts(counts: Mapping[str, int],
                       factors: Mapping[str, float] | None = None) -> float:
    """The tokens `counts` make at the default ratios, each script's share multiplied by
    its factor in `factors` (1 when absent)."""
    total = 0.0
    for name, count in counts.items():
        share = count / CHARS_PER_TOKEN[name]
        total += share * (factors.get(name, 1.0) if factors else 1.0)
    return total


def estimate_tokens(text: str) -> int:
    """About how many tokens `text` makes, uncalibrated (0 for an empty text)."""
    if not text:
        return 0
    return max(1, round(tokens_from_counts(script_counts(text))))
