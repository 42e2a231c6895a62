"""The conversation screen: messages, the reply streaming in, the prompt and the status line.

It composes the widgets and implements the conversation's view (`ui.conversation.view`):
the controller (`ui.conversation.controller`) decides, and the presenters and helpers of
`ui/conversation/` draw through this screen's widgets and dialogs (`ConversationDialogs`).
One worker (group "llm", exclusive) runs an exchange; Esc cancels it, and ChatSession saves
the partial reply as interrupted. Errors come back as one sentence: inline on the message
and as a notification.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message as TextualMessage
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from tui_chat.core.errors import TuiChatError, unexpected_error_sentence
from tui_chat.core.models import Message, Role
from tui_chat.core.text import one_line, sanitize
from tui_chat.core.workspace import SettingsChange, Workspace
from tui_chat.ui import gc_policy
from tui_chat.ui.conversation.attach_flow import AttachFlow
from tui_chat.ui.conversation.branch_actions import BranchActions
from tui_chat.ui.conversation.context_status import ContextStatus
from tui_chat.ui.conversation.controller import ConversationController, Exchange
from tui_chat.ui.conversation.conversation_setup import ConversationSetup
from tui_chat.ui.conversation.model_actions import COMPARE_TITLE, ModelActions
from tui_chat.ui.conversation.reply_presenter import ReplyPresenter
from tui_chat.ui.conversation.send_flow import SendFlow
from tui_chat.ui.conversation.sidebar_actions import SidebarActions, SidebarRequests
from tui_chat.ui.key_hints import hint_key
from tui_chat.ui.messages import ConversationChanged, ConversationShown
from tui_chat.ui.screens.conversation_dialogs import ConversationDialogs
from tui_chat.ui.screens.settings_note import APPLY_HERE, settings_sentence
from tui_chat.ui.tool_approval_glue import ScreenAsker, tools_badge
from tui_chat.ui.widgets.fitted_footer import FittedFooter
from tui_chat.ui.widgets.message_list import MessageList, ReadAbove
from tui_chat.ui.widgets.message_view import Position, provider_label
from tui_chat.ui.widgets.prompt_input import PromptInput
from tui_chat.ui.widgets.status_bar import StatusBar, next_reasoning, reasoning_badge

if TYPE_CHECKING:  # imported on first use: not on the start-up path
    from tui_chat.core.mcp.elicitation import ElicitAnswer, ElicitRequest
    from tui_chat.core.mcp.loop import Approval, CallRequest
    from tui_chat.ui.conversation.compare_presenter import ComparePresenter
    from tui_chat.ui.conversation.view import ExchangePresenter, Severity
    from tui_chat.ui.widgets.compare_view import CompareView
    from tui_chat.ui.widgets.conversation_list import ConversationList

def empty_hint() -> str:
    """The empty conversation's hint, naming the user's keys ([keys])."""
    return ("Type a message and press Enter to send it; Ctrl+J inserts a new line.\n"
            f"{hint_key('conversation.model', 'F2')} picks a model, "
            f"{hint_key('app.help', 'F1')} lists every key, Ctrl+P finds any command.")


def prompt_placeholder() -> str:
    return (f"Message (Enter sends, Ctrl+J new line, {hint_key('conversation.attach', 'Ctrl+T')}"
            " or @path attaches a file)")


__all__ = ["ConversationScreen", "Exchange"]


class ConversationScreen(SidebarRequests, ConversationDialogs, Screen[None]):
    """One conversation. The App pushes it once and swaps conversations through it.

    It draws and reports (`ConversationView`); its controller decides and keeps the
    interaction state (`ConversationController`)."""

    # conversation.tcss, beside this file, is read with the app's stylesheet (ui.app).
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
        Binding("f8", "conversation_settings", "Chat settings", id="conversation.settings",
                tooltip="This conversation's system prompt, parameters and persona (the "
                "defaults for new ones are in Settings, F3)", show=False),
        Binding("f9", "cycle_reasoning", "Reasoning", id="conversation.reasoning",
                tooltip="How much the model reasons in this conversation: default, off, low, "
                "medium, high (also in F8)", show=False),
        Binding("ctrl+t", "attach", "Attach", id="conversation.attach",
                tooltip="Attach a file to the next message (or write @path in it)",
                show=False),  # the prompt's placeholder says it: the footer is full at 120
    ]

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace
        self.clock: Callable[[], float] = workspace.clock
        self.controller = controller = ConversationController(workspace, self)
        self.attach_flow = AttachFlow(controller, self)
        self.context_status = ContextStatus(controller, self, self.attach_flow,
                                            lambda then, window: self.choose_model(
                                                then=then, min_window=window))
        self.presenter = ReplyPresenter(controller, self, self.context_status,
                                        self.attach_flow)
        self.sidebar_actions = SidebarActions(controller, self)
        self.branches = BranchActions(controller, self, self.context_status)
        self.models = ModelActions(controller, self, self.context_status)
        self.setup = ConversationSetup(controller, self)
        self.send_flow = SendFlow(controller, self, self.attach_flow, self.context_status,
                                  self.models)
        self._compare_presenter: ComparePresenter | None = None
        self._first_run_hint = ""
        self._reasoning_said: tuple[str, str] | None = None  # the model it was said of

    # --- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="title-bar", markup=False)
        with Horizontal(id="body"), Vertical(id="main"):
            yield Static("", id="empty", markup=False)
            yield Static("", id="system-row", markup=False)
            yield MessageList(id="messages", positions=self.positions_of,
                              reading_width=self.workspace.settings.reading_width,
                              path_read=self._path_read)
            # the attachments' list goes here with the first one (AttachFlow.listed)
            yield PromptInput(id="prompt", placeholder=prompt_placeholder())
            yield StatusBar(id="status")
        yield FittedFooter()

    def later_widgets(self) -> list[Widget]:
        """Widgets mounted only when needed, whose keys the help and the palette list from
        the start (`screens.help.screen_nodes`)."""
        return [self.attach_flow.widget]

    def positions_of(self, messages: Sequence[Message]) -> Mapping[str, Position]:
        """Where each message stands among its siblings (‹ 2/3 › in its header)."""
        session = self.workspace.session
        if not session.is_saved:
            return {}
        try:
            return self.workspace.store.positions(session.conversation.id,
                                                  [m.id for m in messages])
        except TuiChatError:  # the conversation deleted elsewhere: no indicator, no crash
            return {}

    @property
    def compare_presenter(self) -> ComparePresenter:
        """Made with the first comparison: its widgets are not on the start-up path."""
        if self._compare_presenter is None:
            from tui_chat.ui.conversation.compare_presenter import ComparePresenter

            self._compare_presenter = ComparePresenter(self.controller, self, self.presenter,
                                                       self.attach_flow)
        return self._compare_presenter

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

    @property
    def editing(self) -> Message | None:
        """The message being edited (the controller's)."""
        return self.controller.editing

    @property
    def comparison(self) -> CompareView | None:
        """The comparison on screen (the controller's)."""
        return self.controller.comparison

    # --- ConversationView: what the controller draws through ---------------------------

    def start_exchange(self, exchange: Exchange) -> None:
        self.run_exchange(exchange)

    def cancel_exchange(self) -> None:
        if self.presenter.tools.cancel_call():  # Esc while a tool runs: that call alone
            return
        for worker in self.workers:
            if worker.group == "llm":
                worker.cancel()

    async def stop_exchange(self) -> None:
        await self.stop_streaming()

    def say(self, text: str, *, title: str = "", severity: Severity = "information",
            timeout: float | None = None) -> None:
        self.notify(text, title=title, severity=severity, timeout=timeout, markup=False)

    def set_note(self, note: str) -> None:
        self.status.update_info(note=note)

    def edit_in_prompt(self, text: str) -> None:
        self.prompt.load_text(text)
        self.prompt.move_cursor(self.prompt.document.end)
        self.prompt.focus()

    def clear_prompt(self) -> None:
        self.prompt.clear()

    def focus_prompt(self) -> None:
        self.prompt.focus()

    def interaction_changed(self) -> None:
        self.refresh_bindings()

    async def show_messages(self, messages: list[Message], *, above: ReadAbove | None = None
                            ) -> None:
        """Show the current conversation (already opened in the workspace). `above`: the
        messages are the newest part of its path, and this reads the rest (MessageList.load);
        `_path_read` follows once it is read."""
        self.controller.take_comparison()  # unmounted with the rest
        self.post_message(ConversationShown())  # the prompt's draft follows (ui.drafts)
        await self.message_list.load(messages, above=above)
        self._set_prompt_history(messages)
        self.refresh_chrome()
        self.context_status.changed(after_frame=True)
        sidebar = self.sidebar
        if sidebar is not None:
            sidebar.refresh_active()
        gc_policy.after_conversation_changed()
        self.set_timer(gc_policy.IDLE_BEFORE_RECLAIM, self._reclaim_if_idle)

    def _set_prompt_history(self, path: Sequence[Message]) -> None:
        self.prompt.prompt_history = [m.content for m in path if m.role is Role.USER][-100:]

    def _path_read(self, path: Sequence[Message]) -> None:
        """The whole path of a conversation opened newest first is read (the message list
        calls this before anything waiting for it goes on): what needs all of it."""
        self.workspace.learn_path(path)
        self._set_prompt_history(path)
        self.context_status.refresh()

    async def whole_path(self) -> bool:
        """Wait until the conversation shown is read whole (see MessageList.whole_path);
        False: another one was shown meanwhile."""
        return await self.message_list.whole_path()

    def refresh_chrome(self, state: str | None = None) -> None:
        """Title bar, empty-state hint and status line from the workspace's state."""
        workspace = self.workspace
        title = workspace.title
        self.query_one("#title-bar", Static).update(Text(f" tui-chat  ·  {one_line(title)}"))
        empty = self.query_one("#empty", Static)
        empty.display = not self.message_list.messages and self.message_list.reply is None
        hint = Text(empty_hint())
        if self._first_run_hint:
            hint = Text.assemble((self._first_run_hint, "bold"), "\n\n", empty_hint())
        personas = self.setup.persona_hint()
        if personas:
            hint.append(f"\n{personas}")
        empty.update(hint)
        system = self.setup.system_row()
        row = self.query_one("#system-row", Static)
        row.display = system is not None
        if system is not None:
            row.update(system)
        model = self.models.compare_label() or workspace.model or "no model chosen (F2)"
        labels = workspace.settings.provider_labels()
        self.message_list.labels = labels
        provider = self.models.compare_provider() or workspace.provider_name
        changes: dict[str, object] = {"provider": provider_label(provider, labels),
                                      "model": model, "tools": tools_badge(workspace),
                                      "reasoning": reasoning_badge(
                                          workspace.reasoning,
                                          workspace.reasoning_note() is None)}
        if state is not None:
            changes["state"] = state
        self.status.update_info(**changes)

    def on_mount(self) -> None:
        self.refresh_chrome()
        self.call_after_refresh(self.setup.load_personas)

    async def settings_changed(self, change: SettingsChange, no_key_hint: str | None) -> None:
        """New settings were saved: say what took effect where; keys may exist now, the model
        may have changed."""
        self._first_run_hint = no_key_hint or ""
        self.prompt.placeholder = prompt_placeholder()  # the keys may be others now
        self.message_list.set_reading_width(self.workspace.settings.reading_width)
        if self.comparison is not None:
            self.comparison.set_reading_width(self.workspace.settings.reading_width or None)
        self.refresh_chrome()
        self.context_status.refresh()
        self.notify(settings_sentence(change, streaming=self.streaming), title="Settings saved",
                    markup=False, timeout=10)

    def palette_commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        """Commands of the palette that no key is bound to: (title, help, run)."""
        return [(APPLY_HERE, "Use the system prompt and parameters of Settings (F3) in the "
                 "conversation on screen from its next message", self.apply_defaults_here),
                (COMPARE_TITLE, "Send the next message to 2-4 models at once, side by side",
                 lambda: self.choose_model(compare=True)),
                *self.setup.palette_commands()]

    def apply_defaults_here(self) -> None:
        try:
            self.workspace.apply_defaults_here()
        except TuiChatError as error:
            self.notify(error.message, severity="error", markup=False)
            return
        self.notify("This conversation now uses the system prompt and parameters of Settings.",
                    markup=False)

    def show_first_run(self, hint: str) -> None:
        """No key anywhere: say how to add one, in the empty view (a toast repeating it
        covered it)."""
        self._first_run_hint = hint
        self.refresh_chrome()

    # --- sending -----------------------------------------------------------------------

    @on(PromptInput.Submitted)
    async def _submitted(self, event: PromptInput.Submitted) -> None:
        event.stop()
        await self.send_flow.submit(event.text)

    @work(exclusive=True, group="llm", exit_on_error=False)
    async def run_exchange(self, exchange: Exchange) -> None:
        await self.controller.run(exchange)

    @property
    def shows_messages(self) -> bool:
        return bool(self.message_list.messages)

    async def approve_call(self, request: CallRequest) -> Approval:
        """The tool approval dialog (ui/tool_approval_glue.py); the status line says a call
        waits for the user while it is up."""
        return await ScreenAsker(self, self._tool_call_waiting).approve_call(request)

    async def elicit(self, request: ElicitRequest) -> ElicitAnswer:
        """A tool server's form, or page to open (ui/tool_approval_glue.py)."""
        return await ScreenAsker(self, self._input_waiting).elicit(request)

    def _input_waiting(self, now: bool) -> None:
        if now:
            self.status.update_info(state="waiting for you",
                                    note="a tool server asks for input")
        else:  # the call that asked goes on
            self.status.update_info(state="running a tool…", note="Esc cancels the call")

    def _tool_call_waiting(self, now: bool) -> None:
        if now:
            self.status.update_info(state="waiting for you", note="a tool call asks to run")
        else:
            self.status.update_info(state="streaming…", note="")

    def presenter_for(self, exchange: Exchange) -> ExchangePresenter:
        presenter: ReplyPresenter | ComparePresenter = self.presenter
        if exchange.kind == "compare":
            presenter = self.compare_presenter
        presenter.begin(exchange)
        return presenter

    def exchange_ended(self) -> None:
        if self.workspace.session.is_saved:
            self.post_message(ConversationChanged(self.workspace.session.conversation.id))
        if gc_policy.reclaim_is_overdue():
            self.call_after_refresh(gc_policy.reclaim)
        else:  # whether one is due is asked then, not while the reply's end is drawn
            self.set_timer(gc_policy.IDLE_BEFORE_RECLAIM, self._reclaim_if_idle)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop":  # Esc stops a reply or cancels an edit; else it is not offered
            return self.controller.interacting
        return True

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "llm":
            self.refresh_bindings()  # Esc: Stop comes and goes with the reply
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

    def _reclaim_if_idle(self) -> None:
        if not gc_policy.reclaim_is_due():
            return
        if self.streaming:
            gc_policy.postpone()  # the end of that reply runs it
        else:
            gc_policy.reclaim()

    async def stop_streaming(self) -> None:
        """Cancel the reply in progress (saved as interrupted) and wait until it is drawn."""
        workers = [w for w in self.workers if w.group == "llm" and not w.is_finished]
        for worker in workers:
            worker.cancel()
        for worker in workers:
            with contextlib.suppress(Exception):
                await worker.wait()

    async def action_stop(self) -> None:
        self.controller.stop()

    async def action_regenerate(self, choose_model: bool = False, reply_id: str | None = None
                                ) -> None:
        """Write `reply_id` again (None: the last reply)."""
        await self.send_flow.regenerate(choose_model, reply_id)

    async def action_new_conversation(self) -> None:
        await self.controller.new_conversation()

    def action_conversation_settings(self) -> None:
        self.setup.open_settings()

    def action_cycle_reasoning(self) -> None:
        """The next reasoning setting for this conversation (default, off, low, medium,
        high), from its next message on; a model not known to take it is said once."""
        self.set_reasoning(next_reasoning(self.workspace.reasoning))

    def set_reasoning(self, choice: str) -> None:
        note = self.workspace.set_reasoning(choice)
        self.refresh_chrome()
        self.set_note(f"reasoning {choice} from the next message")
        model = (self.workspace.provider_name, self.workspace.model or "")
        if note is not None and model != self._reasoning_said:  # once for a model
            self._reasoning_said = model
            self.say(note, title="Reasoning", severity="warning")

    def action_choose_model(self) -> None:
        self.choose_model()

    def choose_model(self, *, then_regenerate: bool = False, compare: bool = False,
                     then: Callable[[], None] | None = None, reply_id: str | None = None,
                     min_window: int | None = None) -> None:
        """Open the model picker (several models may be marked to compare, unless the
        choice is to regenerate with: `reply_id`, None for the last reply); it applies from
        the next message on (`then`: what to do once one is chosen)."""
        self.models.choose(then_regenerate=then_regenerate, compare=compare, then=then,
                           reply_id=reply_id, min_window=min_window)

    def action_focus_messages(self) -> None:
        if self.comparison is not None and not self.comparison.streaming:
            self.comparison.focus()  # waiting for a choice: that comes first
        else:
            self.message_list.focus()

    async def comparison_settled(self, comparison: CompareView) -> None:
        await comparison.remove()
        shown = self.message_list.messages
        below = self.workspace.session.path_below(shown[-1].id if shown else None)
        for message in below:
            await self.message_list.add_message(message)
        if below:  # the chosen reply, from its top (its end was followed as it streamed)
            self.message_list.show_from_top(below[0].id)

    async def on_compare_view_reply_chosen(self, event: CompareView.ReplyChosen) -> None:
        event.stop()
        await self.models.continue_with(event.message)

    def on_compare_view_leave_requested(self, event: CompareView.LeaveRequested) -> None:
        event.stop()
        self.prompt.focus()

    def action_attach(self) -> None:
        self.attach_flow.open_picker()

    @on(PromptInput.AttachRequested)
    def _attach_mentioned(self, event: PromptInput.AttachRequested) -> None:
        self.attach_flow.attach(event.path)

    # The attachments' list's messages, by their handler names (as the comparison's): the
    # list's module is imported with the first attachment (AttachFlow.widget).
    def on_attachment_list_changed(self) -> None:
        self.context_status.refresh()  # the context counts what is listed for the next message

    def on_attachment_list_leave_requested(self) -> None:
        self.prompt.focus()

    @on(MessageList.EditRequested)
    def _edit(self, event: MessageList.EditRequested) -> None:
        self.controller.edit(event.message)

    @on(PromptInput.EditorRequested)
    def _editor_requested(self, event: PromptInput.EditorRequested) -> None:
        event.stop()
        if self.controller.busy(  # the editor holds the event loop: the reply would stall
                "A reply is still streaming: Ctrl+E opens the editor once it ends (Esc stops "
                "it)."):
            return
        from tui_chat.ui.editor import compose_in_editor

        compose_in_editor(self.app, self.prompt, self.workspace.env)

    @on(PromptInput.ScrollRequested)
    async def _scroll_requested(self, event: PromptInput.ScrollRequested) -> None:
        event.stop()
        await self.message_list.scroll_from_prompt(event.where)

    @on(MessageList.ContinueRequested)
    def _continue_reply(self, event: MessageList.ContinueRequested) -> None:
        self.controller.continue_reply(event.reply.id)

    @on(MessageList.RegenerateRequested)
    async def _regenerate(self, event: MessageList.RegenerateRequested) -> None:
        await self.action_regenerate(event.choose_model,
                                     event.reply.id if event.reply is not None else None)

    @on(MessageList.LeaveRequested)
    def _leave(self) -> None:
        self.prompt.focus()

    @on(MessageList.BranchRequested)
    @on(MessageList.DeleteRequested)
    @on(MessageList.ForkRequested)
    @on(MessageList.ContinuePartialRequested)
    async def _branch_key(self, event: TextualMessage) -> None:
        event.stop()
        if await self.whole_path():  # a branch changes the path below: all of it is needed
            await self.branches.handle(event)

    @on(MessageList.LinkRequested)
    def _link_requested(self, event: MessageList.LinkRequested) -> None:
        event.stop()
        self.confirm_open(event.url)

    @on(MessageList.FileRequested)
    def _file_requested(self, event: MessageList.FileRequested) -> None:
        from tui_chat.ui.tool_file_open import open_tool_file

        event.stop()
        open_tool_file(self.app, self.workspace.store, event.message, event.file)

    def confirm_open(self, href: str) -> None:
        """Links the model wrote, or a tool's result gave, open only after the user says yes,
        and only http and https ones (core.links)."""
        from tui_chat.core.links import NOT_OPENED, opens_in_browser
        from tui_chat.ui.screens.confirm import ConfirmScreen

        url = sanitize(href)
        if not opens_in_browser(url):
            self.notify(f"Not opened: {one_line(url, 200)}: {NOT_OPENED} (c copies the "
                        "message, link and all).", markup=False, severity="warning")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.app.open_url(url)

        self.app.push_screen(ConfirmScreen(f"Open this link in your browser?\n\n{url}",
                                           yes="Open"), answered)

    # --- sidebar -----------------------------------------------------------------------

    @property
    def sidebar(self) -> ConversationList | None:
        """The sidebar, once opened (its module is imported then: sidebar_actions)."""
        found = self.query("ConversationList")
        return cast("ConversationList", found.first()) if found else None

    async def mount_sidebar(self, sidebar: ConversationList) -> None:
        await self.query_one("#body").mount(sidebar, before=0)

    def mount_above_prompt(self, widget: Widget) -> None:
        self.query_one("#main").mount(widget, before=self.prompt)

    async def action_toggle_sidebar(self) -> None:
        await self.sidebar_actions.toggle()

    def on_conversation_changed(self, event: ConversationChanged) -> None:
        sidebar = self.sidebar
        if sidebar is not None:
            sidebar.reload()

