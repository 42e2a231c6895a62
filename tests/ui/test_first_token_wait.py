"""While no token has arrived, the status line counts the seconds (by the injected clock),
says Esc cancels and that a cold start can take minutes; the count stops with the first
token, an error, or Esc."""

from __future__ import annotations

import threading

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import AppFactory, conversation, wait_idle, wait_until
from tui_chat.ui.screens.conversation import ConversationScreen


class ManualClock:
    """A clock that only moves when the test moves it."""

    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


def state(screen: ConversationScreen) -> str:
    return screen.status.info.state


async def test_the_wait_is_counted_until_the_first_token(make_app: AppFactory,
                                                         chutes_server: FakeProvider) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["Hello", " there"]), gate=gate, gate_after=0))
    clock = ManualClock()
    app = make_app(clock=clock)
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            screen = conversation(app)
            await pilot.press(*"hi", "enter")
            await wait_until(pilot, lambda: state(screen).startswith("waiting 0 s"))
            assert state(screen) == "waiting 0 s · Esc cancels · a cold start can take minutes"
            wait = screen.presenter.wait
            assert wait.running
            clock.now += 73.6
            wait.tick()  # what the one-second timer does
            assert state(screen).startswith("waiting 73 s · Esc cancels")
            assert "waiting 73 s" in str(screen.status.render())
            gate.set()
            await wait_idle(pilot)
            assert not wait.running and state(screen) == "ready"
            clock.now += 10
            wait.tick()  # a tick already queued when the token came changes nothing
            assert state(screen) == "ready"
    finally:
        gate.set()


async def test_esc_while_waiting_stops_the_count(make_app: AppFactory,
                                                 chutes_server: FakeProvider) -> None:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["never"]), gate=gate, gate_after=0))
    app = make_app(clock=ManualClock())
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            screen = conversation(app)
            await pilot.press(*"hi", "enter")
            await wait_until(pilot, lambda: screen.presenter.wait.running)
            await pilot.press("escape")
            await wait_idle(pilot)
            assert not screen.presenter.wait.running and state(screen) == "stopped"
            assert screen.prompt.text == "hi"  # nothing arrived: the prompt is given back
    finally:
        gate.set()


async def test_an_error_before_the_first_token_stops_the_count(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(status=404, body=b'{"detail": "model not found"}',
                               content_type="application/json"))
    app = make_app(clock=ManualClock())
    async with app.run_test(size=(120, 30)) as pilot:
        screen = conversation(app)
        await pilot.press(*"hi", "enter")
        await wait_idle(pilot)
        assert not screen.presenter.wait.running
        assert not state(screen).startswith("waiting")
