"""Token estimates calibrated on the provider's own counts, per model and per script.

Every reply whose usage the provider reports is a pair of (text, tokens) twice over: the
request (what was sent, `prompt_tokens`, with a few tokens of chat template per message) and
the reply (its text and reasoning, `completion_tokens`). From each pair the script that makes
most of the text's estimated tokens gets a sample: the factor by which the default ratio of
`tokens` was off for it, once the other classes are counted at what is known of them. The
samples of a (model, script) are averaged, each weighted by its size, with the weight of the
past capped so that the figure follows a tokenizer it had wrong at first. A model with no
sample for a script is estimated at the defaults (`tokens.CHARS_PER_TOKEN`).

So a conversation in Hindi with SUTRA is estimated from what SUTRA counted for Hindi, not from
English, and Chinese with Qwen from Qwen's counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from msgspec import Struct

from tui_chat.core.tokens import SCRIPTS, script_counts, tokens_from_counts

MESSAGE_OVERHEAD = 4
"""Tokens of chat template around each message (role markers, separators)."""
REQUEST_OVERHEAD = 3
"""Tokens of chat template for the request as a whole (the reply's opening marker)."""
MIN_SAMPLE_TOKENS = 16
"""A pair smaller than this says more about the template than about the text: not learned."""
DOMINANT_SHARE = 0.6
"""A sample goes to a script only when it makes at least this share of the estimate."""
MAX_WEIGHT = 50_000.0
"""Estimated tokens of past samples that count at most against a new one."""
FACTOR_RANGE = (0.1, 10.0)


class _Average(Struct):
    factor: float = 1.0
    weight: float = 0.0

    def add(self, sample: float, weight: float) -> None:
        past = min(self.weight, MAX_WEIGHT)
        self.factor = (self.factor * past + sample * weight) / (past + weight)
        self.weight = past + weight


class Calibration:
    """What this process has learned of each model's tokenizer. One per workspace."""

    def __init__(self) -> None:
        self._learned: dict[tuple[str, str], _Average] = {}

    def factors(self, model: str | None) -> dict[str, float]:
        """Script -> the factor learned for `model` (absent: the default holds)."""
        if model is None:
            return {}
        return {script: average.factor for (name, script), average in self._learned.items()
                if name == model}

    def estimate(self, model: str | None, text: str) -> float:
        """About how many tokens `text` makes for `model` (no template overhead)."""
        return tokens_from_counts(script_counts(text), self.factors(model)) if text else 0.0

    def estimate_counts(self, model: str | None, counts: Mapping[str, int]) -> float:
        return tokens_from_counts(counts, self.factors(model))

    def learn(self, model: str, counts: Mapping[str, int], reported: int,
              overhead: int = 0) -> None:
        """`reported` tokens is what the provider counted for text of `counts` (plus
        `overhead` tokens of template)."""
        tokens = reported - overhead
        if tokens < MIN_SAMPLE_TOKENS or not counts:
            return
        factors = self.factors(model)
        shares = {name: tokens_from_counts({name: count}, factors)
                  for name, count in counts.items()}
        total = sum(shares.values())
        script = max((name for name in shares if name in SCRIPTS), key=shares.__getitem__,
                     default=None)
        if script is None or total <= 0 or shares[script] / total < DOMINANT_SHARE:
            return
        base = tokens_from_counts({script: counts[script]})  # at the default ratio
        rest = total - shares[script]
        sample = (tokens - rest) / base
        low, high = FACTOR_RANGE
        sample = min(max(sample, low), high)
        self._learned.setdefault((model, script), _Average()).add(sample, base)

    def learn_request(self, model: str, texts: Sequence[str], prompt_tokens: int) -> None:
        """The provider counted `prompt_tokens` for a request of these message texts."""
        counts: dict[str, int] = {}
        for text in texts:
            for name, count in script_counts(text).items():
                counts[name] = counts.get(name, 0) + count
        self.learn(model, counts, prompt_tokens,
                   REQUEST_OVERHEAD + MESSAGE_OVERHEAD * len(texts))

    def learn_reply(self, model: str, text: str, completion_tokens: int) -> None:
        """The provider counted `completion_tokens` for a reply of this text (and reasoning)."""
        self.learn(model, script_counts(text), completion_tokens)
