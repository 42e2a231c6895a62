"""The rows of text of a snapshot SVG, and the rows two snapshots differ in: a snapshot that
fails in CI says what it saw in the failure itself (the HTML report stays on that machine)."""

from __future__ import annotations

import html
import re

_TEXT = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>')


def svg_rows(svg: str) -> dict[float, str]:
    """Each row's text (by its y), its pieces joined left to right."""
    pieces: dict[float, list[tuple[float, str]]] = {}
    for match in _TEXT.finditer(svg):
        x, y = float(match.group(1)), float(match.group(2))
        pieces.setdefault(y, []).append((x, html.unescape(match.group(3))))
    return {y: "".join(text for _, text in sorted(row)).replace("\xa0", " ").rstrip()
            for y, row in pieces.items()}


def row_diff(expected: str, actual: str, limit: int = 12) -> str:
    """The rows whose text differs ("-" expected, "+" seen), at most `limit` pairs; "" when
    the text is the same (the two differ in colour or style only)."""
    old, new = svg_rows(expected), svg_rows(actual)
    lines: list[str] = []
    for y in sorted(set(old) | set(new)):
        if old.get(y, "") != new.get(y, ""):
            lines += [f"- {old.get(y, '')}", f"+ {new.get(y, '')}"]
    if len(lines) > 2 * limit:
        lines = [*lines[:2 * limit], f"… and {len(lines) // 2 - limit} more rows"]
    return "\n".join(lines)
