"""The app's SIGTERM / SIGHUP handlers (plain signal handlers, so that they run even when the
event loop is stuck: tests/faults/test_signals.py) are the app's only while it runs: a process
that runs the app more than once, as tests do, is given its own back."""

from __future__ import annotations

import signal

from tests.ui.conftest import AppFactory
from tui_chat.ui.app import STOP_SIGNALS


async def test_the_app_holds_the_stop_signals_only_while_it_runs(make_app: AppFactory
                                                                 ) -> None:
    before = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert all(signal.getsignal(signum) != before[signum] for signum in STOP_SIGNALS)
    assert {signum: signal.getsignal(signum) for signum in STOP_SIGNALS} == before
