"""`tui-chat ask` answers the exchange's questions (core.asker) through the terminal.

The question goes to the controlling terminal (/dev/tty) and the answer is read from it,
whatever stdin and stdout are: a prompt piped in, or a reply redirected to a file, never mix
with them. With no terminal (cron, CI, a pipe with no tty) nobody can answer: a confirmation
is refused with one sentence on stderr unless `--yes` answers it, and a question with
choices is refused likewise. `--yes` answers every confirmation yes, on a terminal too, and
says so on stderr. Input a tool server asks for (a form, a page to open) is asked field by
field (commands/ask_elicit.py); with no terminal it is declined with one sentence (`--yes`
does not fill in forms). Reading the answer waits on the event loop (not a thread), so Ctrl+C or
a signal ends the wait at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from tui_chat.core.text import one_line, sanitize

if TYPE_CHECKING:
    from tui_chat.core.mcp.elicitation import ElicitAnswer, ElicitRequest
    from tui_chat.core.mcp.loop import Approval, CallRequest

PROG = "tui-chat"
_YES = {"y", "yes"}
_LINE_LIMIT = 4096


class NoTerminal(Exception):
    """The terminal cannot be opened or read."""


class TerminalAsker:
    """An `Asker` (core.asker) on the terminal `tty`; `assume_yes`: `--yes` was given."""

    def __init__(self, *, assume_yes: bool = False, tty: str = "/dev/tty",
                 err: TextIO | None = None) -> None:
        self.assume_yes = assume_yes
        self.tty = tty
        self._err = err

    @property
    def err(self) -> TextIO:
        return self._err if self._err is not None else sys.stderr

    async def confirm(self, question: str) -> bool:
        shown = _one_line(question)
        if self.assume_yes:
            self._say(f"{shown} Yes (--yes).")
            return True
        try:
            answer = await self._read_answer(f"{shown} [y/N] ")
        except NoTerminal:
            self._say(f"{shown} No: there is no terminal to ask on; pass --yes to approve.")
            return False
        return answer.strip().lower() in _YES

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        shown = _one_line(question)
        lines = [shown, *(f"  {n}. {_one_line(choice)}" for n, choice in
                          enumerate(choices, start=1)), f"Choose 1-{len(choices)}: "]
        try:
            answer = (await self._read_answer("\n".join(lines))).strip()
        except NoTerminal:
            self._say(f"{shown} Not answered: there is no terminal to ask on.")
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1]
        return answer if answer in choices else None

    async def approve_call(self, request: CallRequest) -> Approval:
        """A tool call put to the terminal with its choices; with no terminal, refused in
        one sentence (the calls a server's policy lets run alone never come here)."""
        from tui_chat.core.mcp.approval import Answer
        from tui_chat.core.mcp.loop import CHOICES, Approval

        if self.has_terminal():
            try:
                answer = (await self._read_answer(_call_question(request))).strip()
                choices = list(CHOICES)
                choice = (choices[int(answer) - 1]
                          if answer.isdigit() and 1 <= int(answer) <= len(choices) else answer)
                if CHOICES.get(choice, Answer.DENY) is not Answer.DENY:
                    return Approval(CHOICES[choice])
                reason = await self._read_answer(
                    "Denied. A reason for the model (Enter: none): ")
            except NoTerminal:
                return Approval(Answer.DENY, "tui-chat could not ask the user: no terminal")
            return Approval(Answer.DENY, _one_line(reason)[:2000])
        tool = f"{one_line(request.tool.server, 64)}.{one_line(request.tool.name, 64)}"
        self.say(f"Not run: {tool} needs your approval and there is no terminal to ask on "
                 "(--approve-tools runs every call; approve = \"read-only\" or \"always\" "
                 "under its [mcp.servers] section lets calls run alone).")
        return Approval(Answer.DENY, "tui-chat could not ask the user: no terminal")

    async def elicit(self, request: ElicitRequest) -> ElicitAnswer:
        """A tool server's request for input, asked on the terminal (commands/ask_elicit)."""
        from tui_chat.commands.ask_elicit import elicit_on_terminal

        return await elicit_on_terminal(self, request)

    def has_terminal(self) -> bool:
        """Whether the terminal can be opened, so that the user can be asked."""
        try:
            os.close(os.open(self.tty, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK))
        except OSError:
            return False
        return True

    def say(self, sentence: str) -> None:
        """`sentence` on stderr, after the program's name."""
        print(f"{PROG}: {sentence}", file=self.err, flush=True)

    _say = say

    async def write(self, text: str) -> None:
        """`text` on the terminal (NoTerminal when there is none)."""
        try:
            fd = os.open(self.tty, os.O_RDWR | os.O_NOCTTY)
        except OSError:
            raise NoTerminal from None
        try:
            os.write(fd, text.encode("utf-8", "replace"))
        except OSError:
            raise NoTerminal from None
        finally:
            os.close(fd)

    async def read_answer(self, prompt: str) -> str:
        """Write `prompt` on the terminal and read one line from it ("" at its end);
        NoTerminal when there is none."""
        return await self._read_answer(prompt)

    async def _read_answer(self, prompt: str) -> str:
        """Write `prompt` on the terminal and read one line from it ("" at its end)."""
        try:
            fd = os.open(self.tty, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            raise NoTerminal from None
        try:
            os.write(fd, prompt.encode("utf-8", "replace"))
            return await _line_from(fd)
        except OSError:
            raise NoTerminal from None
        finally:
            os.close(fd)


async def _line_from(fd: int) -> str:
    loop = asyncio.get_running_loop()
    got: asyncio.Future[None] = loop.create_future()
    data = bytearray()

    def readable() -> None:
        try:
            chunk = os.read(fd, 1024)
        except BlockingIOError:
            return
        except OSError as error:
            if not got.done():
                got.set_exception(error)
            return
        data.extend(chunk)
        if (not chunk or b"\n" in data or len(data) > _LINE_LIMIT) and not got.done():
            got.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await got
    finally:
        with contextlib.suppress(Exception):
            loop.remove_reader(fd)
    return data.split(b"\n", 1)[0].decode("utf-8", "replace")


ARGUMENT_LINES = 60
"""The lines of a call's arguments shown on the terminal; a marker counts the rest."""


def _call_question(request: CallRequest) -> str:
    """A tool call as the terminal shows it: the server and the tool, the arguments pretty
    and one line each, the tool's description (all of it untrusted text, sanitized), the
    choices (core.mcp.loop.CHOICES) and the prompt."""
    import json

    from tui_chat.core.mcp.loop import CHOICES

    tool, server = _one_line(request.tool.name)[:64], _one_line(request.tool.server)[:64]
    pretty = json.dumps(request.arguments, indent=2, ensure_ascii=False).splitlines()
    shown = [f"  {sanitize(line)[:400]}" for line in pretty[:ARGUMENT_LINES]]
    if len(pretty) > ARGUMENT_LINES:
        shown.append(f"  … {len(pretty) - ARGUMENT_LINES:,} more lines not shown")
    description = _one_line(request.tool.description)
    lines = [f"The model asks to run the tool {tool} of the server {server} with these "
             "arguments:", *shown,
             *([f"  {one_line(description, 300)}"] if description else []),
             *(f"  {n}. {choice}" for n, choice in enumerate(CHOICES, start=1)),
             f"Choose 1-{len(CHOICES)}: "]
    return "\n".join(lines)


def _one_line(text: str) -> str:
    return " ".join(sanitize(text).split())
