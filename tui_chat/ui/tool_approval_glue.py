"""The app's side of tools in an exchange: how it answers the exchange's questions, and how
the calls show while a reply streams (issue 23).

- `ScreenAsker` is the exchange's asker (core.asker) in the app: a tool call goes to the
  approval dialog (screens/tool_approval.py) with its server, tool and arguments as data
  (it is a core.mcp.loop.CallApprover, so a denial can carry a reason); a yes-or-no
  question ("this model takes no tools: send without them?") goes to the confirm dialog,
  whose safe default is no. A question with other choices is declined (None): nothing in
  the app asks one yet. Input a tool server asks for (MCP elicitation) goes to
  screens/elicitation.py: a form built from its schema, or, in URL mode, the page's domain
  and a yes before the page is opened (by the app's driver, only after that yes); a form
  no dialog can show is declined with one sentence. The exchange cancelled while a dialog
  is up (quit, another conversation) takes the dialog away.
- `tools_badge`: the status line's tools.

The tool events of an exchange are drawn by ui/conversation/tool_events.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from tui_chat.core.text import one_line

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.screen import Screen

    from tui_chat.core.mcp.elicitation import ElicitAnswer, ElicitRequest
    from tui_chat.core.mcp.loop import Approval, CallRequest
    from tui_chat.core.workspace import Workspace

T = TypeVar("T")


class ScreenAsker:
    """The exchange's asker on `node`'s app: see the module's docstring."""

    def __init__(self, node: DOMNode, waiting: Callable[[bool], None] | None = None) -> None:
        self.node = node
        self.waiting = waiting
        """Told True when a call (or a server's request for input) waits for the user's
        answer, False when answered."""

    @property
    def app(self) -> App[Any]:
        return self.node.app

    async def confirm(self, question: str) -> bool:
        from tui_chat.ui.screens.confirm import ConfirmScreen

        yes: bool | None = await self._answer(ConfirmScreen(question))
        return bool(yes)

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        return None

    async def approve_call(self, request: CallRequest) -> Approval:
        from tui_chat.core.mcp.approval import Answer
        from tui_chat.core.mcp.loop import Approval
        from tui_chat.ui.screens.tool_approval import ToolApprovalScreen

        screen = ToolApprovalScreen(request.tool.server, request.tool.name, request.arguments,
                                    description=request.tool.description)
        answer = await self._waited(screen)
        return answer if answer is not None else Approval(Answer.DENY)

    async def elicit(self, request: ElicitRequest) -> ElicitAnswer:
        from tui_chat.core.mcp.elicitation import form_fields
        from tui_chat.ui.screens.elicitation import ElicitFormScreen, ElicitUrlScreen

        if request.url is not None:
            answer = await self._waited(ElicitUrlScreen(request))
            if answer is not None and answer[0] == "accept":
                self.app.open_url(request.url)
            return answer if answer is not None else ("cancel", None)
        fields = form_fields(request.schema)
        if isinstance(fields, str):
            self.app.notify(f"The tool server {one_line(request.server, 64)} asked for input, "
                            f"declined: {fields}.", markup=False, severity="warning")
            return "decline", None
        answer = await self._waited(ElicitFormScreen(request, fields))
        return answer if answer is not None else ("cancel", None)

    async def _waited(self, screen: Screen[T]) -> T | None:
        """`_answer`, with `waiting` told while the user is asked."""
        if self.waiting is not None:
            self.waiting(True)
        try:
            return await self._answer(screen)
        finally:
            if self.waiting is not None:
                self.waiting(False)

    async def _answer(self, screen: Screen[T]) -> T | None:
        """Push `screen` and wait for what it dismisses with; cancelled, the screen goes.

        What the exchange drew just before asking (the reply that made the call) is laid out
        first: Textual lays out only the current screen, so a dialog pushed before the
        screen below had its next refresh would leave the stale frame behind the dialog
        (the finished reply missing) for as long as the question is up."""
        await drawn(self.node)
        done: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()

        def answered(result: T | None) -> None:
            if not done.done():
                done.set_result(result)

        self.app.push_screen(screen, answered)
        try:
            return await done
        except asyncio.CancelledError:
            if self.app.screen is screen:
                self.app.pop_screen()
            raise


async def drawn(node: DOMNode) -> None:
    """Until the current screen has refreshed (laid out and drawn what is mounted): Textual
    runs `call_after_refresh` callbacks once the screen has no layout or repaint pending.
    Returns at once when called in the node's own task (it would wait for itself) or when
    the node no longer runs (a closing app's workers are cancelled)."""
    if node.is_running:
        await node.wait_for_refresh()


def tools_badge(workspace: Workspace) -> str:
    """The status line's tools: "🔧 7" (the tools the next message offers), "🔧 2 servers"
    before they start (with the first message that offers tools), "" for none (no server on
    for this conversation, or a model that takes no tools)."""
    count = workspace.tools_offered()
    if count is None:
        servers = len(workspace.tool_servers())
        return f"🔧 {servers} server{'s' if servers != 1 else ''}"
    return f"🔧 {count}" if count else ""
