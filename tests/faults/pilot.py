"""Pilot helpers for the app-side fault tests: more patient than tests/ui's (big replies, and
a machine busy with other tests, must not turn into false failures)."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from tests.ui.conftest import conversation, settle, wait_until


async def wait_idle(pilot: Pilot[Any], seconds: float = 120) -> None:
    """Until the conversation screen has no reply streaming (tests/ui/conftest.py's, with a
    longer bound for the fault scenarios)."""
    await settle(pilot)
    await wait_until(pilot, lambda: not conversation(pilot.app).streaming, seconds)
    await settle(pilot)


async def send(pilot: Pilot[Any], text: str) -> None:
    """Type `text` into an emptied prompt, press Enter and wait until the reply has ended."""
    screen = conversation(pilot.app)
    screen.prompt.clear()
    screen.prompt.insert(text)
    await pilot.press("enter")
    await wait_idle(pilot)
