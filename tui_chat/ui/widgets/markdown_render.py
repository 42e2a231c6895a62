"""Rich Markdown for finished messages and the settled parts of a live reply: code blocks as
one highlighted Text (cached, unless the block reaches the end of the text: there it may be
the live reply's tail, a fence still growing, drawn once per append and never again). Kept
apart from message_view so that Rich's Markdown, Pygments
and markdown-it are imported when the first Markdown is drawn, not at start-up."""

from __future__ import annotations

import functools
import threading
from typing import Any

from cachetools import LRUCache, cached
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock as RichCodeBlock
from rich.markdown import Markdown as RichMarkdown
from rich.padding import Padding
from rich.style import Style as RichStyle
from rich.syntax import Syntax
from rich.text import Text


class _CodeBlock(RichCodeBlock):
    """Rich's code block, drawn as one highlighted Text in a padded box: the same look,
    about three times cheaper than `Syntax` for long replies (which lays out line by line)."""

    keep = True
    """Whether its highlighting goes to the cache (see the module doc)."""

    @classmethod
    def create(cls, markdown: RichMarkdown, token: Any) -> _CodeBlock:
        block = cls((token.info or "").partition(" ")[0] or "text", markdown.code_theme)
        if isinstance(markdown, _Markdown) and token.map:
            block.keep = token.map[1] < markdown.content_lines
        return block

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        text = (highlighted(code, self.lexer_name, str(self.theme)) if self.keep
                else _highlight(code, self.lexer_name, str(self.theme)))
        background = Syntax.get_theme(self.theme).get_background_style()
        yield Padding(text, 1, style=background or RichStyle(), expand=True)


def highlighted(code: str, lexer: str, theme: str) -> Text:
    """Highlighted `code` (a copy: Text is mutable). Cached, so the blocks drawn while a reply
    streams, or on an earlier page of a conversation, are not lexed again."""
    return _highlighted(code, lexer, theme).copy()


CODE_BUDGET = 16 * 2**20
"""Bytes (text_bytes) of highlighted code blocks kept. Bounded by size, not by count (it was
512 blocks, whatever their length): the settled pieces of a long fence and the fence whole
are each a block."""
SPAN_BYTES = 170
"""A highlighted span: its tuple, its place in the list and its style (measured with
tracemalloc on Python code: tests/ui/test_line_cache.py)."""


def text_bytes(text: Text) -> int:
    """About how much memory a highlighted `text` holds."""
    return 50 + len(text.plain) + SPAN_BYTES * len(text.spans)


@cached(LRUCache(CODE_BUDGET, getsizeof=text_bytes), lock=threading.Lock())
def _highlighted(code: str, lexer: str, theme: str) -> Text:
    return _highlight(code, lexer, theme)


def _highlight(code: str, lexer: str, theme: str) -> Text:
    text = Syntax(code, lexer, theme=theme, word_wrap=True).highlight(code)
    text.rstrip()
    return text


class _Markdown(RichMarkdown):
    elements = {**RichMarkdown.elements, "fence": _CodeBlock, "code_block": _CodeBlock}

    @functools.cached_property
    def content_lines(self) -> int:
        """Lines of the text up to its last one that is not blank."""
        return self.markup.rstrip().count("\n") + 1


def markdown_renderable(text: str, code_theme: str) -> RichMarkdown:
    """Rich Markdown for untrusted text: links shown as text (URL), never as hyperlinks."""
    return _Markdown(text, code_theme=code_theme, hyperlinks=False)
