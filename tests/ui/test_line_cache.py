"""Memory that stays flat: what is drawn is kept within a budget of bytes, only for the
conversation on screen, and once (benchmarks/bench_ui_memory.py measures the whole)."""

from __future__ import annotations

import gc
import random
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from rich.console import Console
from rich.style import Style as RichStyle
from rich.syntax import Syntax
from textual.pilot import Pilot
from textual.strip import Strip

from benchmarks.textgen import history_text, markdown_chunks
from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, wait_idle, wait_until
from tui_chat.ui.widgets import message_view
from tui_chat.ui.widgets.line_cache import LineCache, strips_bytes, styled
from tui_chat.ui.widgets.markdown_render import (
    CODE_BUDGET,
    _highlighted,
    highlighted,
    markdown_renderable,
    text_bytes,
)
from tui_chat.ui.widgets.message_view import LINES, MessageView

MARKER = "zebracorn"
"""A word only the reply of the app tests holds: rows that show it are its rows."""


def drawn(text: str, width: int = 100) -> list[Strip]:
    console = Console(width=width, force_terminal=True, color_system="truecolor")
    lines = console.render_lines(markdown_renderable(text, "monokai"),
                                 console.options.update_width(width), pad=False)
    return [Strip(line) for line in lines]


def held_by_new(make: object) -> tuple[object, int]:
    """What `make()` returns, and the bytes still allocated for it once it returned."""
    assert callable(make)
    gc.collect()
    tracemalloc.start()
    try:
        made = make()
        gc.collect()
        return made, tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()


def test_the_estimate_of_drawn_rows_is_close_to_what_they_hold() -> None:
    rng = random.Random(7)
    texts = ["".join(markdown_chunks(1500)),
             "\n\n".join(history_text(rng, i)[1] for i in range(60)),
             "word " * 3000]
    for text in texts:
        drawn(text)  # warm Rich's own caches (styles, cell widths): not the rows' memory
        strips, held = held_by_new(lambda text=text: drawn(text))
        assert isinstance(strips, list)
        assert 0.7 * held <= strips_bytes(strips) <= 1.5 * held, (strips_bytes(strips), held)


def test_the_estimate_of_highlighted_code_is_close_to_what_it_holds() -> None:
    code = "".join(f"value_{i} = compute({i}, 'abc') * 2  # step\n" for i in range(300))
    Syntax(code[:50], "python", theme="monokai").highlight(code[:50])
    text, held = held_by_new(
        lambda: Syntax(code, "python", theme="monokai", word_wrap=True).highlight(code))
    assert 0.7 * held <= text_bytes(text) <= 1.5 * held, (text_bytes(text), held)  # type: ignore[arg-type]


def test_the_line_cache_never_holds_more_than_its_budget() -> None:
    rows = drawn("\n\n".join(f"Paragraph {i} with **bold** and `code`." for i in range(40)))
    size = strips_bytes(rows)
    cache = LineCache(budget=5 * size)
    for n in range(20):
        cache.put("c", ("message", n), 100, list(rows))
        assert cache.size <= cache.budget
        cache.get("c", ("message", 0), 100)  # the most used one stays
    assert len(cache) == 5
    assert cache.get("c", ("message", 0), 100) is not None
    assert cache.get("c", ("message", 15), 100) is None  # least recently used: gone
    assert all(cache.get("c", ("message", n), 100) is not None for n in range(16, 20))
    cache.put("c", "huge", 100, rows * 6)  # larger than the whole budget: not kept
    assert cache.get("c", "huge", 100) is None
    assert cache.size <= cache.budget


def test_the_line_cache_keeps_only_the_conversation_asked_for() -> None:
    rows = drawn("A short message.")
    cache = LineCache(budget=10**6)
    cache.put("one", "a", 80, rows)
    cache.put("two", "b", 80, rows)
    cache.keep_only("two")
    assert cache.get("one", "a", 80) is None
    assert cache.get("two", "b", 80) is rows
    cache.keep_only(None)
    assert len(cache) == 0 and cache.size == 0


def test_highlighted_code_is_kept_within_its_budget() -> None:
    block = "plain words of a long block\n" * 8000  # about 220,000 characters, few spans
    total = 0
    for n in range(CODE_BUDGET // (len(block) * 3 // 4)):
        highlighted(f"{n}\n{block}", "text", "monokai")
        total += len(block)
    assert total > CODE_BUDGET
    kept = sum(text_bytes(text) for text in _highlighted.cache.values())
    assert kept <= CODE_BUDGET


def test_a_code_block_reaching_the_end_of_the_text_is_not_kept() -> None:
    """There it may be a fence still streaming, drawn once per append: kept, the cache
    would fill with every partial fence of every reply."""
    def kept(word: str) -> bool:
        return any(word in str(key) for key in _highlighted.cache)

    drawn("```python\nclosed_early = 1\n```\n\nAfter it.")
    drawn("Intro.\n\n```python\nstill_open = 1\n")
    drawn("Intro.\n\n```python\nclosed_last = 1\n```\n\n")
    assert kept("closed_early")
    assert not kept("still_open") and not kept("closed_last")


def live(matches: Callable[[object], bool]) -> int:
    """Objects alive that `matches`, frozen ones included: gc.get_objects() leaves out what the
    app's gc policy froze, and its hook freezes what survives a full collection, so it is
    held off while counting."""
    hooks = gc.callbacks[:]
    gc.callbacks.clear()
    try:
        gc.unfreeze()
        gc.collect()
        return sum(1 for item in gc.get_objects() if matches(item))
    finally:
        gc.callbacks.extend(hooks)


def live_rows(marker: str) -> int:
    """Rows alive holding `marker` (see `live`)."""
    return live(lambda item: isinstance(item, Strip) and marker in item.text)


PARAGRAPHS = [f"Paragraph {i} about the {MARKER}.\n\n" for i in range(150)]
"""A reply of 300 rows at 100 columns, in 150 chunks."""


async def long_reply(pilot: Pilot[Any]) -> MessageView:
    """Send a message; the view of its reply, PARAGRAPHS, once finished."""
    screen = conversation(pilot.app)
    await pilot.press("x", "enter")
    await wait_idle(pilot)
    view = screen.query(MessageView)[-1]
    assert view.message.content == "".join(PARAGRAPHS)
    return view


async def test_showing_a_message_in_other_styles_keeps_no_copy_of_its_rows(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """Selected, then not, then again: each style is drawn for the view, and not also kept
    inside the cached rows (a copy of every row for every style it was ever shown in)."""
    chutes_server.script(Reply(stream_of(PARAGRAPHS)))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        view = await long_reply(pilot)
        messages = conversation(app).message_list
        before = live_rows(MARKER)
        messages.focus()  # selects the last message: the reply
        await wait_until(pilot, lambda: view.has_class("-selected"))
        await pilot.pause()
        for _ in range(3):
            messages.selected = 0
            await wait_until(pilot, lambda: not view.has_class("-selected"))
            await pilot.pause()
            messages.selected = 1
            await wait_until(pilot, lambda: view.has_class("-selected"))
            await pilot.pause()
        assert live_rows(MARKER) <= before + 2 * 30  # at most the rows on screen, painted


async def test_a_long_message_styles_only_the_rows_it_paints(
        make_app: AppFactory, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Selecting a reply of 300 rows in a 30-row screen styles the rows shown, not all 300
    (the whole message was styled on the event loop to paint a screenful)."""
    chutes_server.script(Reply(stream_of(PARAGRAPHS)))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        view = await long_reply(pilot)
        assert len(view.cached.lines) >= 300
        styled_rows: list[str] = []

        def counted(strip: Strip, style: RichStyle) -> Strip:
            styled_rows.append(strip.text)
            return styled(strip, style)

        monkeypatch.setattr(message_view, "styled", counted)
        conversation(app).message_list.focus()  # selects the reply: a new style
        await wait_until(pilot, lambda: view.has_class("-selected"))
        await wait_until(pilot, lambda: any(MARKER in row for row in styled_rows))
        await pilot.pause()
        assert view.message.content.rstrip().endswith(f"Paragraph 149 about the {MARKER}.")
        assert f"Paragraph 149 about the {MARKER}." in "".join(styled_rows)  # the end shown
        assert len(styled_rows) <= 30


async def test_after_ctrl_n_no_row_of_the_old_conversation_is_kept(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    pieces = [f"Paragraph {i} about the {MARKER}.\n\n" for i in range(100)]
    chutes_server.script(Reply(stream_of(pieces)))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("x", "enter")
        await wait_idle(pilot)
        assert live_rows(MARKER) >= 100
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: not screen.message_list.messages
                         and not screen.query(MessageView))
        await pilot.pause()
        assert len(LINES) == 0
        assert live_rows(MARKER) == 0


async def test_after_ctrl_n_no_view_of_the_old_conversation_is_kept(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """The list's stream layout keeps the placements of its last arrangement, and had none
    to make once empty: they held the old conversation's views until the next message."""
    chutes_server.script(Reply(stream_of([f"About the {MARKER}.\n\n", "More."])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("x", "enter")
        await wait_idle(pilot)
        cid = screen.message_list.messages[0].conversation_id

        def views() -> int:
            return live(lambda item: isinstance(item, MessageView)
                        and item.message.conversation_id == cid)

        assert views() == 2
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: not screen.message_list.messages
                         and not screen.query(MessageView))
        await pilot.pause()
        assert views() == 0


async def test_widgets_removed_leave_no_painted_rows_behind() -> None:
    """Textual's StylesCache.get_inner_outer was an lru_cache keyed by each widget's cache of
    painted rows (textual#6665): 1,024 widgets gone kept theirs, about four more a reply
    (benchmarks/bench_ui_soak.py). However many widgets are mounted, painted and removed,
    no StylesCache outlives its widget."""
    from textual._styles_cache import StylesCache
    from textual.app import App
    from textual.widgets import Static

    class Many(App[None]):
        pass

    app = Many()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        before = live(lambda item: isinstance(item, StylesCache))  # other tests' too
        for index in range(40):
            widget = Static(f"row {index}")
            await app.screen.mount(widget)
            await pilot.pause()  # painted
            await widget.remove()
        await pilot.pause()
        assert live(lambda item: isinstance(item, StylesCache)) <= before + 2


def test_the_unkeyed_inner_outer_is_textuals_hook_with_its_styles() -> None:
    """The private part replaced (line_cache.unkey_inner_outer) is still where Textual calls
    it, and gives the styles Textual's gave."""
    import inspect

    from textual._styles_cache import StylesCache
    from textual.color import Color
    from textual.style import Style

    assert "self.get_inner_outer(" in inspect.getsource(StylesCache.render_line)
    base, background = Color(10, 20, 30), Color(200, 100, 50, 0.5)
    assert StylesCache().get_inner_outer(base, background) == (
        Style(background=base + background), Style(background=base))
