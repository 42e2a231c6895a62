"""The live reply: settled text is drawn once, only the tail per append; long replies end
intact."""

from __future__ import annotations

import threading

import pytest
from rich.console import Console, ConsoleOptions
from textual.style import Style
from textual.visual import RenderOptions

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import (
    AppFactory,
    conversation,
    live_reply,
    rendered_text,
    wait_idle,
    wait_until,
)
from tui_chat.ui.widgets.live_text import (
    FENCE_LINES,
    Split,
    settled_length,
    split_markdown,
)
from tui_chat.ui.widgets.markdown_render import markdown_renderable
from tui_chat.ui.widgets.message_view import CachedRender, MessageView, render_message


def test_settled_length_stops_before_the_last_block_and_never_inside_a_fence() -> None:
    assert settled_length("one\n\ntwo") == len("one\n\n")
    assert settled_length("one\n\ntwo\n\nthr") == len("one\n\ntwo\n\n")
    assert settled_length("no blank line yet") == 0
    assert settled_length("intro\n\n```py\na\n\nb\n") == len("intro\n\n")  # open fence
    assert settled_length("```py\na\n\nb\n```\n\nafter") == len("```py\na\n\nb\n```\n\n")
    assert settled_length("~~~~\n```\n\n~~~~\n\nx") == len("~~~~\n```\n\n~~~~\n\n")


def test_a_long_open_fence_is_split_at_a_line_and_reopened() -> None:
    body = "".join(f"x{i}\n" for i in range(FENCE_LINES + 5))
    last = f"x{FENCE_LINES + 4}\n"  # the last complete line goes on with the fence
    assert split_markdown("Intro\n\n~~~~py\n" + body + "par") == Split(
        "Intro\n\n~~~~py\n" + body.removesuffix(last) + "~~~~\n", "~~~~py\n" + last + "par",
        fence_open=True)
    assert split_markdown("one\n\ntwo") == Split("one\n\n", "two", fence_open=False)


def test_a_blank_line_before_what_may_continue_the_block_above_settles_nothing() -> None:
    """A list item or an indented line after a blank line may belong to the block above
    (a loose list, indented code): drawn apart, it would look different."""
    assert split_markdown("- a\n\n- b\n") is None
    assert split_markdown("1. a\n\n2) b\n") is None
    assert split_markdown("    code\n\n    more\n") is None
    assert split_markdown("one\n\n-") is None  # a list item, or a rule: not known yet
    assert split_markdown("- a\n\n- b\n\nAfter") == Split("- a\n\n- b\n\n", "After", False)
    assert split_markdown("one\n\n---\n") == Split("one\n\n", "---\n", False)
    assert split_markdown("```\n" + "x\n" * 3) is None  # short fences stay live


async def test_a_long_reply_redraws_only_its_last_block(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    paragraphs = [f"Paragraph {i} with **bold** and `code`.\n\n" for i in range(300)]
    chutes_server.script(Reply(stream_of(paragraphs), stall_after=len(paragraphs) + 1,
                               stall_seconds=600))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("x", "enter")
        reply = await live_reply(pilot, screen, lambda text: "Paragraph 299" in text)
        assert reply.answer.source == "".join(paragraphs)
        assert len(reply.answer.tail_text) < 100  # bounded, however long the reply
        shown = rendered_text(reply)
        assert "Paragraph 0 with bold and code." in shown  # settled, drawn as Markdown
        assert "Paragraph 299 with bold and code." in shown
        assert "**" not in shown and "`" not in shown
        await pilot.press("escape")
        await wait_idle(pilot)
        final = screen.query(MessageView)[-1].message
        assert final.content == "".join(paragraphs)


async def test_a_long_code_fence_streams_whole(make_app: AppFactory,
                                               chutes_server: FakeProvider) -> None:
    body = [f"line_{i} = {i}\n" for i in range(1500)]
    chutes_server.script(Reply(stream_of(["```python\n", *body, "```\n"])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("x", "enter")
        await wait_idle(pilot)
        final = screen.query(MessageView)[-1].message
        assert final.content == "```python\n" + "".join(body) + "```\n"


async def test_view_follows_the_stream_until_the_user_scrolls_up(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    lines = [f"line {i}\n\n" for i in range(200)]
    # Forty lines at a time, each batch held until the test has done its step: every step
    # sees lines arrive after it, however slow or fast the machine.
    batches = [threading.Event() for _ in range(3)]
    chutes_server.script(Reply(stream_of(lines), delay=0.01,
                               gates=[(40 * (n + 1) + 1, gate) for n, gate in enumerate(batches)]))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        messages = screen.message_list
        screen.prompt.load_text("x")
        screen.prompt.submit()
        await wait_until(pilot, lambda: messages.max_scroll_y > 10)
        # Following: the list settles at its end while the stream is held.
        await wait_until(pilot, lambda: messages.scroll_y == messages.max_scroll_y)
        messages.scroll_to(y=0, animate=False, immediate=True)  # the user scrolls up
        height = messages.max_scroll_y
        batches[0].set()
        await wait_until(pilot, lambda: messages.max_scroll_y > height + 10)
        assert messages.scroll_y == 0, (messages.scroll_y, messages.max_scroll_y)
        messages.scroll_end(animate=False, immediate=True)  # back to the bottom
        height = messages.max_scroll_y
        batches[1].set()
        await wait_until(pilot, lambda: messages.max_scroll_y > height + 10)
        # Following again: it settles at the new end (the third batch is held).
        await wait_until(pilot, lambda: messages.scroll_y == messages.max_scroll_y)
        assert messages.scroll_y > height
        batches[2].set()
        await screen.stop_streaming()


async def test_the_finished_reply_keeps_the_rows_drawn_while_it_streamed(
        make_app: AppFactory, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """No second drawing of the whole reply when it ends, and the rows are the ones drawing
    it whole gives (so nothing jumps)."""
    pieces = [f"Paragraph {i} with **bold** and `code`.\n\n" for i in range(30)]
    pieces += ["```python\n", *[f"value_{i} = {i}\n" for i in range(60)], "```\n\nDone."]
    chutes_server.script(Reply(stream_of(pieces), delay=0.005))
    drawn_whole: list[object] = []
    prepare = CachedRender.prepare

    def spy(self: CachedRender, console: Console, options: ConsoleOptions) -> None:
        drawn_whole.append(self.key)
        prepare(self, console, options)

    monkeypatch.setattr(CachedRender, "prepare", spy)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await pilot.press("x", "enter")
        await wait_idle(pilot)
        view = screen.query(MessageView)[-1]
        assert view.message.content == "".join(pieces)
        assert view.cached.key not in drawn_whole
        width = view.content_size.width
        options = app.console_options.update_width(width).update(highlight=False)
        message = render_message(view.message, code_theme=view.code_theme)
        whole = app.console.render_lines(message, options, pad=False)
        plain = RenderOptions(lambda _: Style(), {})
        shown = view.cached.render_strips(width, None, Style(), plain)
        assert [s.text.rstrip() for s in shown] == [
            "".join(seg.text for seg in line).rstrip() for line in whole]


async def test_a_resize_while_streaming_redraws_the_live_reply_for_the_new_width(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    pieces = [f"Paragraph {i} has enough words in it to wrap at a narrow width.\n\n"
              for i in range(12)]
    pieces += ["```python\n", *[f"value_{i} = {i}\n" for i in range(50)], "Tail"]
    chutes_server.script(Reply(stream_of(pieces), stall_after=len(pieces) + 1,
                               stall_seconds=600))
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = conversation(app)
        await pilot.press("x", "enter")
        reply = await live_reply(pilot, screen, lambda text: text.endswith("Tail"))
        await pilot.resize_terminal(60, 40)
        await wait_until(pilot, lambda: reply.content_size.width < 60)
        width = reply.content_size.width
        assert reply.answer.width == width
        options = app.console_options.update_width(width).update(highlight=False)
        whole = app.console.render_lines(markdown_renderable("".join(pieces), "monokai"),
                                         options, pad=False)
        assert [row.text.rstrip() for row in reply.answer.lines] == [
            "".join(segment.text for segment in line).rstrip() for line in whole]
        shown = rendered_text(reply)
        assert "Paragraph 11 has enough words" in shown and "Tail" in shown
        await screen.stop_streaming()
