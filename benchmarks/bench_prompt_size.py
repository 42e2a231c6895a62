"""The size shown under a prompt longer than its box (ui/widgets/prompt_input.py), counted on
every key press: a 105,000-character prompt (the start of the Markdown of 20,000 streamed
chunks, with its code blocks and their indentation), 300 keys typed one at a time in its
middle (a word, a new line, indentation, a word), each followed by what
`PromptInput.show_size` counts then:
`TextCounts.update` and its token estimate. Beside it, the whole-text `estimate_tokens` that
each key press ran before. Medians and 95th percentiles, in milliseconds of one key.

Target: ≤ 2 ms a key press. Run: `python -m benchmarks prompt_size`.
"""

from __future__ import annotations

from benchmarks.common import Figure, figure, info, median, report, timer
from benchmarks.textgen import markdown_chunks
from tui_chat.core.tokens import TextCounts, estimate_tokens

KEYS = 300
TYPED = "word \n    indented line " * 20


def prompt_text() -> str:
    return "".join(markdown_chunks(20_000))[:105_000]


def p95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


def run() -> dict[str, Figure]:
    base = prompt_text()
    middle = len(base) // 2
    counts = TextCounts()
    counts.update(base)  # what the prompt had counted before these keys
    incremental, whole = [], []
    for typed in range(1, KEYS + 1):
        text = base[:middle] + TYPED[:typed] + base[middle:]
        began = timer()
        tokens = counts.update(text) and counts.tokens()
        incremental.append((timer() - began) * 1000)
        began = timer()
        expected = estimate_tokens(text)
        whole.append((timer() - began) * 1000)
        assert tokens == expected, (tokens, expected)
    print(f"  {len(base):,} characters, {KEYS} keys typed in the middle", flush=True)
    return {
        "ui.prompt_size_per_key_ms": figure(median(incremental), 2.0, "ms"),
        "ui.prompt_size_per_key_p95_ms": info(p95(incremental), "ms"),
        "ui.prompt_size_whole_text_per_key_ms": info(median(whole), "ms"),
    }


if __name__ == "__main__":
    report("prompt_size", run())
