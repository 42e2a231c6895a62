"""What a piece of a reply, drawn alone, must know of the text around it to draw its rows
of the whole.

A long reply is drawn in pieces cut between its top-level blocks (live_text, pieced_message):
each piece is drawn alone, and the pieces' rows joined are the rows of the whole text. Drawn
alone, a piece differs from its part of the whole in three ways, which its `PieceContext`
carries into its drawing (markdown_render):

- Code block numbers (`first`, `continues`): its blocks are numbered after those above it;
  the first one continues a fence the piece before left open (it keeps that number and
  shows none; see live_text).
- The seam (`after_block`): Rich's Markdown puts a blank row before a block when the
  element before it asks for one: every block does but a thematic break (which draws its
  own blank row below it), an HTML block too, though it draws nothing. Lists, quotes and
  tables ask for their own. So a piece is drawn as after the blocks above it, and the rows
  are joined as they come, with no rule at the seam (`after_blocks` says what a piece
  leaves for the next).
- Link reference definitions (`references`): `[the guide][1]` is a link when `[1]: https://…`
  is defined anywhere in the whole text, before it or after it. A piece is drawn with the
  definitions of the text so far whose labels it holds (`references_for`); when those
  change, it is drawn again (LiveText does that when a definition arrives).

Kept free of Rich; markdown-it is imported when a piece holds a definition or ends with
what may be a thematic break.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, NamedTuple

from tui_chat.ui.widgets.code_blocks import count_code_blocks

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

Definitions = dict[str, tuple[str, str]]
"""Link reference definitions: normalized label -> (href, title), the first one of a label
in the text."""
References = tuple[tuple[str, str, str], ...]
"""The definitions a piece uses, as (label, href, title), sorted (comparable, hashable)."""


class PieceContext(NamedTuple):
    """How a piece is drawn (see the module doc): its code blocks numbered from `first`,
    the first continuing the piece before's (`continues`); after a block that asks for a
    blank row (`after_block`); with the link `references` of the whole text it uses."""

    first: int = 1
    continues: bool = False
    after_block: bool = False
    references: References = ()


WHOLE = PieceContext()
"""The context of a text drawn whole (or of the first piece of one)."""

_DEFINITION = "]:"
"""In every link reference definition (the label's end), so in any text holding one."""
_MAYBE_BREAK = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
"""A line that may be a thematic break (or a setext heading's underline, or a list item)."""


def definitions(text: str) -> Definitions:
    """The link reference definitions of Markdown `text` (parsed only if it may hold one)."""
    if _DEFINITION not in text:
        return {}
    return _parsed(text)[1]


def merged(first: Definitions, then: Definitions) -> Definitions:
    """The definitions of a text made of the text of `first` and, after it, of `then`: the
    first definition of a label wins."""
    if not then:
        return first
    return {**then, **first}


def references_for(text: str, found: Definitions) -> References:
    """The definitions of `found` whose label `text` holds in brackets, as its references:
    those its links may use (`[text][label]`, `[label][]`, `[label]`; a label matches as
    CommonMark compares them: case and runs of blanks aside)."""
    if not found or "[" not in text:
        return ()
    from markdown_it.common.utils import normalizeReference

    held = normalizeReference(text)
    return tuple(sorted((label, href, title) for label, (href, title) in found.items()
                        if label in held and _bracketed(label).search(held)))


@functools.lru_cache(maxsize=256)
def _bracketed(label: str) -> re.Pattern[str]:
    return re.compile(r"\[ ?" + re.escape(label) + r" ?\]")


def after_blocks(text: str, before: bool) -> bool:
    """Whether a piece of Markdown `text` ends with a block that asks for a blank row
    before the next (see the module doc); `before`, what the text above it left, when it
    has no block (blank, or link definitions only)."""
    if not text.strip():
        return before
    last = text.rstrip().rsplit("\n", 1)[-1]
    if _DEFINITION not in text and not _MAYBE_BREAK.fullmatch(last):
        return True
    tokens = _parsed(text)[0]
    if not tokens:
        return before
    return tokens[-1].type != "hr"


def next_context(text: str, context: PieceContext, *, fence_open: bool = False
                 ) -> PieceContext:
    """The context of the piece after Markdown `text`, drawn with `context` (without its
    references: see references_for); `fence_open`: `text` ends inside a fence that the next
    piece goes on with (the seam is then the fence's: see piece_rows)."""
    blocks = count_code_blocks(text)
    if fence_open:
        return PieceContext(context.first + blocks - 1, True, False)
    return PieceContext(context.first + blocks, False, after_blocks(text, context.after_block))


def markdown_env(references: References) -> dict[str, object]:
    """markdown-it's `env` for parsing a piece: its references, as if it had defined them
    (a piece's own definition of a label comes after the one given, or is the same)."""
    if not references:
        return {}
    return {"references": {label: {"href": href, "title": title, "map": [0, 0]}
                           for label, href, title in references}}


@functools.cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt().enable("strikethrough").enable("table")  # as rich.markdown


@functools.lru_cache(maxsize=8)
def _parsed(text: str) -> tuple[list[Token], Definitions]:
    """The tokens and definitions of `text` (kept a while: a piece holding a definition is
    asked for both; the tokens are only read)."""
    env: dict[str, dict[str, dict[str, str]]] = {}
    tokens = _parser().parse(text, env)
    found = {label: (entry["href"], entry["title"])
             for label, entry in env.get("references", {}).items()}
    return tokens, found
