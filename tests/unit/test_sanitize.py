"""`sanitize`: what a terminal would act on is dropped (C0 and C1 controls but tab and line
feed, DEL, the bidi overrides and isolates); CR and CRLF become LF; everything else stays."""

from hypothesis import given
from hypothesis import strategies as st

from tui_chat.core.text import sanitize

_DROPPED = {*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F, *range(0x80, 0xA0),
            *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def _by_rule(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "".join(character for character in text if ord(character) not in _DROPPED)


@given(st.text(alphabet=st.one_of(st.characters(), st.sampled_from(
    ["\r", "\n", "\t", "\x1b", "\x7f", "\x85", "\u202e", "\u2066", "\u200d", "ि"]))))
def test_sanitize_drops_exactly_what_a_terminal_acts_on(text: str) -> None:
    assert sanitize(text) == _by_rule(text)


def test_text_with_nothing_to_drop_is_the_same_text() -> None:
    text = "परीक्षण **bold** `code`\n\tindented 👩‍💻"
    assert sanitize(text) is text
