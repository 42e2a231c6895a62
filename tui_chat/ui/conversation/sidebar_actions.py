"""What the sidebar's keys ask for, decided for the conversation screen: a dialog first (a new
title, are you sure, which file), then the store, and the views brought up to date.

Split from the screen so that each stays short; the sidebar itself only posts requests.
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
    from tui_chat.ui.screens.conversation import ConversationScreen


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

    def __init__(self, host: ConversationScreen, export_dir: Path | None = None) -> None:
        self.host = host
        self.export_dir = export_dir
        """Where exports are suggested (None: the current folder when asked)."""

    async def handle(self, request: TextualMessage) -> None:
        """One of the sidebar's requests (the screen's: it goes no further)."""
        from tui_chat.ui.widgets.conversation_list import ConversationList

        request.stop()
        if isinstance(request, ConversationList.ConversationChosen):
            await self.open(request.conversation_id, request.message_id)
        elif isinstance(request, ConversationList.NewConversationRequested):
            await self.host.action_new_conversation()
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

        host = self.host
        sidebar = host.sidebar
        if sidebar is None:
            sidebar = ConversationList(host.workspace.store,
                                       active=host.active_conversation_id)
            await host.query_one("#body").mount(sidebar, before=0)
            sidebar.option_list.focus()
        elif sidebar.display and sidebar.has_focus_within:
            sidebar.display = False
            host.prompt.focus()
        else:
            sidebar.display = True
            sidebar.option_list.focus()

    async def open(self, conversation_id: str, message_id: str | None) -> None:
        """Open a conversation; with `message_id` (a search hit), on that message's branch,
        and select it."""
        host = self.host
        await host.stop_streaming()
        try:  # the newest messages first: the rest is read after they are drawn
            messages = host.workspace.open_conversation(conversation_id, at_message=message_id,
                                                        newest=NEWEST)
        except TuiChatError as error:
            host.notify(error.message, severity="error", markup=False)
            return
        host.controller.conversation_opened()
        await host.show_messages(messages,
                                 above=host.workspace.reader_above(messages, NEWEST))
        if message_id is not None:
            await host.message_list.reveal(message_id)
        host.prompt.focus()

    def rename(self, conversation_id: str, title: str) -> None:
        from tui_chat.ui.screens.confirm import TextPromptScreen  # dialogs: on first use

        def answered(new_title: str | None) -> None:
            if new_title is not None:
                self._renamed(conversation_id, new_title)

        self.host.app.push_screen(TextPromptScreen("New title for this conversation:", title),
                                  answered)

    def _renamed(self, conversation_id: str, new_title: str) -> None:
        workspace = self.host.workspace
        try:
            renamed = workspace.store.rename_conversation(conversation_id, new_title)
        except TuiChatError as error:
            self.host.notify(error.message, severity="error", markup=False)
            return
        if workspace.session.conversation.id == conversation_id:
            workspace.session.conversation.title = renamed.title
        self.host.conversations_changed()

    def delete(self, conversation_id: str, title: str) -> None:
        from tui_chat.ui.screens.confirm import ConfirmScreen

        async def answered(sure: bool | None) -> None:
            if sure:
                await self._deleted(conversation_id)

        self.host.app.push_screen(ConfirmScreen(
            f"Delete “{one_line(title, 60)}” and all its messages? This cannot be undone.",
            yes="Delete", no="Keep", danger=True), answered)

    async def _deleted(self, conversation_id: str) -> None:
        host = self.host
        current = host.workspace.session.conversation.id == conversation_id
        if current:
            await host.stop_streaming()
        try:
            host.workspace.store.delete_conversation(conversation_id)
        except TuiChatError as error:
            host.notify(error.message, severity="error", markup=False)
            return
        if host.workspace.forget_conversation(conversation_id):
            await host.show_messages([])
        sidebar = host.sidebar
        if sidebar is not None:
            sidebar.forget(conversation_id)
        host.refresh_chrome()

    def export(self, conversation_id: str, title: str) -> None:
        from tui_chat.core.export_files import suggested_export_path
        from tui_chat.ui.screens.confirm import TextPromptScreen

        directory = self.export_dir or Path.cwd()
        suggested = suggested_export_path(directory, title, conversation_id)

        async def answered(answer: str | None) -> None:
            if answer is not None:
                await self._export(conversation_id, Path(answer))

        self.host.app.push_screen(TextPromptScreen("Export to this Markdown file:",
                                                   str(suggested), max_length=1000), answered)

    async def _export(self, conversation_id: str, requested: Path) -> None:
        from tui_chat.core.export_files import export_markdown_file

        store = self.host.workspace.store
        try:
            path = await asyncio.to_thread(export_markdown_file, store, conversation_id,
                                           requested)
        except TuiChatError as error:
            self.host.notify(error.message, severity="error", markup=False)
            return
        except OSError as error:
            self.host.notify(f"Could not write {requested} ({error.strerror or error}); "
                             "choose another folder.", severity="error", markup=False)
            return
        self.host.notify(f"Exported to {path}", markup=False)
