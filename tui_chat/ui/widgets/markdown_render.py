"""Rich Markdown for finished messages and the pieces of a long reply: code blocks as
one highlighted Text (cached, unless the block reaches the end of the text: there it may be
the live reply's tail, a fence still growing, drawn once per append and never again). A piece
is drawn with what it must know of the text around it (piece_context.PieceContext): its code
block numbers, the seam above it, the link definitions of the whole. Kept apart from
message_view so that Rich's Markdown, Pygments and markdown-it are imported when the first
Markdown is drawn, not at start-up."""

from __future__ import annotations

import functools
import threading

from cachetools import LRUCache, cached
from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock as RichCodeBlock
from rich.markdown import Markdown as RichMarkdown
from rich.markdown import MarkdownElement, TableElement
from rich.padding import Padding
from rich.style import Style as RichStyle
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.strip import Strip

from tui_chat.ui.colour_roles import syntax_theme
from tui_chat.ui.widgets.piece_context import WHOLE, PieceContext, markdown_env
from tui_chat.ui.widgets.reading_column import reading_elements


class _CodeBlock(RichCodeBlock):
    """Rich's code block, drawn as one highlighted Text in a padded box: the same look,
    about three times cheaper than `Syntax` for long replies (which lays out line by line).
    Its number (`[n]`, for `y` then n: see code_blocks) sits at the right of its top row."""

    number: int | None = None
    """Shown in the top row; None for none (a fence continued from the piece before)."""

    keep = True
    """Whether its highlighting goes to the cache (see the module doc)."""

    @classmethod
    def create(cls, markdown: RichMarkdown, token: Token) -> _CodeBlock:
        block = cls((token.info or "").partition(" ")[0] or "text", markdown.code_theme)
        if isinstance(markdown, _Markdown):
            block.number = markdown.next_code_number()
            if token.map:
                block.keep = token.map[1] < markdown.content_lines
        return block

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        text = (highlighted(code, self.lexer_name, str(self.theme)) if self.keep
                else _highlight(code, self.lexer_name, str(self.theme)))
        background = (Syntax.get_theme(syntax_theme(str(self.theme))).get_background_style()
                      or RichStyle())
        if self.number is None:
            yield Padding(text, 1, style=background, expand=True)
            return
        label = Text(f"[{self.number}]", style=background + RichStyle(dim=True),
                     justify="right", no_wrap=True, overflow="crop")
        yield Padding(label, (0, 1), style=background, expand=True)
        yield Padding(text, (0, 1, 1, 1), style=background, expand=True)


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
    text = Syntax(code, lexer, theme=syntax_theme(theme), word_wrap=True).highlight(code)
    text.rstrip()
    return text


class _Table(TableElement):
    """Rich's table without its edge: no blank row above and below it (one blank row around
    it, as around any block, not two) and its text in line with the paragraphs'."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for part in super().__rich_console__(console, options):
            if isinstance(part, Table):
                part.show_edge = False
            yield part


class _Seam(MarkdownElement):
    """The blocks above a piece, drawn in the pieces before it: nothing, but it asks for a
    blank row before the piece's first block, as they would in the whole text."""

    new_line = True


SEAM = "tui_chat_seam"
"""The token standing for the blocks above a piece (see _Seam)."""


class _Markdown(RichMarkdown):
    """Rich's Markdown with our code blocks, numbered from the context's `first` on each
    drawing, and tables without their edge (`_markdown_class` adds prose at a reading
    width); a piece of a longer text drawn as in the whole (see PieceContext)."""

    elements = {**RichMarkdown.elements, "table_open": _Table, "fence": _CodeBlock,
                "code_block": _CodeBlock, SEAM: _Seam}

    def __init__(self, text: str, *, code_theme: str,
                 context: PieceContext = WHOLE) -> None:
        # Rich's Markdown.__init__, but with one parser for every drawing: Rich makes a new
        # MarkdownIt for each (0.5 ms, seven times the parse of a paragraph; a long reply is
        # drawn in hundreds of pieces). The test of this module holds the attributes to Rich's.
        self.markup = text
        self.parsed = _parser().parse(text, markdown_env(context.references))
        if context.after_block:
            self.parsed.insert(0, Token(SEAM, "", 0))
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = False
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme
        self._first_code = context.first
        self._continues_code = context.continues
        self._next_code = context.first

    @functools.cached_property
    def content_lines(self) -> int:
        """Lines of the text up to its last one that is not blank."""
        return self.markup.rstrip().count("\n") + 1


    def next_code_number(self) -> int | None:
        number = self._next_code
        self._next_code += 1
        return None if self._continues_code and number == self._first_code else number

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self._next_code = self._first_code  # each drawing (each width) counts afresh
        yield from super().__rich_console__(console, options)


@functools.cache
def _parser() -> MarkdownIt:
    """The Markdown parser, as Rich's Markdown makes it (its parse keeps no state between
    two texts: drawing threads share it)."""
    return MarkdownIt().enable("strikethrough").enable("table")


def markdown_renderable(text: str, code_theme: str, *,
                        context: PieceContext = WHOLE,
                        reading_width: int | None = None) -> RichMarkdown:
    """Rich Markdown for untrusted text: links shown as text (URL), never as hyperlinks.
    Drawn as a piece of a longer text with `context` (see PieceContext): its code blocks
    numbered from `context.first`, and so on. Prose wraps at `reading_width` cells (None:
    the width it is given)."""
    return _markdown_class(reading_width or 0)(text, code_theme=code_theme, context=context)


def markdown_rows(text: str, console: Console, options: ConsoleOptions, *, code_theme: str,
                  context: PieceContext = WHOLE, reading_width: int | None = None
                  ) -> list[Strip]:
    """The rows of Markdown `text` drawn with `context` (see markdown_renderable) for
    `options.max_width`; none for blank text (any thread)."""
    if not text.strip():
        return []
    renderable = markdown_renderable(text, code_theme, context=context,
                                     reading_width=reading_width)
    return [Strip(line) for line in console.render_lines(renderable, options, pad=False)]


@functools.cache
def _markdown_class(reading_width: int) -> type[_Markdown]:
    """_Markdown with its prose no wider than `reading_width` (0: as wide as it is given)."""
    if not reading_width:
        return _Markdown
    elements = {**_Markdown.elements, **reading_elements(reading_width)}
    return type(f"_Markdown{reading_width}", (_Markdown,), {"elements": elements})
