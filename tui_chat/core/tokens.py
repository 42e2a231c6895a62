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

import bisect
import functools
import itertools
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

_CLASSES: tuple[tuple[str, str], ...] = (
    ("latin", r"[A-Za-z\u00C0-\u024F\u1E00-\u1EFF]+"),
    ("digit", r"[0-9]+"),
    ("punct", r"[!-/:-@\[-`{-~]+"),
)
_NON_ASCII: tuple[tuple[str, str], ...] = (
    ("cyrillic", r"[\u0400-\u052F]+"),
    ("greek", r"[\u0370-\u03FF\u1F00-\u1FFF\u0530-\u058F\u10A0-\u10FF]+"),
    ("arabic", r"[\u0590-\u06FF\u0750-\u077F\u08A0-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]+"),
    ("indic", r"[\u0900-\u0BFF]+"),
    ("indic_south", r"[\u0C00-\u0DFF]+"),
    ("southeast", r"[\u0E00-\u0EFF\u1000-\u109F\u1780-\u17FF]+"),
    ("kana", r"[\u3040-\u30FF\u31F0-\u31FF]+"),
    ("hangul", r"[\u1100-\u11FF\u3130-\u318F\uAC00-\uD7AF]+"),
    ("cjk", r"[\u2E80-\u303F\u3100-\u312F\u3190-\u31EF\u3200-\u9FFF"
             r"\uF900-\uFAFF\uFF00-\uFFEF\U00020000-\U0003FFFF]+"),
)


@functools.cache
def _script_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """`_CLASSES` and `_NON_ASCII` compiled, when a text that is not ASCII is first counted
    (an ASCII one is counted without them): not at import, on the app's start-up path."""
    return tuple((name, re.compile(pattern)) for name, pattern in (*_CLASSES, *_NON_ASCII))


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
        for name, pattern in _script_patterns():
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


_PIECE = re.compile(r"[^\n]*(?:\n[\t\n\r\f\v ]*)?")
"""A line, its newline and all the whitespace after it (blank lines, the next line's
indentation): a piece ends before a character other than whitespace (or at the end). No run
of whitespace (`_SPACE_RUN`) spans such a point and the other classes count characters one by
one, so the counts of a text are the sums of the counts of its pieces."""


def _pieces(text: str) -> list[str]:
    return [piece for piece in _PIECE.findall(text) if piece]


class TextCounts:
    """`script_counts` of a text edited a little at a time (the prompt, on every key press):
    the text is kept cut into pieces (`_PIECE`: about a line each) with each piece's counts;
    an edit counts again only the pieces it touched, found by comparing the new text with the
    last one from both ends. The sum is exactly `script_counts` of the whole text."""

    def __init__(self) -> None:
        self._text = ""
        self._ends: list[int] = []  # where each piece ends in the text
        self._counts: list[dict[str, int]] = []
        self._total: dict[str, int] = {}

    def update(self, text: str) -> dict[str, int]:
        """The counts of `text`, the new state of the text last given."""
        old = self._text
        if text == old:
            return self.counts()
        same_start = _common_prefix(old, text)
        same_end = _common_prefix(old[same_start:][::-1], text[same_start:][::-1])
        # The pieces holding the change and one character either side of it: their outer
        # edges are cuts whose two characters the edit left alone, so they stay cuts.
        first = bisect.bisect_right(self._ends, max(same_start - 1, 0))
        last = min(bisect.bisect_left(self._ends, len(old) - same_end + 1), len(self._ends) - 1)
        start = self._ends[first - 1] if first > 0 else 0
        end = self._ends[last] if self._ends else 0
        delta = len(text) - len(old)
        pieces = _pieces(text[start:end + delta])
        counts = [script_counts(piece) for piece in pieces]
        for gone in self._counts[first:last + 1]:
            for name, count in gone.items():
                self._total[name] -= count
        for new in counts:
            for name, count in new.items():
                self._total[name] = self._total.get(name, 0) + count
        ends = list(itertools.accumulate(map(len, pieces), initial=start))[1:]
        self._counts[first:last + 1] = counts
        self._ends[first:] = ends + [e + delta for e in self._ends[last + 1:]]
        self._text = text
        return self.counts()

    def counts(self) -> dict[str, int]:
        return {name: count for name, count in self._total.items() if count}

    def tokens(self) -> int:
        """`estimate_tokens` of the text."""
        return max(1, round(tokens_from_counts(self.counts()))) if self._text else 0


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common start of `a` and `b` (by halving: each comparison runs
    in C, where a loop over characters would run in Python)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low
