"""LiveText: streamed text drawn piece by piece gives the rows the whole text would."""

from __future__ import annotations

import io
import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text
from textual.strip import Strip

from tui_chat.ui.widgets.live_text import (
    FENCE_LINES,
    LiveText,
    Split,
    markdown_text,
    split_lines,
)
from tui_chat.ui.widgets.markdown_render import markdown_rows
from tui_chat.ui.widgets.piece_context import PieceContext

CONSOLE = Console(file=io.StringIO(), width=200, color_system="truecolor")


WHOLE = PieceContext()


def draw_markdown(text: str, width: int, context: PieceContext = WHOLE) -> list[Strip]:
    return markdown_rows(text, CONSOLE, CONSOLE.options.update_width(width),
                         code_theme="monokai", context=context)


def markdown_live() -> LiveText:
    """A LiveText of Markdown as the live reply's, but every piece drawn as it settles."""
    return markdown_text(draw_markdown, None)


def draw_plain(text: str, width: int, _context: PieceContext = WHOLE) -> list[Strip]:
    if not text:
        return []
    options = CONSOLE.options.update_width(width)
    return [Strip(line) for line in
            CONSOLE.render_lines(Text(text.removesuffix("\n")), options, pad=False)]


def rows(lines: list[Strip]) -> list[tuple[str, int]]:
    """Each row's text and width in cells (an empty row is not the same as a blank one)."""
    return [(line.text.rstrip(), line.cell_length) for line in lines]


def streamed(live: LiveText, text: str, cuts: list[int], width: int) -> LiveText:
    """`text` fed to `live` in the pieces `cuts` makes, one append each."""
    bounds = [0, *sorted({c % (len(text) + 1) for c in cuts}), len(text)]
    for start, end in itertools.pairwise(bounds):
        if end > start:
            live.take(live.prepare(text[start:end], width))
    return live


ANSWER = ("Intro with **bold** and `code` that wraps over the narrow width we draw at.\n\n"
          "- a tight list\n- of two items\n\n> a quote\n\n1. a loose\n\n2. ordered list\n\n"
          "    indented code\n\n    more of it\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
          "## A heading\n\n---\n\n"
          "```python\n" + "".join(f"value_{i} = compute({i})\n" for i in range(FENCE_LINES + 12))
          + "```\n\n* closing\n* list\n\n~~~sh\nls -l\n~~~\n\nA closing paragraph.\n\n"
          "Last words")


def labels(lines: list[Strip]) -> list[str]:
    return [line.text.strip() for line in lines if re.fullmatch(r"\[\d+\]", line.text.strip())]


def test_code_blocks_are_numbered_across_pieces_as_in_the_whole() -> None:
    """The long fence (cut in two pieces: its second piece shows no number) and the fence
    after it: [1] [2], streamed as drawn whole. (ANSWER's indented lines belong to the loose
    list above them: no code block.)"""
    assert labels(draw_markdown(ANSWER, 40)) == ["[1]", "[2]"]
    cut_in_the_fence = ANSWER.index("value_50")
    live = streamed(markdown_live(), ANSWER, [cut_in_the_fence, len(ANSWER) - 3], 40)
    first, second, _tail = live.rows.pieces
    assert first.fence_open and not second.fence_open
    assert (first.context, second.context) == (PieceContext(1, False), PieceContext(1, True))
    assert labels(live.lines) == ["[1]", "[2]"]
    assert rows(live.lines) == rows(draw_markdown(ANSWER, 40))


def test_split_lines_settles_every_complete_line() -> None:
    assert split_lines("one\ntwo\nthr") == Split("one\ntwo\n", "thr", fence_open=False)
    assert split_lines("no newline yet") is None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(ANSWER)), max_size=30))
def test_markdown_streamed_in_any_pieces_draws_the_rows_of_the_whole(cuts: list[int]) -> None:
    """Paragraphs, lists (tight and loose), a quote, indented code, a table, a heading, a rule
    and a fence long enough to be cut in two: the same rows, no seam."""
    live = streamed(markdown_live(), ANSWER, cuts, 40)
    assert live.source == ANSWER
    assert rows(live.lines) == rows(draw_markdown(ANSWER, 40))


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="ab \nनमस्ते", max_size=300),
       st.lists(st.integers(min_value=0, max_value=300), max_size=20))
def test_plain_text_streamed_in_any_pieces_draws_the_rows_of_the_whole(
        text: str, cuts: list[int]) -> None:
    live = streamed(LiveText(draw_plain, split_lines, markdown=False), text, cuts, 12)
    assert rows(live.lines) == rows(draw_plain(text, 12))


def test_a_long_fence_closed_right_after_it_was_split_adds_no_row() -> None:
    """The CI flake of the finished-rows test: a long fence split just after a complete line,
    then the closing fence and a paragraph in one append, drew one padding row too many."""
    text = ("Intro.\n\n```python\n" + "".join(f"value_{i} = {i}\n" for i in range(60))
            + "```\n\nDone.")
    cut = text.index("```\n\nDone.")
    live = streamed(markdown_live(), text, [cut], 60)
    assert rows(live.lines) == rows(draw_markdown(text, 60))


def test_redraw_at_a_new_width_gives_the_rows_drawn_at_that_width() -> None:
    live = streamed(markdown_live(), ANSWER,
                    list(range(0, len(ANSWER), 97)), 40)
    live.redraw(70)
    assert live.width == 70
    assert rows(live.lines) == rows(draw_markdown(ANSWER, 70))


def test_an_append_drawn_for_an_old_width_is_drawn_again_for_the_new() -> None:
    live = markdown_live()
    live.take(live.prepare("First paragraph.\n\nSecond", 40))
    drawn = live.prepare(" paragraph, drawn at 40 then taken at 30.", 40)
    live.redraw(30)  # a resize while the append was drawn in its thread
    live.take(drawn)
    text = "First paragraph.\n\nSecond paragraph, drawn at 40 then taken at 30."
    assert rows(live.lines) == rows(draw_markdown(text, 30))


def test_lines_for_another_width_leaves_the_shown_lines_alone() -> None:
    live = streamed(markdown_live(), ANSWER,
                    list(range(0, len(ANSWER), 131)), 40)
    shown = live.lines
    assert rows(live.lines_for(70)) == rows(draw_markdown(ANSWER, 70))
    assert live.lines is shown and live.width == 40
    assert live.lines_for(40) is shown
