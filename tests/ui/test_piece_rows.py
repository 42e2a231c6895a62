"""PieceRows: a long streamed text kept as pieces, drawn when read, gives the rows of the
whole, in any order it is read; only the pieces near the end are drawn as it streams."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from textual.strip import Strip

from benchmarks.textgen import markdown_chunks
from tests.ui.test_live_text import ANSWER, draw_markdown, rows, streamed
from tui_chat.ui.widgets.live_text import LiveText, block_pieces, markdown_text
from tui_chat.ui.widgets.piece_context import PieceContext
from tui_chat.ui.widgets.piece_rows import ChainRows, as_drawn_whole, estimate_markdown_rows

LONG = "".join(f"Paragraph {i} with **bold** and `code` that wraps at the width.\n\n"
               for i in range(120)) + "The end."


class CountedDraw:
    """draw_markdown, counting the pieces drawn."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, text: str, width: int, context: PieceContext) -> list[Strip]:
        self.texts.append(text)
        return draw_markdown(text, width, context)


def lazy_text(draw: CountedDraw | None = None, *, piece_chars: int = 60,
              eager_rows: int = 4) -> LiveText:
    """A LiveText of Markdown as the live reply's, with small pieces, few drawn early."""
    return markdown_text(draw or draw_markdown, estimate_markdown_rows,
                         piece_chars=piece_chars, eager_rows=eager_rows)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(ANSWER)), max_size=30))
def test_lazy_pieces_streamed_in_any_cuts_draw_the_rows_of_the_whole(cuts: list[int]
                                                                      ) -> None:
    live = streamed(lazy_text(), ANSWER, cuts, 40)
    assert live.source == ANSWER
    assert rows(list(live.lines)) == rows(draw_markdown(ANSWER, 40))


@settings(max_examples=30, deadline=None)
@given(st.randoms(use_true_random=False))
def test_rows_read_in_any_order_are_the_rows_of_the_whole(rng: random.Random) -> None:
    """Each read may draw a piece and move the rows below it: what is read last is still
    the whole text's rows, and a row read is the row at that place at that moment."""
    live = streamed(lazy_text(), ANSWER, list(range(0, len(ANSWER), 53)), 40)
    shown = live.lines
    for _ in range(25):
        y = rng.randrange(len(shown))
        row = shown[y]
        assert shown[y] is row  # drawing it did not move it
    assert rows(list(shown)) == rows(draw_markdown(ANSWER, 40))


def test_only_the_pieces_near_the_end_are_drawn_as_it_streams() -> None:
    draw = CountedDraw()
    """Appends longer than a screenful (a fast stream): only their ends are drawn."""
    live = streamed(lazy_text(draw, eager_rows=20), LONG, list(range(0, len(LONG), 2000)),
                    60)
    drawn_early = len(draw.texts)
    shown = live.lines
    early = "".join(draw.texts)
    assert not any(f"Paragraph {i} " in early for i in range(6))  # far from the end
    assert shown.drawn_rows() < len(shown) * 2 // 3
    last_rows = [row.text for row in shown[len(shown) - 20:]]
    assert len(draw.texts) == drawn_early  # the end was drawn already
    assert "The end." in "".join(last_rows)
    assert rows(list(shown)) == rows(draw_markdown(LONG, 60))  # the rest, when read


def test_a_piece_drawn_reports_the_rows_it_moved() -> None:
    live = streamed(lazy_text(eager_rows=1), LONG, list(range(0, len(LONG), 300)), 60)
    moves: list[tuple[int, int]] = []
    live.on_resize = lambda row, delta: moves.append((row, delta))
    shown = live.lines
    estimated = len(shown)
    starts = [shown.start(index) for index in range(len(shown.pieces))]
    shown[0]
    assert moves and moves[0][0] == 0  # the first piece, from its first row
    list(shown)
    assert len(shown) == estimated + sum(delta for _, delta in moves)
    assert all(delta < 0 for _, delta in moves)  # estimated on the tall side
    assert len(moves) <= len(starts)


def test_estimates_of_prose_and_code_err_on_the_tall_side() -> None:
    text = "".join(markdown_chunks(3000))  # paragraphs, inline code and fenced blocks
    for width in (40, 80, 116):
        for piece in block_pieces(text, 2000):
            drawn = len(draw_markdown(piece, width))
            assert drawn <= estimate_markdown_rows(piece, width) <= drawn + 5, (width, piece)


def test_lines_for_another_width_and_redraw_give_the_whole_at_that_width() -> None:
    live = streamed(lazy_text(), ANSWER, list(range(0, len(ANSWER), 131)), 40)
    assert rows(list(live.lines_for(70))) == rows(draw_markdown(ANSWER, 70))
    live.redraw(55)
    assert rows(list(live.lines)) == rows(draw_markdown(ANSWER, 55))


def test_rows_handed_to_a_finished_view_are_not_changed_by_the_live_text() -> None:
    """The live view may lay out once more (a scrollbar comes) after its finished view took
    its rows: those rows stay at the width they were handed out for."""
    live = streamed(lazy_text(), ANSWER, list(range(0, len(ANSWER), 131)), 40)
    handed = live.lines_for(40)
    assert handed is live.lines
    live.redraw(39)
    assert rows(list(handed)) == rows(draw_markdown(ANSWER, 40))
    assert rows(list(live.lines)) == rows(draw_markdown(ANSWER, 39))


def test_chained_rows_read_through_their_parts_without_drawing_the_lazy_one() -> None:
    draw = CountedDraw()
    live = streamed(lazy_text(draw, eager_rows=1), LONG, [0, 2000, 4000], 60)
    drawn = len(draw.texts)
    head, foot = draw_markdown("Header", 60), draw_markdown("Footer", 60)
    chain = ChainRows(head, live.lines, foot)
    assert len(chain) == len(head) + len(live.lines) + len(foot)
    assert chain[0] is head[0] and chain[-1] is foot[-1]
    assert len(draw.texts) == drawn
    assert [row.text for row in chain] == [row.text for row in
                                           [*head, *draw_markdown(LONG, 60), *foot]]


def test_rows_not_those_of_the_whole_are_replaced_by_the_whole_s() -> None:
    """The finished reply's check (reply_view.finished_lines): the same rows are kept as
    they are; other rows give the whole's, those equal to a row kept being that object."""
    rows = draw_markdown("One.\n\nTwo.\n\nThree.", 40)
    assert as_drawn_whole(rows, draw_markdown("One.\n\nTwo.\n\nThree.", 40)) is rows
    fixed = as_drawn_whole(rows, draw_markdown("One.\n\nTwo!\n\nThree.", 40))
    assert [row.text.rstrip() for row in fixed] == ["One.", "", "Two!", "", "Three."]
    assert fixed[0] is rows[0] and fixed[4] is rows[4] and fixed[2] is not rows[2]
