"""`ask` answers the exchange's questions on the terminal (a real pseudo-terminal here), and
with none refuses with one sentence unless --yes answers."""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Iterator

import pytest

from tui_chat.commands.ask_terminal import TerminalAsker


@pytest.fixture
def terminal() -> Iterator[tuple[int, str]]:
    """(the master side, the path of the terminal side) of a new pseudo-terminal."""
    master, slave = os.openpty()
    yield master, os.ttyname(slave)
    os.close(master)
    os.close(slave)


async def shown_then_answer(master: int, until: bytes, answer: bytes) -> bytes:
    """Read what the terminal shows until `until` appears, then type `answer`."""
    loop = asyncio.get_running_loop()
    shown = b""
    while until not in shown:
        shown += await loop.run_in_executor(None, os.read, master, 1024)
    os.write(master, answer)
    return shown


@pytest.mark.parametrize(("typed", "expected"), [(b"y\n", True), (b"Yes\n", True),
                                                  (b"\n", False), (b"no\n", False)])
async def test_a_confirmation_is_asked_on_the_terminal(terminal: tuple[int, str],
                                                       typed: bytes, expected: bool) -> None:
    master, path = terminal
    err = io.StringIO()
    asker = TerminalAsker(tty=path, err=err)
    answer = asyncio.create_task(asker.confirm("Run get_weather\x1b]0;evil\x07 now?"))
    shown = await shown_then_answer(master, b"[y/N]", typed)
    assert await answer is expected
    assert b"Run get_weather" in shown and b"\x1b" not in shown  # drawn inertly
    assert err.getvalue() == ""


async def test_a_choice_is_asked_by_number_or_by_name(terminal: tuple[int, str]) -> None:
    master, path = terminal
    asker = TerminalAsker(tty=path, err=io.StringIO())
    answer = asyncio.create_task(asker.ask("Which city?", ["Paris", "Pune"]))
    shown = await shown_then_answer(master, b"Choose 1-2:", b"2\n")
    assert await answer == "Pune" and b"1. Paris" in shown
    answer = asyncio.create_task(asker.ask("Which city?", ["Paris", "Pune"]))
    await shown_then_answer(master, b"Choose 1-2:", b"Paris\n")
    assert await answer == "Paris"


async def test_a_wait_for_the_answer_ends_when_the_exchange_is_cancelled(
        terminal: tuple[int, str]) -> None:
    master, path = terminal
    asker = TerminalAsker(tty=path, err=io.StringIO())
    answer = asyncio.create_task(asker.confirm("Run it?"))
    loop = asyncio.get_running_loop()
    shown = b""
    while b"[y/N]" not in shown:
        shown += await loop.run_in_executor(None, os.read, master, 1024)
    answer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await answer


async def test_with_no_terminal_a_confirmation_is_refused_in_one_sentence() -> None:
    err = io.StringIO()
    asker = TerminalAsker(tty="/nonexistent/tty", err=err)
    assert await asker.confirm("Run get_weather?") is False
    assert await asker.ask("Which city?", ["Paris"]) is None
    lines = err.getvalue().splitlines()
    assert lines == [
        "tui-chat: Run get_weather? No: there is no terminal to ask on; pass --yes to approve.",
        "tui-chat: Which city? Not answered: there is no terminal to ask on."]


async def test_yes_answers_every_confirmation_and_says_so() -> None:
    err = io.StringIO()
    asker = TerminalAsker(assume_yes=True, tty="/nonexistent/tty", err=err)
    assert await asker.confirm("Run get_weather?") is True
    assert err.getvalue() == "tui-chat: Run get_weather? Yes (--yes).\n"
