"""How an exchange asks the user something and waits for the answer.

A tool call waiting for approval, or a tool server asking for input, needs the user in the
middle of a reply. The front-end hands the workspace an `Asker` with the exchange
(`Workspace.send(..., asker=...)`, `compare(..., asker=...)`); whatever runs inside that
exchange asks through `Workspace.asker` and awaits the answer. The app answers through its
view (a modal), `tui-chat ask` through the terminal (`commands/ask_terminal.py`).

Why an object with awaitable methods, not an event carrying a future in the exchange's
stream: an event can be ignored. A consumer that does not know the new event kind (a script,
an older front-end, a test helper that only collects events) would never resolve the
future, and the reply would wait forever with the user staring at it; every `match` over the
events would also have to handle it. An asker is asked directly, the one that answers is
named where the exchange starts, and the default, `REFUSE`, answers at once: a front-end
that offers no way to ask gets a refusal, never a hang. The app can still turn a question
into a message for its widgets: its asker posts one and awaits the view's answer.

Questions are plain text (untrusted parts of them, a tool's name or arguments, are for the
front-end to draw inertly). `ask` offers choices; a free-form answer (a form an MCP server
describes) will be a schema added then, with the same refusal by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Asker(Protocol):
    """Asks the user and waits. Both methods may take as long as the user does; cancelling
    the exchange cancels the question."""

    async def confirm(self, question: str) -> bool:
        """Yes or no: True only when the user said yes."""
        ...

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        """One of `choices`, as the user chose it; None when the user (or the front-end on
        the user's behalf) declined to answer."""
        ...


class Refuse:
    """The asker of a front-end that cannot ask: every confirmation is no, every question
    unanswered."""

    async def confirm(self, question: str) -> bool:
        return False

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        return None


REFUSE: Asker = Refuse()
