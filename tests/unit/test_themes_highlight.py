"""Search highlights: spans stay on the matched characters when text is cut to fit."""

from __future__ import annotations

from tui_chat.ui.highlight import MATCH_STYLE, around_first_match, find_terms, highlighted_content


def test_find_terms_needs_every_term() -> None:
    assert find_terms("DeepSeek-R1", ["deep", "r1"]) == [(0, 4), (9, 11)]
    assert find_terms("DeepSeek-R1", ["deep", "qwen"]) is None


def test_highlighted_styles_spans_and_never_parses_markup() -> None:
    text = highlighted_content("[b]x[/] दिल्ली", [(8, 14)], style="bold")
    assert text.plain == "[b]x[/] दिल्ली"
    assert (8, 14, MATCH_STYLE) in [(s.start, s.end, str(s.style)) for s in text.spans]


def test_highlighted_drops_spans_when_cleaning_moved_the_text() -> None:
    text = highlighted_content("a\x1b[2Jmatch", [(5, 10)])
    assert text.plain == "a[2Jmatch"
    assert not [s for s in text.spans if str(s.style) == MATCH_STYLE]


def test_around_first_match_keeps_the_match_visible() -> None:
    snippet = "x" * 50 + " नमस्ते दिल्ली " + "y" * 50
    at = snippet.index("दिल्ली")
    cut, spans = around_first_match(snippet, [(at, at + 6)], 30)
    assert cut.startswith("…")
    assert [cut[a:b] for a, b in spans] == ["दिल्ली"]
    shown = highlighted_content(cut, spans, limit=30)
    assert any(shown.plain[s.start:s.end] == "दिल्ली" for s in shown.spans)
    assert around_first_match("short", [(0, 2)], 30) == ("short", [(0, 2)])
