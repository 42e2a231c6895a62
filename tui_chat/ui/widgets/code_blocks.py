"""The code blocks of a Markdown text, in the order the view numbers them.

A finished reply shows a small `[n]` at the top right of each code block (fenced or
indented; drawn by markdown_render), counted in this order, so that in message mode `y`
copies the last block at once and a number typed right after it copies block n instead. The
parser is the one Rich's Markdown uses, so the count is the same as the blocks drawn.
"""

from __future__ import annotations

import functools
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
    """How many code blocks `markdown` holds (when drawn alone)."""
    return len(code_blocks(markdown))
