"""The reading width: message text wraps at a measure a reader can follow, on any terminal.

On a wide terminal a paragraph drawn across 190 columns is hard to read (the eye loses the
next line). Settings' `reading_width` (config.toml; 0: the whole width) caps the width of the
blocks read as prose: paragraphs, headings, lists, quotes and rules (here), the plain text of
user messages, reasoning and errors (message_view's `capped`). Blocks whose width is their
content's are not capped:

- a table takes the width its columns need, up to the pane's (squeezed to the reading width,
  a wide table wraps every cell into a tall column of fragments);
- a code block keeps the pane's width: a code line wrapped is misread, and a box whose width
  followed its longest line would change width between the pieces of a long fence streamed
  in pieces (see live_text).

The messages themselves stay as wide as the pane: headers, bars and backgrounds line up
whatever each message holds. Imported with Rich's Markdown (markdown_render), not at start-up.
"""

from __future__ import annotations

import functools

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import (
    BlockQuote,
    Heading,
    HorizontalRule,
    ListElement,
    MarkdownElement,
    Paragraph,
)
from rich.segment import Segment


class _ReadingWidth(MarkdownElement):
    """A Markdown block drawn no wider than `reading_width` (set by `reading_elements`)."""

    reading_width = 0

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = self.reading_width
        if not width or options.max_width <= width:
            yield from super().__rich_console__(console, options)
            return
        # What the block yields is drawn at the narrow width too (Rich would draw it at the
        # width given to the Markdown).
        narrow = options.update_width(width)
        for part in super().__rich_console__(console, narrow):
            if isinstance(part, Segment):
                yield part
            else:
                yield from console.render(part, narrow)


PROSE: dict[str, type[MarkdownElement]] = {
    "paragraph_open": Paragraph,
    "heading_open": Heading,
    "blockquote_open": BlockQuote,
    "hr": HorizontalRule,
    "bullet_list_open": ListElement,
    "ordered_list_open": ListElement,
}
"""Rich Markdown's elements for the blocks read as prose."""


@functools.cache
def reading_elements(width: int) -> dict[str, type[MarkdownElement]]:
    """Rich Markdown's `elements` for the prose blocks, drawn no wider than `width` cells
    (classes made once per width)."""
    made: dict[type[MarkdownElement], type[MarkdownElement]] = {}
    for element in PROSE.values():
        if element not in made:
            made[element] = type(f"Read{element.__name__}", (_ReadingWidth, element),
                                 {"reading_width": width})
    return {name: made[element] for name, element in PROSE.items()}
