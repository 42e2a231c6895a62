"""A long day in miniature (benchmarks/bench_ui_soak.py): replies back to back, a new
conversation every few. What the app holds after it is what the screen shows; nothing is kept
per reply or per conversation gone. Counted structurally (objects alive, frozen ones included,
see test_line_cache.live), never as memory: the soak's memory figures are in
benchmarks/RESULTS.md, and what still grows there is bounded caches (SQLite's page cache,
Rich's cell widths, Textual's query_one caches; benchmarks/bench_ui_soak_probe.py)."""

from __future__ import annotations

from typing import Any, cast

from textual.dom import DOMNode
from textual.pilot import Pilot
from textual.worker import WorkerState

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, wait_idle, wait_until
from tests.ui.test_line_cache import live
from tui_chat.ui.widgets.message_view import MessageView

CONVERSATIONS = 4
REPLIES_EACH = 2


def nodes_of(app: Any) -> int:
    """DOM nodes alive that belong to `app`, on screen or not."""
    def mine(item: object) -> bool:
        if not isinstance(item, DOMNode):
            return False
        try:
            return item.app is app
        except Exception:  # a node never mounted, or of another test's app gone
            return False
    return live(mine)


async def conversation_of_replies(pilot: Pilot[Any], number: int) -> None:
    screen = conversation(pilot.app)
    for reply in range(REPLIES_EACH):
        await pilot.press(*f"q{number}-{reply}", "enter")
        await wait_idle(pilot)
    await wait_until(pilot, lambda: len(screen.query(MessageView)) == 2 * REPLIES_EACH)
    await pilot.press("ctrl+n")
    await wait_until(pilot, lambda: not screen.message_list.messages
                     and not screen.query(MessageView))
    await pilot.pause()


async def test_conversations_gone_leave_nothing_behind(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """The nodes alive after the first conversation are all there are after the fourth (the
    sidebar's rows are options of one OptionList, not nodes); no worker is left running;
    Textual's query_one caches hold no node that left the screen. With the footer's Esc Stop
    kept by data_bind (before b41e96b), 55 nodes became 61: one a reply."""
    for _ in range(CONVERSATIONS * REPLIES_EACH):
        chutes_server.script(Reply(stream_of(["A short ", "reply, ", "in pieces."])))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await conversation_of_replies(pilot, 0)
        first = nodes_of(app)
        for number in range(1, CONVERSATIONS):
            await conversation_of_replies(pilot, number)
        assert nodes_of(app) <= first
        assert not [worker.name for worker in app.workers
                    if worker.state in (WorkerState.PENDING, WorkerState.RUNNING)]
        held = [cast(DOMNode, link[3]) for node in app.screen.walk_children(with_self=True)
                for link in node._query_one_cache._cache.values()]
        assert all(node.is_attached for node in held)


def painted_far_above(screen: Any) -> int:
    """Rows Textual keeps painted for views a page or more above the part shown."""
    listed = screen.message_list
    top = listed.scroll_y - listed.size.height
    return sum(len(view._styles_cache._cache) for view in screen.query(MessageView)
               if view.virtual_region.bottom < top)


async def test_views_far_above_keep_no_painted_rows(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """One long conversation held on screen: every view mounted kept the rows Textual
    painted for it (its StylesCache), however far it had scrolled away: a copy of each
    message's rows, 17 a reply of benchmarks/bench_ui_soak.py, all day. Views a page or more
    above the part shown let them go when a reply ends (painted again if scrolled back)."""
    replies = 12
    for _ in range(replies):
        chutes_server.script(Reply(stream_of(["A reply of a few lines. " * 12, "End."])))
    app = make_app()
    async with app.run_test(size=(80, 20)) as pilot:
        screen = conversation(app)
        for index in range(replies):
            await pilot.press(*f"q{index}", "enter")
            await wait_idle(pilot)
        await wait_until(pilot, lambda: len(screen.query(MessageView)) == 2 * replies)
        await pilot.pause()
        far = [view for view in screen.query(MessageView)
               if view.virtual_region.bottom < screen.message_list.scroll_y - 20]
        assert len(far) >= 4
        await wait_until(pilot, lambda: painted_far_above(screen) == 0)
        await pilot.press("escape")
        screen.message_list.scroll_home(animate=False)
        await wait_until(pilot, lambda: screen.message_list.scroll_y == 0)
        await pilot.pause()
        first = screen.query(MessageView)[0]
        await wait_until(pilot, lambda: bool(first._styles_cache._cache))
