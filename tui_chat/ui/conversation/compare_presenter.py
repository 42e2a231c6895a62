"""Turns the events of a comparison (core.compare, through the workspace) into widget calls for
the conversation's view: the prompt in the message list, then one `CompareView` column per
model, with its figures (time to first token, tokens per second, usage) as they become known.

Each column ends on its own (a failure is shown in its column and does not touch the
others); Esc stops them all, and each column then shows its reply as saved. When every
column has ended, the comparison stays on screen until the user picks a reply to continue
with (the controller's `settle_comparison`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from tui_chat.core.errors import TuiChatError
from tui_chat.core.models import Message
from tui_chat.core.text import one_line, sanitize
from tui_chat.core.tokens import estimate_tokens
from tui_chat.ui.advice import sentence
from tui_chat.ui.conversation.model_actions import SEVERAL_PROVIDERS, comparing_label
from tui_chat.ui.widgets.compare_view import COMPLETE, ColumnFigures, CompareView
from tui_chat.ui.widgets.message_view import provider_label

if TYPE_CHECKING:
    from tui_chat.core.workspace import ModelRef, Workspace
    from tui_chat.ui.conversation.attach_flow import AttachFlow
    from tui_chat.ui.conversation.controller import ConversationController
    from tui_chat.ui.conversation.exchange import Exchange
    from tui_chat.ui.conversation.reply_presenter import ReplyPresenter
    from tui_chat.ui.conversation.tool_events import ToolEvent
    from tui_chat.ui.conversation.view import Surface

FIGURES_INTERVAL = 1.0
"""Seconds between two updates of a column's live tokens-per-second figure."""


@dataclass
class _Live:
    """A column's clock: when its reply started, its first token, its tokens (estimated from
    the text, as a single reply's: a delta is no measure, and core.compare joins the deltas
    that wait)."""

    started: float
    first_token: float | None = None
    tokens: int = 0
    uncounted: list[str] = field(default_factory=list)
    last_figures: float = 0.0
    message_id: str | None = None
    ended: bool = False


class ComparePresenter:
    """Draws one comparison at a time through its conversation's view."""

    def __init__(self, controller: ConversationController, surface: Surface,
                 presenter: ReplyPresenter, attach_flow: AttachFlow) -> None:
        self.controller = controller
        self.surface = surface
        self.presenter = presenter
        """Draws what a comparison shares with a reply (the prompt, a path change)."""
        self.attach_flow = attach_flow
        self.view: CompareView | None = None
        self.models: list[ModelRef] = []
        self.sent_text = ""
        self.received = False
        self._live: dict[int, _Live] = {}
        self._columns: dict[int, ColumnPresenter] = {}

    @property
    def workspace(self) -> Workspace:
        return self.controller.workspace

    def begin(self, exchange: Exchange) -> None:
        self.sent_text = exchange.text
        self.attach_flow.going(exchange.attachments)
        self.models = list(self.workspace.compare_models)
        self.received = False
        self._live = {}
        self._columns = {}
        self.view = None

    async def user_message_saved(self, message: Message) -> None:
        await self.presenter.user_message_saved(message)

    async def path_changed(self, after_id: str | None) -> None:
        await self.presenter.path_changed(after_id)

    async def column(self, index: int) -> ColumnPresenter:
        """Column `index`'s drawing (the comparison is shown with the first event of one)."""
        column = self._columns.get(index)
        if column is None:
            await self._ensure_view()
            column = self._columns[index] = ColumnPresenter(self, index)
        return column

    async def tool_event(self, event: ToolEvent) -> None:
        """A comparison sends no tools (core.compare says so)."""

    # A comparison's events are its columns': none comes outside one.

    async def reply_started(self, message: Message) -> None:
        pass

    async def content(self, text: str) -> None:
        pass

    async def reasoning(self, text: str) -> None:
        pass

    async def retry(self, reason: str, delay: float) -> None:
        pass

    async def reply_finished(self, message: Message) -> None:
        pass

    async def reply_failed(self, message: Message, error: TuiChatError) -> None:
        pass

    async def _ensure_view(self) -> CompareView:
        if self.view is None:
            message_list = self.surface.message_list
            self.view = CompareView(self.models, code_theme=message_list.code_theme,
                                    labels=message_list.labels,
                                    reading_width=message_list.reading_width or None)
            await message_list.mount(self.view)
            message_list.anchor()
            self.controller.comparison_shown(self.view)
            providers = {name for name, _ in self.models}
            self.surface.status.update_info(
                model=comparing_label(len(self.models)),
                provider=provider_label(providers.pop() if len(providers) == 1
                                        else SEVERAL_PROVIDERS, message_list.labels),
                state="streaming…", time_to_first_token=None, tokens_per_second=None,
                usage=None, context="", context_warning=False, note="Esc stops them all")
        return self.view

    async def _started(self, index: int, message: Message) -> None:
        assert self.view is not None  # column() showed it
        self._live[index] = _Live(self.workspace.clock(), message_id=message.id)
        await self.view.column(index).start(message)

    def _delta(self, index: int, text: str, *, thinking: bool) -> None:
        assert self.view is not None
        reply = self.view.column(index).reply
        if reply is not None:
            if thinking:
                reply.add_reasoning(text)
            else:
                reply.add_content(text)
        self._count(index, text, thinking=thinking)

    def _retry(self, index: int, reason: str, delay: float) -> None:
        assert self.view is not None
        column = self.view.column(index)
        column.show_figures(replace(column.figures, state=(
            f"{one_line(sanitize(reason), 60)}; retry in {delay:.0f} s")))

    def _count(self, index: int, text: str, *, thinking: bool) -> None:
        live = self._live.get(index)
        if live is None:
            return
        self.received = True
        live.uncounted.append(text)
        now = self.workspace.clock()
        column = self.view.column(index) if self.view is not None else None
        if column is None:
            return
        state = "thinking…" if thinking else "streaming…"
        if live.first_token is None:
            live.first_token = live.last_figures = now
            column.show_figures(ColumnFigures(state, time_to_first_token=now - live.started))
        elif now - live.last_figures >= FIGURES_INTERVAL:
            live.last_figures = now
            elapsed = now - live.first_token
            live.tokens += estimate_tokens("".join(live.uncounted))
            live.uncounted.clear()
            column.show_figures(replace(column.figures, state=state,
                                        tokens_per_second=live.tokens / elapsed
                                        if elapsed else None))

    async def _ended(self, index: int, message: Message | None, error: str | None) -> None:
        view = self.view
        if view is None:
            return
        live = self._live.get(index)
        if live is not None:
            live.ended = True
        column = view.column(index)
        if message is not None:
            state = COMPLETE if error is None else message.status.value
            column.show_figures(ColumnFigures(
                state, time_to_first_token=message.time_to_first_token,
                tokens_per_second=message.tokens_per_second, usage=message.usage))
        await column.finish(message, self._position(message))
        if error is not None:
            _, model = self.models[index]
            self.surface.say(sanitize(error), title=f"{one_line(model, 40)} failed",
                             severity="error", timeout=8)
        if all(c.reply is None for c in view.columns):
            self._all_ended(view)

    def _position(self, message: Message | None) -> tuple[int, int] | None:
        if message is None:
            return None
        return self.surface.positions_of([message]).get(message.id)

    def _all_ended(self, view: CompareView) -> None:
        view.ended()
        self.surface.status.update_info(state="compared", note="choose a reply: ←/→, Enter")
        prompt = self.surface.prompt
        if prompt.has_focus and not prompt.text.strip():
            view.focus()

    async def finished(self) -> None:
        """The exchange ended (every column has said so, or none started)."""
        view = self.view
        if view is None:
            self._restore_prompt()
            return
        if not self.received and all(c.message is None or c.message.empty
                                     for c in view.columns):
            self._restore_prompt()

    async def stopped(self) -> None:
        """Esc (or quit, or another conversation): each column shows its reply as saved."""
        view = self.view
        if view is None:
            return
        for index, column in enumerate(view.columns):
            if column.reply is None:
                continue
            live = self._live.get(index)
            saved = self._saved(live.message_id) if live and live.message_id else None
            if saved is not None:
                column.show_figures(ColumnFigures(
                    saved.status.value, time_to_first_token=saved.time_to_first_token,
                    tokens_per_second=saved.tokens_per_second, usage=saved.usage))
            await column.finish(saved, self._position(saved))
        self._all_ended(view)
        self.surface.status.update_info(state="stopped", note="the partial replies are saved")
        if not self.received:
            self._restore_prompt()

    def _saved(self, message_id: str) -> Message | None:
        try:
            return self.workspace.store.get_message(message_id)
        except TuiChatError:
            return None

    async def failed_before_reply(self, text: str, *, notify: bool = True) -> None:
        if self.view is not None:
            await self.view.remove()
            self.view = None
            self.controller.take_comparison()
        if notify:
            self.surface.say(sanitize(text), title="Not sent", severity="error", timeout=8)
        self.surface.status.update_info(state="ready", note="")
        self._restore_prompt()
        self.surface.refresh_chrome()

    def _restore_prompt(self) -> None:
        self.attach_flow.put_back()
        prompt = self.surface.prompt
        if self.sent_text and not prompt.text.strip():
            prompt.restore(self.sent_text)


class ColumnPresenter:
    """Draws the events of one column of its comparison (`ComparePresenter.column`)."""

    def __init__(self, comparison: ComparePresenter, index: int) -> None:
        self.comparison = comparison
        self.index = index

    async def reply_started(self, message: Message) -> None:
        await self.comparison._started(self.index, message)

    async def content(self, text: str) -> None:
        self.comparison._delta(self.index, text, thinking=False)

    async def reasoning(self, text: str) -> None:
        self.comparison._delta(self.index, text, thinking=True)

    async def retry(self, reason: str, delay: float) -> None:
        self.comparison._retry(self.index, reason, delay)

    async def reply_finished(self, message: Message) -> None:
        await self.comparison._ended(self.index, message, None)

    async def reply_failed(self, message: Message, error: TuiChatError) -> None:
        await self.comparison._ended(self.index, message, sentence(error))

    # The prompt and the path are the comparison's, not a column's.

    async def user_message_saved(self, message: Message) -> None:
        pass

    async def path_changed(self, after_id: str | None) -> None:
        pass

    async def column(self, index: int) -> None:
        return None

    async def tool_event(self, event: ToolEvent) -> None:
        """A comparison sends no tools (core.compare says so)."""
