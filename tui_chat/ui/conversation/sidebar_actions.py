"""What the sidebar's keys ask for, decided for the conversation: a dialog first (a new
title, are you sure, which file), then the store, and the views brought up to date.

The screen hands the requests on (`SidebarRequests`); the sidebar itself only posts them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message as TextualMessage

from tui_chat.core.errors import TuiChatError
from tui_chat.core.text import one_line
from tui_chat.ui.widgets.message_list import NEWEST

if TYPE_CHECKING:
    from tui_chat.core.workspace import Workspace
    from tui_chat.ui.conversation.controller import ConversationController
    from tui_chat.ui.conversation.view import ConversationUI


class SidebarRequests:
    """The conversation screen's handlers of the sidebar's requests, by their names
    (`on_conversation_list_…`): an `@on(ConversationList.…)` would import the sidebar's
    module with the screen's, before the first frame, for a sidebar opened on Ctrl+B."""

    sidebar_actions: SidebarActions

    async def on_conversation_list_conversation_chosen(self, event: TextualMessage) -> None:
        await self.sidebar_actions.handle(event)

    async def on_conversation_list_new_conversation_requested(self, event: TextualMessage
                                                              ) -> None:
        await self.sidebar_actions.handle(event)

    async def on_conversation_list_rename_requested(self, event: TextualMessage) -> None:
        await self.sidebar_actions.handle(event)

    async def on_conversation_list_delete_requested(self, event: TextualMessage) -> None:
        await self.sidebar_actions.handle(event)

    async def on_conversation_list_export_requested(self, event: TextualMessage) -> None:
        await self.sidebar_actions.handle(event)


class SidebarActions:
    """Rename, delete and export, each asked for by the sidebar and confirmed by the user."""

    def __init__(self, controller: ConversationController, view: ConversationUI,
                 export_dir: Path | None = None) -> None:
        self.controller = controller
        self.view = view
        self.export_dir = export_dir
        """Where exports are suggested (None: the current folder when asked)."""

    @property
    def workspace(self) -> Workspace:
        return self.controller.workspace

    async def handle(self, request: TextualMessage) -> None:
        """One of the sidebar's requests (the screen's: it goes no further)."""
        from tui_chat.ui.widgets.conversation_list import ConversationList

        request.stop()
        if isinstance(request, ConversationList.ConversationChosen):
            await self.open(request.conversation_id, request.message_id)
        elif isinstance(request, ConversationList.NewConversationRequested):
            await self.controller.new_conversation()
        elif isinstance(request, ConversationList.RenameRequested):
            self.rename(request.conversation_id, request.title)
        elif isinstance(request, ConversationList.DeleteRequested):
            self.delete(request.conversation_id, request.title)
        elif isinstance(request, ConversationList.ExportRequested):
            self.export(request.conversation_id, request.title)

    async def toggle(self) -> None:
        """Mounted on first use: start-up does not pay for listing conversations, nor for
        importing the sidebar's module."""
        from tui_chat.ui.widgets.conversation_list import ConversationList

        sidebar = self.view.sidebar
        if sidebar is None:
            sidebar = ConversationList(self.workspace.store,
                                       active=self.controller.active_conversation_id)
            await self.view.mount_sidebar(sidebar)
            sidebar.option_list.focus()
        elif sidebar.display and sidebar.has_focus_within:
            sidebar.display = False
            self.view.focus_prompt()
        else:
            sidebar.display = True
            sidebar.option_list.focus()

    async def open(self, conversation_id: str, message_id: str | None) -> None:
        """Open a conversation; with `message_id` (a search hit), on that message's branch,
        and select it."""
        await self.view.stop_exchange()
        try:  # the newest messages first: the rest is read after they are drawn
            messages = self.workspace.open_conversation(conversation_id, at_message=message_id,
                                                        newest=NEWEST)
        except TuiChatError as error:
            self.view.say(error.message, severity="error")
            return
        self.controller.conversation_opened()
        await self.view.show_messages(messages,
                                      above=self.workspace.reader_above(messages, NEWEST))
        if message_id is not None:
            await self.view.message_list.reveal(message_id)
        self.view.focus_prompt()

    def rename(self, conversation_id: str, title: str) -> None:
        def answered(new_title: str | None) -> None:
            if new_title is not None:
                self._renamed(conversation_id, new_title)

        self.view.open_text_prompt("New title for this conversation:", title, answered)

    def _renamed(self, conversation_id: str, new_title: str) -> None:
        workspace = self.workspace
        try:
            renamed = workspace.store.rename_conversation(conversation_id, new_title)
        except TuiChatError as error:
            self.view.say(error.message, severity="error")
            return
        if workspace.session.conversation.id == conversation_id:
            workspace.session.conversation.title = renamed.title
        self.view.refresh_chrome()  # the title bar and the sidebar show it
        sidebar = self.view.sidebar
        if sidebar is not None:
            sidebar.reload()

    def delete(self, conversation_id: str, title: str) -> None:
        async def answered(sure: bool | None) -> None:
            if sure:
                await self._deleted(conversation_id)

        self.view.open_confirm(
            f"Delete “{one_line(title, 60)}” and all its messages? This cannot be undone.",
            answered, yes="Delete", no="Keep", danger=True)

    async def _deleted(self, conversation_id: str) -> None:
        workspace = self.workspace
        current = workspace.session.conversation.id == conversation_id
        if current:
            await self.view.stop_exchange()
        try:
            workspace.store.delete_conversation(conversation_id)
        except TuiChatError as error:
            self.view.say(error.message, severity="error")
            return
        if workspace.forget_conversation(conversation_id):
            await self.view.show_messages([])
        sidebar = self.view.sidebar
        if sidebar is not None:
            sidebar.forget(conversation_id)
        self.view.refresh_chrome()

    def export(self, conversation_id: str, title: str) -> None:
        from tui_chat.core.export_files import suggested_export_path

        directory = self.export_dir or Path.cwd()
        suggested = suggested_export_path(directory, title, conversation_id)

        async def answered(answer: str | None) -> None:
            if answer is not None:
                await self._export(conversation_id, Path(answer))

        self.view.open_text_prompt("Export to this Markdown file:", str(suggested), answered,
                                   max_length=1000)

    async def _export(self, conversation_id: str, requested: Path) -> None:
        from tui_chat.core.export_files import export_markdown_file

        store = self.workspace.store
        try:
            path = await asyncio.to_thread(export_markdown_file, store, conversation_id,
                                           requested)
        except TuiChatError as error:
            self.view.say(error.message, severity="error")
            return
        except OSError as error:
            self.view.say(f"Could not write {requested} ({error.strerror or error}); "
                          "choose another folder.", severity="error")
            return
        self.view.say(f"Exported to {path}")
