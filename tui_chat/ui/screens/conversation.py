"""The conversation screen: messages, the reply streaming in, the prompt and the status line.

It composes widgets and turns session events into widget calls. One worker (group "llm",
exclusive) runs an exchange; Esc cancels it, and ChatSession saves the partial reply as
interrupted. Errors come back as one sentence: inline on the message and as a notification.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import Worker, WorkerState

from tui_chat.core.errors import TuiChatError, unexpected_error_sentence
from tui_chat.core.models import Attachment, Message, Role
from tui_chat.core.session import (
    SessionEvent,
)
from tui_chat.core.store import ConversationGoneError
from tui_chat.core.text import one_line, sanitize
from tui_chat.core.workspace import SettingsChange, Workspace
from tui_chat.ui.advice import sentence
from tui_chat.ui.messages import ConversationChanged
from tui_chat.ui.screens.attach_flow import AttachFlow
from tui_chat.ui.screens.context_status import ContextStatus
from tui_chat.ui.screens.reply_presenter import ReplyPresenter
from tui_chat.ui.screens.sidebar_actions import SidebarActions
from tui_chat.ui.widgets.attachment_list import AttachmentList
from tui_chat.ui.widgets.conversation_list import ConversationList
from tui_chat.ui.widgets.message_list import MessageList
from tui_chat.ui.widgets.message_view import provider_label
from tui_chat.ui.widgets.prompt_input import PromptInput
from tui_chat.ui.widgets.status_bar import StatusBar

if TYPE_CHECKING:  # imported on first use: not on the start-up path
    from tui_chat.ui.screens.model_picker import ModelChoice

YIELD_EVERY = 0.004
"""Seconds of event handling after which the worker lets key presses in."""
YIELD_PAUSE = 0.001
"""How long it then steps aside. Not sleep(0): a key press goes through several tasks (app,
screen, prompt, then the frame), each behind another slice of the worker; a millisecond lets
them all run (benchmarks/bench_ui_stream.py: key press to screen while a reply streams)."""
EMPTY_HINT = ("Type a message and press Enter to send it; Ctrl+J inserts a new line.\n"
              "F2 picks a model, F1 lists every key, Ctrl+P finds any command.")


APPLY_HERE = "Apply Settings to this conversation"


def settings_sentence(change: SettingsChange, *, streaming: bool) -> str:
    """What saving Settings did, in a few short sentences."""
    parts = []
    if change.now:
        parts.append(f"{_listed(change.now).capitalize()}: in force from the next request"
                     + (" (the reply in progress finishes as it started)" if streaming else "")
                     + ".")
    if change.here:
        parts.append(f"{_listed(change.here).capitalize()}: applied to this new conversation.")
    if change.later:
        later = _listed(change.later)
        parts.append(f"{later.capitalize()}: for new conversations (Ctrl+N)"
                     + (f"; to use them here, choose “{APPLY_HERE}” in the palette (Ctrl+P)"
                        if set(change.later) & {"system prompt", "parameters"} else "") + ".")
    if change.provider_removed:
        parts.append(f"{change.provider_removed} is no longer configured: the default provider "
                     "is used from now on.")
    return " ".join(parts) or "Nothing changed."


def _listed(items: tuple[str, ...]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True)
class Exchange:
    """What the worker should do: send a prompt, regenerate, or edit and resend."""

    kind: str  # "send" | "regenerate" | "edit"
    text: str = ""
    message_id: str | None = None
    attachments: tuple[Attachment, ...] = ()


class ConversationScreen(Screen[None]):
    """One conversation. The App pushes it once and swaps conversations through it."""

    CSS_PATH = "conversation.tcss"
    AUTO_FOCUS = "#prompt"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop", "Stop", id="conversation.stop",
                tooltip="Stop the reply (the partial text is kept), or cancel an edit"),
        Binding("ctrl+r", "regenerate(False)", "Regenerate", id="conversation.regenerate",
                tooltip="Write the last reply again"),
        Binding("ctrl+n", "new_conversation", "New", id="conversation.new",
                tooltip="Start a new conversation"),
        Binding("f2", "choose_model", "Model", id="conversation.model",
                tooltip="Pick the model for the next messages"),
        Binding("ctrl+o", "focus_messages", "Messages", id="conversation.messages",
                tooltip="Select a message to copy, edit or regenerate"),
        Binding("ctrl+b", "toggle_sidebar", "Chats", id="conversation.sidebar",
                tooltip="Show or hide saved conversations (search with /)"),
        Binding("ctrl+t", "attach", "Attach", id="conversation.attach",
                tooltip="Attach a file to the next message (or write @path in it)"),
    ]

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace
        self.clock: Callable[[], float] = workspace.clock
        self.editing: Message | None = None
        self.presenter = ReplyPresenter(self)
        self.context_status = ContextStatus(self)
        self.attach_flow = AttachFlow(self)
        self.sidebar_actions = SidebarActions(self)
        self._first_run_hint = ""

    # --- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="title-bar", markup=False)
        with Horizontal(id="body"), Vertical(id="main"):
            yield Static("", id="empty", markup=False)
            yield MessageList(id="messages")
            yield AttachmentList(id="attachments")
            yield PromptInput(id="prompt", placeholder="Message (Enter sends, Ctrl+J new line)")
            yield StatusBar(id="status")
        yield Footer()

    @property
    def message_list(self) -> MessageList:
        return self.query_one("#messages", MessageList)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one("#prompt", PromptInput)

    @property
    def status(self) -> StatusBar:
        return self.query_one("#status", StatusBar)

    @property
    def streaming(self) -> bool:
        return any(not w.is_finished for w in self.workers if w.group == "llm")

    async def show_messages(self, messages: list[Message]) -> None:
        """Show the current conversation (already opened in the workspace)."""
        await self.message_list.load(messages)
        self.prompt.prompt_history = [m.content for m in messages if m.role is Role.USER][-100:]
        self.refresh_chrome()
        self.context_status.changed()
        sidebar = self.sidebar
        if sidebar is not None:
            sidebar.refresh_active()

    def refresh_chrome(self, state: str | None = None) -> None:
        """Title bar, empty-state hint and status line from the workspace's state."""
        workspace = self.workspace
        title = workspace.title
        self.query_one("#title-bar", Static).update(Text(f" tui-chat  ·  {one_line(title)}"))
        empty = self.query_one("#empty", Static)
        empty.display = not self.message_list.messages and self.message_list.reply is None
        hint = Text(EMPTY_HINT)
        if self._first_run_hint:
            hint = Text.assemble((self._first_run_hint, "bold"), "\n\n", EMPTY_HINT)
        empty.update(hint)
        changes: dict[str, object] = {"provider": provider_label(workspace.provider_name),
                                      "model": workspace.model or "no model chosen (F2)"}
        if state is not None:
            changes["state"] = state
        self.status.update_info(**changes)

    def on_mount(self) -> None:
        self.refresh_chrome()

    async def settings_changed(self, change: SettingsChange, no_key_hint: str | None) -> None:
        """New settings were saved: say what took effect where; keys may exist now, the model
        may have changed."""
        self._first_run_hint = no_key_hint or ""
        self.refresh_chrome()
        self.context_status.refresh()
        self.notify(settings_sentence(change, streaming=self.streaming), title="Settings saved",
                    markup=False, timeout=10)

    def palette_commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        """Commands of the palette that no key is bound to: (title, help, run)."""
        return [(APPLY_HERE, "Use the system prompt and parameters of Settings (F3) in the "
                 "conversation on screen from its next message", self.apply_defaults_here)]

    def apply_defaults_here(self) -> None:
        try:
            self.workspace.apply_defaults_here()
        except TuiChatError as error:
            self.notify(error.message, severity="error", markup=False)
            return
        self.notify("This conversation now uses the system prompt and parameters of Settings.",
                    markup=False)

    def show_first_run(self, hint: str) -> None:
        """No key anywhere: say how to add one, in the empty view and as a notification."""
        self._first_run_hint = hint
        self.refresh_chrome()
        self.notify(hint, title="Welcome to tui-chat", severity="warning", markup=False,
                    timeout=20)

    # --- sending -----------------------------------------------------------------------

    @on(PromptInput.Submitted)
    def _submitted(self, event: PromptInput.Submitted) -> None:
        event.stop()
        if self.streaming:
            self.notify("A reply is still streaming: wait for it, or press Esc to stop it.",
                        markup=False, severity="warning")
            return
        attachments = [] if self.editing is not None else self.attach_flow.collect(event.text)
        if attachments is None:
            return  # said why; the prompt and the list stay as they are
        self.context_status.before_send(event.text, self._send_now, attachments)

    def _send_now(self, text: str) -> None:
        self.prompt.remember(text)
        self.prompt.clear()
        if self.editing is not None:
            message, self.editing = self.editing, None
            self.start(Exchange("edit", text, message.id))
        else:
            self.start(Exchange("send", text, attachments=tuple(self.attach_flow.take())))

    def start(self, exchange: Exchange) -> None:
        self.run_exchange(exchange)

    def conversation_gone(self, error: ConversationGoneError, *, replied: bool) -> None:
        """The conversation on screen was deleted elsewhere: say so once; the next message
        starts a new conversation (what is on screen stays until then)."""
        if not self.workspace.forget_conversation(error.conversation_id):
            return
        then = ("the reply stays on screen but is not saved. " if replied else
                "your message is back in the prompt. ")
        self.notify(f"{error.message.rstrip('.')}: {then}The next message starts a new "
                    "conversation.", title="Conversation deleted", severity="warning",
                    markup=False, timeout=15)
        self.refresh_chrome()

    @work(exclusive=True, group="llm", exit_on_error=False)
    async def run_exchange(self, exchange: Exchange) -> None:
        if self.message_list.messages and not self.workspace.session.is_saved:
            await self.show_messages([])  # the one shown was deleted: a new one starts
        presenter = self.presenter
        presenter.begin(exchange.text)
        self.attach_flow.in_flight = list(exchange.attachments)
        try:
            # aclosing: stopped between two events (drawing one), the session still saves the
            # reply as interrupted before `stopped()` reads it, not whenever it is collected.
            async with contextlib.aclosing(self._events_for(exchange)) as events:
                turn = time.perf_counter()
                async for event in events:
                    await presenter.apply(event)
                    if time.perf_counter() - turn > YIELD_EVERY:
                        # One network read can hold hundreds of events, and an async
                        # generator hands them over without returning to the loop.
                        await asyncio.sleep(YIELD_PAUSE)
                        turn = time.perf_counter()
        except asyncio.CancelledError:
            await presenter.stopped()
            raise
        except ConversationGoneError as error:
            await presenter.failed_before_reply(error.message, notify=False)
            self.conversation_gone(error, replied=False)
        except TuiChatError as error:
            await presenter.failed_before_reply(sentence(error))
        except Exception:
            await presenter.stopped()  # a bug: show what was saved, then report it
            raise
        finally:
            if self.workspace.session.is_saved:
                self.post_message(ConversationChanged(self.workspace.session.conversation.id))

    def _events_for(self, exchange: Exchange) -> AsyncGenerator[SessionEvent, None]:
        workspace = self.workspace
        if exchange.kind == "regenerate":
            return workspace.regenerate()
        if exchange.kind == "edit" and exchange.message_id is not None:
            return workspace.edit_and_resend(exchange.message_id, exchange.text)
        return workspace.send(exchange.text, attachments=exchange.attachments)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "llm" and event.state is WorkerState.ERROR:
            from tui_chat.core.crash import write_report

            error = event.worker.error
            if error is None:
                return
            report = write_report(error)
            where = f" The details are in {report}." if report else ""
            self.notify(unexpected_error_sentence(error) + where, title="Unexpected error",
                        severity="error", markup=False)

    # --- actions -----------------------------------------------------------------------

    async def stop_streaming(self) -> None:
        """Cancel the reply in progress (saved as interrupted) and wait until it is drawn."""
        workers = [w for w in self.workers if w.group == "llm" and not w.is_finished]
        for worker in workers:
            worker.cancel()
        for worker in workers:
            with contextlib.suppress(Exception):
                await worker.wait()

    async def action_stop(self) -> None:
        if self.streaming:
            for worker in self.workers:
                if worker.group == "llm":
                    worker.cancel()
        elif self.editing is not None:
            self.editing = None
            self.prompt.clear()
            self.status.update_info(note="")
            self.prompt.focus()

    def action_regenerate(self, choose_model: bool = False) -> None:
        if self.streaming:
            self.notify("A reply is still streaming: press Esc first.", markup=False,
                        severity="warning")
            return
        if not any(m.role is Role.USER for m in self.message_list.messages):
            self.notify("There is nothing to regenerate yet: send a message first.",
                        markup=False, severity="warning")
            return
        if choose_model:
            self.choose_model(then_regenerate=True)
            return
        self.run_exchange(Exchange("regenerate"))

    async def action_new_conversation(self) -> None:
        await self.stop_streaming()
        self.workspace.new_conversation()
        self.editing = None
        await self.show_messages([])
        self.prompt.focus()

    def action_choose_model(self) -> None:
        self.choose_model()

    def choose_model(self, *, then_regenerate: bool = False,
                     then: Callable[[], None] | None = None) -> None:
        """Open the model picker; the choice applies from the next message on (`then`: what
        to do once one is chosen)."""
        from tui_chat.ui.screens.model_picker import ModelChoice, ModelPickerScreen

        workspace = self.workspace
        recent = [ModelChoice(p, m) for p, m in workspace.recent_models()]
        picker = ModelPickerScreen(workspace.settings, catalog=workspace.catalog,
                                   recent=recent,
                                   current=ModelChoice(workspace.provider_name, workspace.model)
                                   if workspace.model else None)

        def chosen(choice: ModelChoice | None) -> None:
            if choice is None:
                return
            try:
                workspace.choose(choice.provider, choice.model)
            except TuiChatError as error:
                self.notify(error.message, severity="error", markup=False)
                return
            self.refresh_chrome()
            self.context_status.changed()
            if then_regenerate:
                self.run_exchange(Exchange("regenerate"))
            if then is not None:
                then()

        self.app.push_screen(picker, chosen)

    def action_focus_messages(self) -> None:
        self.message_list.focus()

    def action_attach(self) -> None:
        self.attach_flow.open_picker()

    @on(PromptInput.AttachRequested)
    def _attach_mentioned(self, event: PromptInput.AttachRequested) -> None:
        self.attach_flow.attach(event.path)

    @on(AttachmentList.Changed)
    def _attachments_changed(self) -> None:
        self.context_status.refresh()  # the context counts what is listed for the next message

    @on(AttachmentList.LeaveRequested)
    def _attachments_left(self) -> None:
        self.prompt.focus()

    @on(MessageList.EditRequested)
    def _edit(self, event: MessageList.EditRequested) -> None:
        if self.streaming:
            self.notify("A reply is still streaming: press Esc first.", markup=False,
                        severity="warning")
            return
        self.editing = event.message
        self.prompt.load_text(event.message.content)
        self.prompt.move_cursor(self.prompt.document.end)
        self.prompt.focus()
        self.status.update_info(note="editing: Enter resends from this message, Esc cancels")

    @on(MessageList.RegenerateRequested)
    def _regenerate(self, event: MessageList.RegenerateRequested) -> None:
        self.action_regenerate(event.choose_model)

    @on(MessageList.LeaveRequested)
    def _leave(self) -> None:
        self.prompt.focus()

    @on(MessageList.LinkRequested)
    def _link_requested(self, event: MessageList.LinkRequested) -> None:
        event.stop()
        self.confirm_open(event.url)

    def confirm_open(self, href: str) -> None:
        """Links the model wrote open only after the user says yes."""
        from tui_chat.ui.screens.confirm import ConfirmScreen

        url = sanitize(href)

        def answered(yes: bool | None) -> None:
            if yes:
                self.app.open_url(url)

        self.app.push_screen(ConfirmScreen(f"Open this link in your browser?\n\n{url}",
                                           yes="Open"), answered)

    # --- sidebar -----------------------------------------------------------------------

    @property
    def sidebar(self) -> ConversationList | None:
        found = self.query(ConversationList)
        return found.first() if found else None

    def _active_id(self) -> str | None:
        session = self.workspace.session
        return session.conversation.id if session.is_saved else None

    async def action_toggle_sidebar(self) -> None:
        """Mounted on first use: start-up does not pay for listing conversations."""
        sidebar = self.sidebar
        if sidebar is None:
            sidebar = ConversationList(self.workspace.store, active=self._active_id)
            await self.query_one("#body").mount(sidebar, before=0)
            sidebar.option_list.focus()
        elif sidebar.display and sidebar.has_focus_within:
            sidebar.display = False
            self.prompt.focus()
        else:
            sidebar.display = True
            sidebar.option_list.focus()

    def on_conversation_changed(self, event: ConversationChanged) -> None:
        sidebar = self.sidebar
        if sidebar is not None:
            sidebar.reload()

    @on(ConversationList.ConversationChosen)
    async def _open_chosen(self, event: ConversationList.ConversationChosen) -> None:
        event.stop()
        await self.stop_streaming()
        try:
            messages = self.workspace.open_conversation(event.conversation_id)
        except TuiChatError as error:
            self.notify(error.message, severity="error", markup=False)
            return
        self.editing = None
        await self.show_messages(messages)
        if event.message_id is not None:
            await self.message_list.reveal(event.message_id)
        self.prompt.focus()

    @on(ConversationList.NewConversationRequested)
    async def _new_requested(self, event: ConversationList.NewConversationRequested) -> None:
        event.stop()
        await self.action_new_conversation()

    @on(ConversationList.RenameRequested)
    def _rename_requested(self, event: ConversationList.RenameRequested) -> None:
        event.stop()
        self.sidebar_actions.rename(event.conversation_id, event.title)

    @on(ConversationList.DeleteRequested)
    def _delete_requested(self, event: ConversationList.DeleteRequested) -> None:
        event.stop()
        self.sidebar_actions.delete(event.conversation_id, event.title)

    @on(ConversationList.ExportRequested)
    def _export_requested(self, event: ConversationList.ExportRequested) -> None:
        event.stop()
        self.sidebar_actions.export(event.conversation_id, event.title)

    def conversations_changed(self) -> None:
        """A title or the list changed: the title bar and the sidebar show it."""
        self.refresh_chrome()
        sidebar = self.sidebar
        if sidebar is not None:
            sidebar.reload()
