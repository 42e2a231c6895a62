"""Rich Markdown for finished messages and the settled parts of a live reply: code blocks as
one highlighted Text (cached). Kept apart from message_view so that Rich's Markdown, Pygments
and markdown-it are imported when the first Markdown is drawn, not at start-up."""

from __future__ import annotations

import threading

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

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = highlighted(str(self.text).rstrip(), self.lexer_name, str(self.theme))
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
    text = Syntax(code, lexer, theme=theme, word_wrap=True).highlight(code)
    text.rstrip()
    return text


class _Markdown(RichMarkdown):
    elements = {**RichMarkdown.elements, "fence": _CodeBlock, "code_block": _CodeBlock}


def markdown_renderable(text: str, code_theme: str) -> RichMarkdown:
    """Rich Markdown for untrusted text: links shown as text (URL), never as hyperlinks."""
    return _Markdown(text, code_theme=code_theme, hyperlinks=False)
