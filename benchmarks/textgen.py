"""Generated text for the UI benchmarks: streamed replies (the fake provider serves them by
model name, see `scenario`) and stored histories. Deterministic: the same text every run.

Models:
- `bench/markdown-N`: N chunks of Markdown (paragraphs with bold and inline code; a code block
  every 50 chunks) at full loopback speed.
- `bench/fence-N`: one 20,000-character fenced code block in N chunks, full speed.
- `bench/paced-Rps-N`: the Markdown reply of N chunks at about R chunks a second.
"""

from __future__ import annotations

import itertools
import random

PERIOD = 50
"""A code block every PERIOD chunks."""
FENCE_CHARS = 20_000

_WORDS = ("the", "stream", "reply", "model", "token", "answer", "terminal", "window",
          "latency", "provider", "context", "python", "search", "history", "render", "frame")


def _word(i: int) -> str:
    word = _WORDS[(i * 7 + i // 13) % len(_WORDS)]
    if i % 11 == 3:
        return f"**{word}** "
    if i % 13 == 5:
        return f"`{word}_{i % 97}()` "
    return word + " "


def markdown_chunks(count: int) -> list[str]:
    """`count` chunks: in every 50, two paragraphs of 18 chunks, then a 14-chunk code block."""
    chunks: list[str] = []
    for i in range(count):
        position, block = i % PERIOD, i // PERIOD
        if position < 36:
            piece = _word(i)
            if position in (17, 35):
                piece = piece.rstrip() + ".\n\n"
        elif position == 36:
            piece = "```python\n"
        elif position < PERIOD - 1:
            piece = f"    total_{block} = compute({block}, {position}) + 1\n"
        else:
            piece = "```\n\n"
        chunks.append(piece)
    return chunks


def fence_chunks(count: int, chars: int = FENCE_CHARS) -> list[str]:
    """One fenced code block of about `chars` characters, in `count` chunks."""
    lines = (f"    value_{i:05d} = compute({i}, 'abc') * 2  # step\n" for i in itertools.count())
    body = ""
    for line in lines:
        if len(body) >= chars:
            break
        body += line
    inner = count - 2
    size = -(-len(body) // inner)
    pieces = [body[k * size:(k + 1) * size] for k in range(inner)]
    return ["```python\n", *pieces, "```\n"]


def scenario(model: str) -> tuple[list[str], float] | None:
    """(chunks, seconds between frames) for a `bench/...` model name, None if not one."""
    name = model.removeprefix("bench/")
    kind, _, rest = name.partition("-")
    try:
        if kind == "markdown":
            return markdown_chunks(int(rest)), 0.0
        if kind == "fence":
            return fence_chunks(int(rest)), 0.0
        if kind == "paced":
            rate, _, count = rest.partition("ps-")
            return markdown_chunks(int(count)), 1.0 / float(rate)
    except ValueError:
        return None
    return None


def history_text(rng: random.Random, index: int) -> tuple[str, str]:
    """A (user, assistant) pair for stored histories: Markdown, every third one with code."""
    words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 20))]
    user = " ".join(words).capitalize() + "?"
    parts = [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(20, 45))) + ".",
             f"- **{words[0]}** uses `{words[1]}()`\n- then {words[2]} and {words[3]}"]
    if index % 3 == 0:
        parts.append("```python\n" + "\n".join(
            f"def {w}_{index}(x):\n    return x * {k}" for k, w in enumerate(words[:4])) + "\n```")
    parts.append(" ".join(rng.choice(_WORDS) for _ in range(rng.randint(10, 30))) + ".")
    return user, "\n\n".join(parts)
