"""A long finished reply drawn by pieces when read (see piece_rows), as the live reply is.

A reply streamed in this session shares the live reply's pieces (reply_view.finished_lines).
One read from the store was drawn whole: opening a conversation that ends with a 20,000-chunk
reply drew all its 8,000 rows before the first frame, and a resize drew them all again on
the event loop. A reply of message_view.PIECED_CHARS or more is cut between its blocks as the
live reply's text settles, and the pieces near its end are drawn at once; the rest when
read. Kept apart from message_view so that
Rich's Markdown is imported when the first one is drawn, not at start-up.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, Group, RenderableType
from textual.strip import Strip

from tui_chat.core.text import sanitize
from tui_chat.ui.widgets.live_text import EAGER_ROWS, PIECE_CHARS, block_pieces
from tui_chat.ui.widgets.markdown_render import markdown_rows
from tui_chat.ui.widgets.piece_context import (
    Definitions,
    PieceContext,
    definitions,
    merged,
    next_context,
    references_for,
)
from tui_chat.ui.widgets.piece_rows import ChainRows, Piece, PieceRows, estimate_markdown_rows


def pieced_rows(content: str, above: list[RenderableType], below: list[RenderableType],
                console: Console, options: ConsoleOptions, *, code_theme: str,
                reading_width: int | None, piece_chars: int = PIECE_CHARS) -> ChainRows:
    """The rows of a reply whose text is `content` (Markdown, sanitized here) between the
    rows of `above` and `below`, for `options.max_width`; its text cut at its blocks into
    pieces of about `piece_chars`, drawn when read, but for about EAGER_ROWS at its end
    (any thread). Each piece is drawn in its context (see piece_context), so the rows are
    the whole text's."""
    width = options.max_width

    def draw(text: str, at: int, context: PieceContext) -> list[Strip]:
        return markdown_rows(text, console, options.update_width(max(1, at)),
                             code_theme=code_theme, context=context,
                             reading_width=reading_width)

    rows = PieceRows(draw, width,
                     estimate=lambda text, at: estimate_markdown_rows(text, at, reading_width))
    texts = block_pieces(sanitize(content), piece_chars)
    found: Definitions = {}
    for text in texts:
        found = merged(found, definitions(text))
    pieces: list[Piece] = []
    context = PieceContext()
    for text in texts:
        pieces.append(Piece(text, False, context._replace(
            references=references_for(text, found))))
        context = next_context(text, context)
    rows.replace_from(0, pieces)
    rows.draw_tail_rows(EAGER_ROWS)
    return ChainRows(_drawn(above, console, options), rows, _drawn(below, console, options))


def _drawn(parts: list[RenderableType], console: Console, options: ConsoleOptions
           ) -> list[Strip]:
    if not parts:
        return []
    return [Strip(line) for line in console.render_lines(Group(*parts), options, pad=False)]
