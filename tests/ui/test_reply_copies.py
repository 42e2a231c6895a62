"""The live reply keeps only the copies its drawing needs (issue 22, the delta path): the
answer's text is in its LiveText (drawn) and its PacedStream's queue (not drawn yet), and
`ReplyView.content` is read from those; the widget keeps no whole copy of its own."""

from __future__ import annotations

import threading

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, live_reply, wait_idle
from tui_chat.core.text import GrowingText


async def test_the_live_reply_keeps_no_copy_of_its_answer_beside_its_drawing(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    gate = threading.Event()
    pieces = ["First words, ", "then more, ", "and a last one."]
    chutes_server.script(Reply(stream_of(pieces), gate=gate, gate_after=3))
    app = make_app()
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            screen = conversation(app)
            await pilot.press(*"go", "enter")
            reply = await live_reply(pilot, screen, lambda text: "then more" in text)
            received = "".join(pieces[:2])
            assert reply.content == received == reply.answer.source
            assert not [name for name, value in vars(reply).items()
                        if isinstance(value, GrowingText | str) and received in (
                            value.text if isinstance(value, GrowingText) else value)]
            reply.add_content("queued")  # not drawn yet: in the stream's queue, and read
            assert reply.content.endswith("queued")
            gate.set()
            await wait_idle(pilot)
    finally:
        gate.set()


async def test_a_finished_reply_keeps_nothing_of_its_live_view(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """The finished message shows the rows the live reply drew (`finished_lines`), which
    draw their pieces when read: with the live view's bound methods as their draw function
    they kept the whole live view (widgets, text, painted rows) for as long as the message
    was shown or cached (benchmarks/bench_ui_soak.py). However many replies, at most one is
    left, for a while (below)."""
    from tests.ui.test_line_cache import live
    from tui_chat.ui.widgets.message_view import MessageView
    from tui_chat.ui.widgets.reply_view import ReplyView

    replies = 3
    for index in range(replies):
        chutes_server.script(Reply(stream_of([f"Answer {index}, ", "in two pieces."])))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        before = live(lambda item: isinstance(item, ReplyView))  # other tests' apps' too
        for index in range(replies):
            await pilot.press(*f"q{index}", "enter")
            await wait_idle(pilot)
        views = list(screen.query(MessageView))
        assert len(views) == 2 * replies
        assert views[-1].message.content == f"Answer {replies - 1}, in two pieces."
        # At most the last one, in the list's cache of its displayed children (kept until
        # it is next asked for).
        assert live(lambda item: isinstance(item, ReplyView)) <= before + 1
