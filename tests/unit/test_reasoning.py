from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tui_chat.core.reasoning import ReasoningSplitter


def split(*pieces: str) -> tuple[str, str]:
    splitter = ReasoningSplitter()
    out = [pair for piece in pieces for pair in splitter.feed(piece)] + splitter.flush()
    reasoning = "".join(text for is_reasoning, text in out if is_reasoning)
    content = "".join(text for is_reasoning, text in out if not is_reasoning)
    return reasoning, content


def test_plain_content_passes_through() -> None:
    assert split("Hello ", "world") == ("", "Hello world")


def test_think_tags_at_start_become_reasoning() -> None:
    assert split("<think>plan it</think>\n\nAnswer.") == ("plan it", "Answer.")


def test_thinking_tags_from_sutra_r0() -> None:
    assert split("<thinking>सोचना</thinking>उत्तर") == ("सोचना", "उत्तर")


def test_tags_split_across_chunks() -> None:
    assert split("<th", "ink>a", "b</th", "ink>", "c") == ("ab", "c")


def test_leading_whitespace_before_tag() -> None:
    assert split("\n ", "<think>x</think>y") == ("x", "y")


def test_tag_later_in_content_is_content() -> None:
    assert split("Use <think> tags") == ("", "Use <think> tags")


def test_unclosed_reasoning_is_kept_as_reasoning() -> None:
    assert split("<think>still going") == ("still going", "")


def test_text_that_looks_like_a_partial_tag_is_released() -> None:
    assert split("<t", "able>") == ("", "<table>")


@given(cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=10),
       tag=st.sampled_from(["think", "thinking"]))
def test_any_split_gives_the_same_result(cuts: list[int], tag: str) -> None:
    text = f"<{tag}>Reason: 1 < 2 and </{tag[:3]} is not a tag.</{tag}>\n\nThe answer </{tag}> 42."
    points = sorted({c % (len(text) + 1) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    assert split(*pieces) == (
        f"Reason: 1 < 2 and </{tag[:3]} is not a tag.", f"The answer </{tag}> 42."
    )
