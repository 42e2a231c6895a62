"""How a streamed reply's text is drawn, apart from the reply's view.

The answer's rows are lazy (piece_rows): a piece is drawn when read, by the function the rows
were made with, long after the reply ended, for the finished view that took them and for the
line cache (message_view.LINES) that keeps them for when their page is shown again. Made with
the reply view's own methods, the rows held the whole view (its text in pieces, its drawn
rows, its widgets) for as long as the cache kept them: about 11 kB a short reply, for good,
in a long conversation (benchmarks/bench_ui_soak.py). This holds only what drawing needs:
the code theme, the reading width (a reply keeps both until it ends) and the app, for its
console.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.text import Text
from textual.strip import Strip

from tui_chat.ui.widgets.markdown_render import markdown_renderable
from tui_chat.ui.widgets.message_view import capped
from tui_chat.ui.widgets.piece_rows import estimate_markdown_rows

if TYPE_CHECKING:
    from textual.app import App

    from tui_chat.ui.widgets.live_text import Numbering


class ReplyDrawing:
    """Draws a reply's answer and reasoning (any thread); `app` is set once it is mounted."""

    __slots__ = ("app", "code_theme", "reading_width")

    def __init__(self, code_theme: str, reading_width: int | None) -> None:
        self.code_theme = code_theme
        self.reading_width = reading_width
        self.app: App[object] | None = None

    def rows(self, renderable: RenderableType, width: int) -> list[Strip]:
        app = self.app
        assert app is not None, "drawn before the reply view was mounted"
        options = app.console_options.update_width(max(1, width)).update(highlight=False)
        return [Strip(line) for line in app.console.render_lines(renderable, options,
                                                                 pad=False)]

    def estimate(self, text: str, width: int) -> int:
        return estimate_markdown_rows(text, width, self.reading_width)

    def markdown(self, text: str, width: int, numbering: Numbering) -> list[Strip]:
        if not text.strip():
            return []
        return self.rows(markdown_renderable(text, self.code_theme, first_code=numbering.first,
                                             continues_code=numbering.continues,
                                             reading_width=self.reading_width), width)

    def reasoning(self, text: str, width: int, _numbering: Numbering) -> list[Strip]:
        if not text:
            return []
        return self.rows(capped(Text(text.removesuffix("\n"), style="dim italic"),
                                self.reading_width), width)
