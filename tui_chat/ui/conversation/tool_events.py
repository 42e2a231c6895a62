"""The tool events of one exchange, drawn through the conversation's view (issue 23).

The calls as their fragments arrive (`widgets.tool_rows.LiveCalls`, below the live reply,
gone when the reply ends: its finished view shows them), the call that runs (in the live
rows and the status line), and each call's result as a folded tool message in the list. Esc
while a call runs cancels that call alone (`cancel_call`): the model is told it was
cancelled by the user, and the exchange goes on; Esc again stops the exchange. The
controller hands the tool events to the presenter, which hands them here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tui_chat.core.events import ToolCallDelta
from tui_chat.core.tool_exchange import ToolCallFinished, ToolCallStarted

if TYPE_CHECKING:
    from tui_chat.core.models import Message
    from tui_chat.core.workspace import Workspace
    from tui_chat.ui.conversation.view import Surface
    from tui_chat.ui.widgets.tool_rows import LiveCalls

ToolEvent = ToolCallDelta | ToolCallStarted | ToolCallFinished


class ToolEvents:
    """The tool events of the exchanges drawn by `view`: see the module's docstring."""

    def __init__(self, view: Surface, workspace: Callable[[], Workspace]) -> None:
        self.view = view
        self._workspace = workspace
        self.live: LiveCalls | None = None
        self._cancel: Callable[[], None] | None = None  # the running call's

    async def reply_finished(self, message: Message) -> None:
        """A reply ended: its live rows go, and its calls are answered when tools are on."""
        await self.end()
        if message.tool_calls and self._tools_offered():
            self._calls_will_run(message.id)

    async def apply(self, event: ToolEvent) -> None:
        """Draw a tool event of the exchange."""
        if isinstance(event, ToolCallDelta):
            live = await self._live()
            live.add(event)
        elif isinstance(event, ToolCallStarted):
            run = event.message.tool_run
            name = run.name if run is not None else "a tool"
            server = run.server if run is not None else None
            (await self._live()).run(name, server, event.progress)
            self._cancel = event.cancel
            self.view.status.update_info(state="running a tool…", note="Esc cancels the call")
        elif isinstance(event, ToolCallFinished):
            self._cancel = None
            await self.end()
            await self.view.message_list.add_message(event.message)
            self.view.status.update_info(state="streaming…", note="")

    def _tools_offered(self) -> bool:
        """Whether this exchange offers tools, and so answers the calls (servers on for the
        conversation, and a model that takes them)."""
        workspace = self._workspace()
        return bool(workspace.tool_servers()) and workspace.takes_tools()

    def _calls_will_run(self, reply_id: str) -> None:
        """The finished view of `reply_id` says its calls are answered, not "tools are not
        enabled", while they are put to the user and run."""
        from tui_chat.ui.widgets.message_view import MessageView

        views = self.view.message_list.query(MessageView)
        if views and views.last().message.id == reply_id:
            views.last().set_calls_run(True)

    def cancel_call(self) -> bool:
        """Cancel the call that runs, if one does (Esc): whether one did."""
        cancel, self._cancel = self._cancel, None
        if cancel is None:
            return False
        cancel()
        self.view.status.update_info(state="cancelling the call…", note="")
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

            self.live = LiveCalls(
                reading_width=self.view.message_list.reading_width or None)
            await self.view.message_list.mount(self.live)
            self.view.message_list.anchor()
        return self.live
