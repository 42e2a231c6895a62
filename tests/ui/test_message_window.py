"""One conversation held on screen all day: the list keeps a window of mounted messages
while it follows the end (KEEP_MOUNTED, then whole pages go), and every message stays
reachable (scrolled back to, Home, the selection). Before, each message's view stayed
mounted: about 65 KB a message (benchmarks/bench_ui_soak.py, one conversation). Small pages
here, for a short test; the rule is the same at 20 and 60."""

from __future__ import annotations

import threading

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, wait_idle, wait_until
from tui_chat.ui.screens.conversation import ConversationScreen
from tui_chat.ui.widgets import message_list
from tui_chat.ui.widgets.message_view import MessageView

PAGE, KEEP = 4, 8
REPLIES = 10


@pytest.fixture(autouse=True)
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(message_list, "PAGE", PAGE)
    monkeypatch.setattr(message_list, "KEEP_MOUNTED", KEEP)


def mounted(screen: ConversationScreen) -> list[str]:
    return [view.message.content for view in screen.message_list.query(MessageView)]


async def test_a_conversation_held_on_screen_keeps_a_window_and_every_message_is_reachable(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    for index in range(REPLIES):
        chutes_server.script(Reply(stream_of([f"answer {index}"])))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = conversation(app)
        for index in range(REPLIES):
            await pilot.press(*f"q{index}", "enter")
            await wait_idle(pilot)
            assert len(mounted(screen)) <= KEEP + PAGE
        everything = [text for index in range(REPLIES) for text in (f"q{index}",
                                                                    f"answer {index}")]
        assert [m.content for m in screen.message_list.messages] == everything
        shown = mounted(screen)
        assert KEEP <= len(shown) < KEEP + PAGE and shown == everything[-len(shown):]
        # The selection walks up into what is not mounted: it is mounted as it is reached.
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: screen.message_list.selected == len(everything) - 1)
        for _ in range(len(everything) - 1):
            await pilot.press("up")
        await wait_until(pilot, lambda: screen.message_list.selected == 0)
        assert mounted(screen)[0] == "q0"
        await pilot.press("end")
        await wait_until(pilot, lambda: mounted(screen)[-1] == everything[-1])
        await pilot.press("home")
        await wait_until(pilot, lambda: mounted(screen)[0] == "q0")


async def test_nothing_is_unmounted_while_the_user_reads_further_up(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    """Scrolled up while a reply streams (not following the end), the window stays as it
    is when the reply ends: what is being read is not taken away."""
    for index in range(REPLIES - 1):
        chutes_server.script(Reply(stream_of([f"answer {index}"])))
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["the last ", "answer"]), gate=gate, gate_after=1))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = conversation(app)
        for index in range(REPLIES - 1):
            await pilot.press(*f"q{index}", "enter")
            await wait_idle(pilot)
        await pilot.press(*f"q{REPLIES - 1}", "enter")
        await wait_until(pilot, lambda: screen.message_list.reply is not None)
        before = mounted(screen)
        screen.message_list.release_anchor()  # as the user scrolling up does
        gate.set()
        await wait_idle(pilot)
        assert mounted(screen) == [*before, "the last answer"]
        assert len(mounted(screen)) - KEEP >= PAGE  # following the end, a page would go
