"""A streamed reply draws exactly what the same text drawn whole draws (DESIGN.md, Streaming).

Every example of the CommonMark spec (0.31.2) and of GFM's extensions (tests/ui/spec) goes
through the live reply's path headlessly: the answer's LiveText, made as ReplyView makes it
(its split, its code-block count, its estimate: pieces settle, some drawn when read), fed in
chunks, each append prepared and taken as the reply does. Its rows, which the finished
message keeps (ReplyView.finished_lines), must be the rows of the finished-message path
drawing the text whole (the Markdown a reopened conversation draws, render_message's),
segment by segment: text and style. At widths 40, 80 and 120; one character at a time, and
in random chunkings (hypothesis shrinks a failure to the fewest cuts that show it), there
with prose at a reading width or not (see reading_column).

A long reply reopened is drawn by pieces too (pieced_message): each example cut at every
block must draw the whole's rows as well.
"""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.segment import Segment
from textual.strip import Strip

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, wait_idle
from tui_chat.ui.widgets import live_text, reply_view
from tui_chat.ui.widgets.live_text import Draw, LiveText, markdown_text
from tui_chat.ui.widgets.markdown_render import markdown_renderable, markdown_rows
from tui_chat.ui.widgets.message_view import PIECED_CHARS, MessageView, render_message
from tui_chat.ui.widgets.piece_context import WHOLE, PieceContext
from tui_chat.ui.widgets.piece_rows import estimate_markdown_rows
from tui_chat.ui.widgets.pieced_message import pieced_rows

SPEC = json.loads((Path(__file__).parent / "spec" / "examples.json").read_text("utf-8"))
EXAMPLES: list[dict[str, Any]] = SPEC["examples"]
WIDTHS = (40, 80, 120)
CONSOLE = Console(file=io.StringIO(), width=200, color_system="truecolor")
THEME = "monokai"


def example_id(example: dict[str, Any]) -> str:
    spec = "gfm" if example["spec"].startswith("GFM") else "cm"
    return f"{spec}{example['example']}"


def drawing(reading_width: int | None = None) -> Draw:
    """Draws a piece as the live reply does (reply_view.MarkdownDrawer), its prose at most
    `reading_width` cells wide."""
    def draw(text: str, width: int, context: PieceContext) -> list[Strip]:
        return markdown_rows(text, CONSOLE, CONSOLE.options.update_width(width),
                             code_theme=THEME, context=context, reading_width=reading_width)

    return draw


def live_answer(reading_width: int | None = None, **sizes: int) -> LiveText:
    """The answer's LiveText as ReplyView makes it (a screenful drawn as it settles);
    `sizes`: its piece_chars and eager_rows, smaller (more pieces, fewer drawn early)."""
    return markdown_text(drawing(reading_width),
                         lambda text, width: estimate_markdown_rows(text, width, reading_width),
                         **sizes)


Row = list[Segment]


def whole(text: str, width: int, reading_width: int | None = None) -> list[Row]:
    """`text` drawn whole, as a finished message read from the store draws it."""
    options = CONSOLE.options.update_width(width)
    renderable = markdown_renderable(text, THEME, reading_width=reading_width)
    return [list(line) for line in CONSOLE.render_lines(renderable, options, pad=False)]


def streamed(text: str, cuts: list[int], width: int, reading_width: int | None = None,
             **sizes: int) -> list[Row]:
    """`text` appended in the chunks `cuts` makes; the rows the finished message keeps."""
    live = live_answer(reading_width, **sizes)
    bounds = [0, *sorted({cut for cut in cuts if 0 < cut < len(text)}), len(text)]
    for start, end in itertools.pairwise(bounds):
        live.take(live.prepare(text[start:end], width))
    assert live.source == text
    return [list(row) for row in live.lines_for(width)]


def first_difference(got: list[Row], want: list[Row]) -> str:
    """Where two drawings part, for a failure message."""
    for y, (a, b) in enumerate(zip(got, want, strict=False)):
        if a != b:
            return f"row {y}: {''.join(s.text for s in a)!r} != {''.join(s.text for s in b)!r}"
    return f"{len(got)} rows != {len(want)}"


def differing(cuts_of: Any, width: int) -> list[str]:
    """The examples (ids) whose rows streamed in `cuts_of(text)` differ from the whole's."""
    failed = []
    for example in EXAMPLES:
        text = example["markdown"]
        got, want = streamed(text, cuts_of(text), width), whole(text, width)
        if got != want:
            failed.append(f"{example_id(example)} ({example['section']}): "
                          f"{first_difference(got, want)}")
    return failed


def test_the_spec_examples_are_all_there() -> None:
    common = [e for e in EXAMPLES if e["spec"] == "CommonMark 0.31.2"]
    assert len(common) == 652 and len(EXAMPLES) - len(common) == 24
    assert {e["extension"] for e in EXAMPLES} == {"", "table", "strikethrough", "autolink",
                                                  "tagfilter", "tasklist"}
    assert "CC-BY-SA 4.0" in SPEC["licence"]


@pytest.mark.parametrize("width", WIDTHS)
def test_every_example_streamed_a_character_at_a_time_draws_the_whole(width: int) -> None:
    assert differing(lambda text: list(range(len(text))), width) == []


@pytest.mark.parametrize("example", EXAMPLES, ids=example_id)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_example_streamed_in_any_chunks_draws_the_whole(example: dict[str, Any],
                                                                data: st.DataObject) -> None:
    text = example["markdown"]
    width = data.draw(st.sampled_from(WIDTHS), label="width")
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=20),
                     label="cuts")
    sizes = data.draw(st.sampled_from([{}, {"piece_chars": 1, "eager_rows": 0}]),
                      label="pieces")  # as a long reply: settled text cut at every block
    reading = data.draw(st.sampled_from([None, 30]), label="reading width")
    got, want = streamed(text, cuts, width, reading, **sizes), whole(text, width, reading)
    assert got == want, first_difference(got, want)


@pytest.mark.parametrize("width", WIDTHS)
def test_every_example_reopened_in_pieces_draws_the_whole(width: int) -> None:
    """A long reply read from the store is cut at its blocks (pieced_message): here every
    example at every block, each piece drawn alone."""
    options = CONSOLE.options.update_width(width)
    failed = []
    for example in EXAMPLES:
        text = example["markdown"]
        rows = pieced_rows(text, [], [], CONSOLE, options, code_theme=THEME,
                           reading_width=None, piece_chars=1)
        got, want = [list(row) for row in rows], whole(text, width)
        if got != want:
            failed.append(f"{example_id(example)}: {first_difference(got, want)}")
    assert failed == []


# --- Each kind of difference the spec examples found, as a reply writes it ----------------


def shown(rows: list[Row]) -> list[str]:
    return ["".join(segment.text for segment in row).rstrip() for row in rows]


def every_chunking(text: str, width: int = 60, **sizes: int) -> None:
    """`text` streamed in chunks of 1 to 9 characters draws the whole's rows."""
    want = whole(text, width)
    for size in range(1, 10):
        got = streamed(text, list(range(0, len(text), size)), width, **sizes)
        assert got == want, (size, first_difference(got, want))


CITED = ("See [the guide][1] and the [Spec] before you start.\n\n"
         + "".join(f"Paragraph {i} between the link and its definition.\n\n" for i in range(8))
         + "[1]: https://example.com/guide\n[spec]: https://spec.commonmark.org \"CommonMark\"\n"
         + "\nThat is all.\n")


def test_a_reference_link_defined_further_down_is_a_link_in_every_piece() -> None:
    """The definitions come at the end, in a later piece than the links: every piece,
    drawn as it settles or later when read, draws the links with their URLs."""
    assert "the guide (https://example.com/guide)" in shown(whole(CITED, 80))[0]
    every_chunking(CITED, 80)
    every_chunking(CITED, 80, piece_chars=1, eager_rows=0)  # pieces drawn when read
    every_chunking(CITED, 80, piece_chars=1, eager_rows=1000)  # all drawn as they settle


def test_a_piece_drawn_before_its_definition_arrived_is_drawn_again() -> None:
    live = live_answer(piece_chars=1)
    first, rest = CITED.split("[1]:")
    live.take(live.prepare(first, 80))
    assert shown(live.lines[:1]) == ["See [the guide][1] and the [Spec] before you start."]
    moves = live.lines.moves
    live.take(live.prepare("[1]:" + rest, 80))
    assert live.lines.moves > moves
    assert " ".join(shown(live.lines[:2])) == ("See the guide (https://example.com/guide) "
                                               "and the Spec (https://spec.commonmark.org) "
                                               "before you start.")
    assert [list(row) for row in live.lines] == whole(CITED, 80)


def test_a_long_reply_reopened_resolves_references_across_its_pieces() -> None:
    options = CONSOLE.options.update_width(80)
    rows = pieced_rows(CITED, [], [], CONSOLE, options, code_theme=THEME, reading_width=None,
                       piece_chars=60)
    assert [list(row) for row in rows] == whole(CITED, 80)


INLINE_BACKTICKS = ("Call ```print()``` first.\n\n```print()``` prints a line.\n\n```\n"
                    "x = 1\n\n# a comment, not a heading\ny = 2\n```\n\nDone.\n")


def test_a_line_of_inline_code_starting_with_backticks_opens_no_fence() -> None:
    """CommonMark: a backtick fence's info string holds no backtick. Taken for a fence, the
    line made the real fence below it end at its first blank line."""
    every_chunking(INLINE_BACKTICKS)
    rows = shown(whole(INLINE_BACKTICKS, 60))
    assert "# a comment, not a heading" in [row.strip() for row in rows]


@pytest.mark.parametrize("block", ["<!-- hidden\n\nstill hidden -->",
                                   "<pre>\nhidden\n\nstill hidden\n</pre>",
                                   "<script>\nlet hidden = 1;\n\nlet still_hidden = 2;\n</script>",
                                   "<style>\np { color: red; }\n\nstill hidden { }\n</style>",
                                   "<?php hidden\n\nstill hidden ?>",
                                   "<![CDATA[ hidden\n\nstill hidden ]]>"])
def test_an_html_block_over_blank_lines_is_one_piece(block: str) -> None:
    text = f"Intro.\n\n{block}\n\nAfter.\n"
    assert "still" not in " ".join(shown(whole(text, 60)))
    every_chunking(text)
    live = live_answer()
    live.take(live.prepare(text[:text.index("still")], 60))
    assert live.lines.pieces[-1].text.startswith(block[:4])  # the block is the tail yet


@pytest.mark.parametrize("text", [
    "- foo\n- bar\n\n<!-- -->\n\n- baz\n",  # an HTML block between two lists
    "Intro.\n\n<div>\nmarkup\n</div>\n\nAfter.\n",  # one that ends at a blank line
    "<!-- first -->\n\nText.\n\n<!-- last -->\n",  # at both ends
    "Intro.\n\n-\n\nAfter.\n",  # an empty list item
    "Intro.\n\n>\n\nAfter.\n",  # an empty quote
    "***\n\n<!-- x -->\n\nAfter a rule.\n",  # a rule draws its own blank row
    "[a]: /url\n\n***\n\nA definition draws nothing, [a].\n"])
def test_the_seam_next_to_a_block_whose_edge_row_is_blank(text: str) -> None:
    """Rich puts a blank row before a block when the block before asks for one (an HTML
    block asks, though it draws nothing; an empty item or quote draws a blank row):
    pieces are drawn knowing what is above them."""
    every_chunking(text)


# --- The finished message --------------------------------------------------------------


def finished_and_whole(view: MessageView) -> tuple[list[str], list[str]]:
    """The rows the finished `view` shows (every one read), and its message drawn whole."""
    app = view.app
    width = view.content_size.width
    options = app.console_options.update_width(width).update(highlight=False)
    drawn = app.console.render_lines(render_message(view.message, code_theme=view.code_theme),
                                     options, pad=False)
    return ([row.text.rstrip() for row in view.cached.lines],
            ["".join(segment.text for segment in line).rstrip() for line in drawn])


def chunks(text: str, size: int) -> list[str]:
    return [text[start:start + size] for start in range(0, len(text), size)]


async def test_a_long_reply_citing_its_sources_ends_with_the_links_drawn(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """Numbered citations defined at the end of a reply long enough to be kept in pieces
    (most of them drawn only when read): the finished message shows every link's URL."""
    body = "".join(f"Paragraph {i} cites [the guide][1] and [2].\n\n" for i in range(220))
    text = body + "[1]: https://example.com/guide\n[2]: https://example.com/two\n"
    assert len(text) > PIECED_CHARS
    chutes_server.script(Reply(stream_of(chunks(text, 40))))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("x", "enter")
        await wait_idle(pilot)
        view = conversation(app).query(MessageView)[-1]
        assert view.message.content == text
        finished, whole_rows = finished_and_whole(view)
        assert finished == whole_rows
        assert finished.count("Paragraph 0 cites the guide (https://example.com/guide) and 2 "
                              "(https://example.com/two).") == 1


async def test_the_finished_message_keeps_no_row_the_whole_would_not_draw(
        make_app: AppFactory, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Were a piece drawn wrong (here every seam, on purpose), a reply its view would draw
    whole is checked against its drawing whole, off the event loop: the finished message
    shows the whole's rows."""
    monkeypatch.setattr(live_text, "next_context", lambda *_, **__: WHOLE)
    differed: list[bool] = []
    check = reply_view.as_drawn_whole

    def spy(rows: Any, drawn_whole: list[Strip]) -> Any:
        differed.append([list(row) for row in rows] != [list(row) for row in drawn_whole])
        return check(rows, drawn_whole)

    monkeypatch.setattr(reply_view, "as_drawn_whole", spy)
    text = "Intro.\n\n- foo\n- bar\n\n<!-- a comment -->\n\n- baz\n\n>\n\nAfter.\n"
    chutes_server.script(Reply(stream_of(chunks(text, 3)), delay=0.01))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("x", "enter")
        await wait_idle(pilot)
        view = conversation(app).query(MessageView)[-1]
        assert view.message.content == text
        assert differed == [True]
        finished, whole_rows = finished_and_whole(view)
        assert finished == whole_rows
