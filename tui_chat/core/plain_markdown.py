"""Markdown as the plain text it reads as, for one-line snippets (a search hit in the
sidebar, `tui-chat search`): `## Setup` reads "Setup", `**bold**` "bold", `[the docs](url)`
"the docs", `` `code` `` "code"; a fence's marker lines, rules and table separators go. It
is a reading aid, not a parser: what it cannot tell from markup (a lone `*`, `2 * 3`) stays.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")
_DROPPED_LINE = re.compile(r"^\s*(?:[-*_]\s*){3,}$|^\s*\|?(?:\s*:?-+:?\s*\|)+\s*:?-*:?\s*$")
_LEAD = re.compile(r"^\s*(?:>\s?)*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)?")
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_STRONG = re.compile(r"(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")
_CODE = re.compile(r"(`+)(.+?)\1")
_TABLE_BAR = re.compile(r"\s*\|\s*")


def plain_markdown(text: str) -> str:
    """`text` without its Markdown markup, line by line (see the module doc)."""
    lines = []
    in_code = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:  # code is shown as written
            lines.append(line)
            continue
        if _DROPPED_LINE.match(line):
            continue
        line = _LEAD.sub("", line, count=1)
        if line.count("|") >= 2:  # a table row: its cells, spaced
            line = _TABLE_BAR.sub("  ", line).strip()
        line = _IMAGE_OR_LINK.sub(r"\1", line)
        line = _CODE.sub(lambda m: m.group(2).strip(), line)
        line = _STRONG.sub(r"\2", line)
        line = _EMPHASIS.sub(r"\2", line)
        lines.append(line)
    return "\n".join(lines)
