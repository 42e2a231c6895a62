"""Untrusted text as Textual `Content` with search matches highlighted by span, never markup."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textual.content import Content

from tui_chat.core.text import one_line

MATCH_STYLE = "bold reverse"


def find_terms(text: str, terms: Sequence[str]) -> list[tuple[int, int]] | None:
    """Spans of the first occurrence of every term in `text` (case-insensitive, terms already
    case-folded), or None when one of them is missing."""
    folded = text.casefold()
    spans: list[tuple[int, int]] = []
    for term in terms:
        at = folded.find(term)
        if at < 0:
            return None
        spans.append((at, at + len(term)))
    return spans


def highlighted_content(text: str, spans: Iterable[tuple[int, int]], *, style: str = "",
                        limit: int = 200) -> Content:
    """One safe line of `text` with `spans` styled, as a Textual `Content` (cheap for long
    virtual lists). `text` is made one line first; the spans are kept only when that leaves
    their offsets pointing at the same characters (no control characters or whitespace runs
    before them)."""
    line = one_line(text, limit)
    kept = line[:-1] if line != text and line.endswith("…") else line
    content = Content(line).stylize(style) if style else Content(line)
    if text.startswith(kept):
        for start, end in spans:
            if 0 <= start < end <= len(kept):
                content = content.stylize(MATCH_STYLE, start, end)
    return content


def around_first_match(text: str, spans: Sequence[tuple[int, int]], width: int,
                       before: int = 8) -> tuple[str, list[tuple[int, int]]]:
    """Cut one-line `text` to `width` characters so that the first match shows, with the
    spans moved to match. Text that fits, or has no match, is returned as it is."""
    if len(text) <= width or not spans:
        return text, list(spans)
    first = min(start for start, _ in spans)
    start = max(0, min(first - before, len(text) - width + 1))
    if start == 0:
        return text, list(spans)
    cut = "…" + text[start + 1:]
    shift = start
    return cut, [(a - shift, b - shift) for a, b in spans if a - shift >= 1]
