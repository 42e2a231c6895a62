"""`tui-chat ask` puts a tool server's request for input to the terminal (a real
pseudo-terminal here; commands/ask_elicit.py): a plain prompt per field, a bad answer's
sentence and the field asked again, decline, URL mode opened only on a yes, and with no
terminal a decline in one sentence."""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Iterator
from typing import Any

import pytest

from tui_chat.commands.ask_elicit import elicit_on_terminal
from tui_chat.commands.ask_terminal import TerminalAsker
from tui_chat.core.mcp.elicitation import ElicitRequest

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "title": "City"},
        "days": {"type": "integer", "title": "Days", "minimum": 1, "maximum": 14,
                 "default": 3},
        "sure": {"type": "boolean", "title": "Sure"},
        "pet": {"type": "string", "title": "Pet", "enum": ["p1", "p2"],
                "enumNames": ["Cat", "Dog"]},
    },
    "required": ["city"],
}


@pytest.fixture
def terminal() -> Iterator[tuple[int, str]]:
    master, slave = os.openpty()
    yield master, os.ttyname(slave)
    os.close(master)
    os.close(slave)


class Typist:
    """Reads what the terminal shows; types an answer once a text has appeared."""

    def __init__(self, master: int) -> None:
        self.master, self.shown = master, b""

    async def answer(self, after: bytes, typed: bytes) -> None:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(30):  # a prompt that never comes fails, not hangs
            while after not in self.shown:
                got = await loop.run_in_executor(None, os.read, self.master, 4096)
                self.shown += got.replace(b"\r\n", b"\n")  # the terminal's line endings
        self.shown = self.shown.split(after, 1)[1]
        os.write(self.master, typed)


async def test_each_field_is_asked_and_a_bad_answer_asked_again(
        terminal: tuple[int, str]) -> None:
    master, path = terminal
    asker = TerminalAsker(tty=path, err=io.StringIO())
    request = ElicitRequest("trip\x1b]0;x\x07", "Where to? \x1b[2J", SCHEMA, None)
    answer = asyncio.create_task(asker.elicit(request))
    typist = Typist(master)
    await typist.answer(b"Answer it? [y/N] ", b"y\n")
    await typist.answer(b"City *\n: ", b"\n")
    await typist.answer(b"City is required.", b"")
    await typist.answer(b"City *\n: ", b"Pune\n")
    await typist.answer(b"Days (1 to 14)\n[3]: ", b"30\n")
    await typist.answer(b"Days must be 1 to 14.", b"")
    await typist.answer(b"[3]: ", b"\n")
    await typist.answer(b"y or n [n]: ", b"y\n")
    await typist.answer(b"  2. Dog\nNumber []: ", b"2\n")
    assert await answer == ("accept", {"city": "Pune", "days": 3, "sure": True, "pet": "p2"})


async def test_a_form_declined_and_hostile_text_drawn_inertly(
        terminal: tuple[int, str]) -> None:
    master, path = terminal
    asker = TerminalAsker(tty=path, err=io.StringIO())
    answer = asyncio.create_task(asker.elicit(ElicitRequest(
        "trip", "Where to? \x1b]52;c;b3duZWQ=\x07", SCHEMA, None)))
    loop = asyncio.get_running_loop()
    shown = b""
    while b"[y/N]" not in shown:
        shown += await loop.run_in_executor(None, os.read, master, 4096)
    os.write(master, b"\n")
    assert await answer == ("decline", None)
    assert b"The tool server trip asks: Where to? ]52;c;b3duZWQ=" in shown
    assert b"\x1b" not in shown


async def test_a_page_is_opened_only_on_a_yes(terminal: tuple[int, str]) -> None:
    master, path = terminal
    asker = TerminalAsker(tty=path, err=io.StringIO())
    opened: list[str] = []
    page = "https://login.example.com/x"
    for typed, expected in ((b"n\n", "decline"), (b"y\n", "accept")):
        answer = asyncio.create_task(elicit_on_terminal(
            asker, ElicitRequest("s", "Sign in", None, page), open_page=opened.append))
        await Typist(master).answer(
            b"It asks you to open a page on login.example.com: " + page.encode() +
            b"\nOpen it? [y/N] ", typed)
        assert await answer == (expected, None)
    assert opened == [page]


async def test_with_no_terminal_the_request_is_declined_in_one_sentence() -> None:
    err = io.StringIO()
    asker = TerminalAsker(tty="/nonexistent/tty", err=err)
    assert await asker.elicit(ElicitRequest("trip", "Where to?", SCHEMA, None)) == (
        "decline", None)
    assert await asker.elicit(ElicitRequest("trip", "Sign in", None, "file:///etc")) == (
        "decline", None)
    assert err.getvalue().splitlines() == [
        "tui-chat: The tool server trip asked for input, declined: there is no terminal to "
        "ask on.",
        "tui-chat: It asks you to open a page on (no domain): file:///etc; declined: the page "
        "it gives is not an http(s) address, so tui-chat does not open it."]
