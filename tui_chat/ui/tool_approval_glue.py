"""The app's side of tools in an exchange: how it answers the exchange's questions, and how
the calls show while a reply streams (issue 23).

- `ScreenAsker` is the exchange's asker (core.asker) in the app: a tool call goes to the
  approval dialog (screens/tool_approval.py) with its server, tool and arguments as data
  (it is a core.mcp.loop.CallApprover, so a denial can carry a reason); a yes-or-no
  question ("this model takes no tools: send without them?") goes to the confirm dialog,
  whose safe default is no. A question with other choices is declined (None): nothing in
  the app asks one yet. The exchange cancelled while a dialog is up (quit, another
  conversation) takes the dialog away.
- `ToolEvents` draws the tool events of one exchange: the calls as their fragments arrive
  (`widgets.tool_rows.LiveCalls`, below the live reply, gone when the reply ends: its
  finished view shows them), the call that runs (in the live rows and the status line),
  and each call's result as a folded tool message in the list. Esc while a call runs
  cancels that call alone (`cancel_call`): the model is told it was cancelled by the user,
  and the exchange goes on; Esc again stops the exchange.

Both are made by the conversation screen; the presenter hands `ToolEvents` every event.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from tui_chat.core.events import ToolCallDelta
from tui_chat.core.session import ReplyFailed, ReplyFinished, ReplyStarted
from tui_chat.core.tool_exchange import ToolCallFinished, ToolCallStarted

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.screen import Screen

    from tui_chat.core.mcp.loop import Approval, CallRequest
    from tui_chat.core.workspace import Workspace
    from tui_chat.ui.screens.conversation import ConversationScreen
    from tui_chat.ui.widgets.tool_rows import LiveCalls

T = TypeVar("T")


class ScreenAsker:
    """The exchange's asker on `node`'s app: see the module's docstring."""

    def __init__(self, node: DOMNode, waiting: Callable[[bool], None] | None = None) -> None:
        self.node = node
        self.waiting = waiting
        """Told True when a call waits for the user's answer, False when answered."""

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
        if self.waiting is not None:
            self.waiting(True)
        try:
            answer = await self._answer(screen)
        finally:
            if self.waiting is not None:
                self.waiting(False)
        return answer if answer is not None else Approval(Answer.DENY)

    async def _answer(self, screen: Screen[T]) -> T | None:
        """Push `screen` and wait for what it dismisses with; cancelled, the screen goes."""
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


def tools_badge(workspace: Workspace) -> str:
    """The status line's tools: "🔧 7" (the tools the next message offers), "🔧 2 servers"
    before they start (with the first message that offers tools), "" for none (no server on
    for this conversation, or a model that takes no tools)."""
    count = workspace.tools_offered()
    if count is None:
        servers = len(workspace.tool_servers())
        return f"🔧 {servers} server{'s' if servers != 1 else ''}"
    return f"🔧 {count}" if count else ""


def screen_asker(screen: ConversationScreen) -> ScreenAsker:
    """The asker the conversation screen gives its exchanges; the status line says when a
    call waits for the user."""

    def waiting(now: bool) -> None:
        if now:
            screen.status.update_info(state="waiting for you", note="a tool call asks to run")
        else:
            screen.status.update_info(state="streaming…", note="")

    return ScreenAsker(screen, waiting)


class ToolEvents:
    """The tool events of the exchanges on `host`: see the module's docstring."""

    def __init__(self, host: ConversationScreen) -> None:
        self.host = host
        self.live: LiveCalls | None = None
        self._cancel: Callable[[], None] | None = None  # the running call's

    async def apply(self, event: object) -> None:
        """Draw `event` if it is about tools (every event of the exchange comes here, after
        the presenter drew it)."""
        if isinstance(event, ToolCallDelta):
            live = await self._live()
            live.add(event)
        elif isinstance(event, ReplyStarted | ReplyFailed):
            await self.end()
        elif isinstance(event, ReplyFinished):
            await self.end()
            if event.message.tool_calls and self._tools_offered():
                self._calls_will_run(event.message.id)
        elif isinstance(event, ToolCallStarted):
            run = event.message.tool_run
            name = run.name if run is not None else "a tool"
            server = run.server if run is not None else None
            (await self._live()).run(name, server)
            self._cancel = event.cancel
            self.host.status.update_info(state="running a tool…", note="Esc cancels the call")
        elif isinstance(event, ToolCallFinished):
            self._cancel = None
            await self.end()
            await self.host.message_list.add_message(event.message)
            self.host.status.update_info(state="streaming…", note="")

    def _tools_offered(self) -> bool:
        """Whether this exchange offers tools, and so answers the calls (servers on for the
        conversation, and a model that takes them)."""
        workspace = self.host.workspace
        return bool(workspace.tool_servers()) and workspace.takes_tools()

    def _calls_will_run(self, reply_id: str) -> None:
        """The finished view of `reply_id` says its calls are answered, not "tools are not
        enabled", while they are put to the user and run."""
        from tui_chat.ui.widgets.message_view import MessageView

        views = self.host.message_list.query(MessageView)
        if views and views.last().message.id == reply_id:
            views.last().set_calls_run(True)

    def cancel_call(self) -> bool:
        """Cancel the call that runs, if one does (Esc): whether one did."""
        cancel, self._cancel = self._cancel, None
        if cancel is None:
            return False
        cancel()
        self.host.status.update_info(state="cancelling the call…", note="")
        return True

    async def end(self) -> None:
        """The live rows go (the reply ended, the exchange stopped)."""
        self._cancel = None
        live, self.live = self.live, None
        if live is not None:
            await live.remove()

    async def _live(self) -> LiveCalls:
        if self.live is None:
            from tui_chat.ui.widgets.tool_rows import LiveCalls

            self.live = LiveCalls()
            await self.host.message_list.mount(self.live)
            self.host.message_list.anchor()
        return self.live
