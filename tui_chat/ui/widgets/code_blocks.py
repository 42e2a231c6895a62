"""The code blocks of a Markdown text, in the order the view numbers them.

A finished reply shows a small `[n]` at the top right of each code block (fenced or
indented; drawn by markdown_render), counted in this order, so that in message mode `y`
copies the last block at once and a number typed right after it copies block n instead. The
parser is the one Rich's Markdown uses, so the count is the same as the blocks drawn.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # markdown-it is imported with the first Markdown drawn, not at start-up
    from markdown_it import MarkdownIt


@functools.cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt().enable("strikethrough").enable("table")  # as rich.markdown


def code_blocks(markdown: str) -> list[str]:
    """The bodies of the code blocks of `markdown`, in order."""
    return [token.content for token in _parser().parse(markdown)
            if token.type in ("fence", "code_block")]


def count_code_blocks(markdown: str) -> int:
    """How many code blocks `markdown` holds (when drawn alone). Counted by its fences when
    nothing else in it may be a code block (the live reply counts every piece it settles:
    parsing them all was a tenth of a long reply's cost); else as `code_blocks` finds them."""
    counted = _count_fences(markdown)
    return counted if counted is not None else len(code_blocks(markdown))


FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
"""A line that may open (or close) a code fence; group 1 is the fence itself. It opens one
only as `opening_fence` says."""


def opening_fence(line: str) -> str | None:
    """The fence `line` opens, if it opens one as CommonMark says (outside a fence, not
    indented for code): three backticks or tildes or more, but a backtick fence's info
    string holds no backtick: ```` ```print()``` prints ```` is a paragraph with inline
    code, not a fence."""
    match = FENCE.match(line)
    if match is None:
        return None
    fence = match.group(1)
    if fence[0] == "`" and "`" in line[match.end():]:
        return None
    return fence


def closes_fence(fence: str, line: str) -> bool:
    """Whether `line` closes a code block opened by `fence` (the same character, at least as
    many of them, nothing after but blanks)."""
    match = FENCE.match(line)
    return bool(match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence)
                and not line[match.end():].strip())
_MAYBE_CODE = re.compile(r"(?: {4}|\t| {0,3}>| {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)"
                         r"|.*(?:```|~~~))")
"""Outside a fence, a line that may start or hold another code block, or change what the
fences below it are: indented (code), quoted, a list item, a fence further in."""


def _count_fences(markdown: str) -> int | None:
    """The fenced code blocks of `markdown` if they are its only code blocks, at the top
    level; None when some line leaves that in doubt."""
    count = 0
    fence: str | None = None
    for line in markdown.splitlines():
        if fence is not None:
            if closes_fence(fence, line):
                fence = None
        elif (opened := opening_fence(line)) is not None:
            fence, count = opened, count + 1
        elif _MAYBE_CODE.match(line):
            return None  # inline code (a line of backticks but no fence) is one of these
    return count
