"""`TextCounts` (core/tokens.py): the prompt's counts kept piece by piece as it is edited must
be exactly `script_counts` of the whole text, whatever the edits (whitespace runs, where a
newline and the next line's indentation count as one, are what a naive per-line sum gets
wrong)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tui_chat.core.tokens import TextCounts, estimate_tokens, script_counts

# Letters of several scripts, digits, punctuation, every kind of whitespace, a combining mark,
# an emoji: the characters whose classes or runs could straddle a cut.
ALPHABET = "aZ1!  \n\n\t\r\v\fé\u0301я中ｶ😀"
texts = st.text(alphabet=ALPHABET, max_size=60)
edits = st.lists(st.tuples(st.floats(0, 1), st.integers(0, 8), texts), max_size=12)


def edited(text: str, where: float, removed: int, inserted: str) -> str:
    at = round(where * len(text))
    return text[:at] + inserted + text[at + removed:]


@settings(max_examples=400, deadline=None)
@given(texts, edits)
def test_the_counts_after_any_edits_are_those_of_the_whole_text(
        start: str, changes: list[tuple[float, int, str]]) -> None:
    counts = TextCounts()
    text = start
    assert counts.update(text) == script_counts(text)
    for where, removed, inserted in changes:
        text = edited(text, where, removed, inserted)
        assert counts.update(text) == script_counts(text), repr(text)
        assert counts.tokens() == estimate_tokens(text)


def test_lines_typed_one_key_at_a_time_and_a_paste_over_them() -> None:
    counts = TextCounts()
    text = ""
    for key in "def f():\n    return 1\n\n\n    x  = 2\t\n\tdone\r\n":
        text += key
        assert counts.update(text) == script_counts(text)
    text = text[:10] + "\n\n    pasted\n" * 50 + text[10:]
    assert counts.update(text) == script_counts(text)
    assert counts.update("") == {} and counts.tokens() == 0
