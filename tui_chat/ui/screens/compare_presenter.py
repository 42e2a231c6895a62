"""Turns the events of a comparison (core.compare, through the workspace) into widget calls for
the conversation screen: the prompt in the message list, then one `CompareView` column per
model, with its figures (time to first token, tokens per second, usage) as they become known.

Each column ends on its own (a failure is shown in its column and does not touch the
others); Esc stops them all, and each column then shows its reply as saved. When every
column has ended, the comparison stays on screen until the user picks a reply to continue
with (the screen's `settle_comparison`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tui_chat.core.compare import CompareEvent, TargetEvent
from tui_chat.core.errors import TuiChatError
from tui_chat.core.events import ContentDelta, ReasoningDelta, RetryScheduled
from tui_chat.core.models import ActivePathChanged, Message
from tui_chat.core.session import (
    ReplyFailed,
    ReplyFinished,
    ReplyStarted,
    SessionEvent,
    UserMessageSaved,
)
from tui_chat.core.text import one_line, sanitize
from tui_chat.ui.advice import sentence
from tui_chat.ui.widgets.compare_view import COMPLETE, ColumnFigures, CompareView

if TYPE_CHECKING:
    from tui_chat.core.workspace import ModelRef
    from tui_chat.ui.screens.conversation import ConversationScreen

FIGURES_INTERVAL = 1.0
"""Seconds between two updates of a column's live tokens-per-second figure."""


@dataclass
class _Live:
    """A column's clock: when its reply started, its first token, its deltas."""

    started: float
    first_token: float | None = None
    deltas: int = 0
    last_figures: float = 0.0
    message_id: str | None = None
    ended: bool = False


class ComparePresenter:
    """Draws one comparison at a time on its conversation screen."""

    def __init__(self, host: ConversationScreen) -> None:
        self.host = host
        self.view: CompareView | None = None
        self.models: list[ModelRef] = []
        self.sent_text = ""
        self.received = False
        self._live: dict[int, _Live] = {}

    def begin(self, sent_text: str) -> None:
        self.sent_text = sent_text
        self.models = list(self.host.workspace.compare_models)
        self.received = False
        self._live = {}
        self.view = None

    async def apply(self, event: SessionEvent | CompareEvent) -> None:
        if isinstance(event, TargetEvent):
            await self._target(event.target, event.event)
        elif isinstance(event, UserMessageSaved):
            await self.host.presenter.user_message_saved(event.message)
        elif isinstance(event, ActivePathChanged):
            await self.host.presenter.path_changed(event.after_id)

    async def _ensure_view(self) -> CompareView:
        if self.view is None:
            message_list = self.host.message_list
            self.view = CompareView(self.models, code_theme=message_list.code_theme,
                                    labels=message_list.labels,
                                    reading_width=message_list.reading_width or None)
            await message_list.mount(self.view)
            message_list.anchor()
            self.host.controller.comparison_shown(self.view)
            self.host.status.update_info(state=f"comparing {len(self.models)} models…",
                                         time_to_first_token=None, tokens_per_second=None,
                                         usage=None, note="Esc stops them all")
        return self.view

    async def _target(self, index: int, event: SessionEvent) -> None:
        view = await self._ensure_view()
        column = view.column(index)
        if isinstance(event, ContentDelta | ReasoningDelta):
            if column.reply is not None:
                if isinstance(event, ContentDelta):
                    column.reply.add_content(event.text)
                else:
                    column.reply.add_reasoning(event.text)
            self._count(index, thinking=isinstance(event, ReasoningDelta))
        elif isinstance(event, ReplyStarted):
            self._live[index] = _Live(self.host.clock(), message_id=event.message.id)
            await column.start(event.message)
        elif isinstance(event, RetryScheduled):
            column.show_figures(replace(column.figures, state=(
                f"{one_line(sanitize(event.reason), 60)}; retry in {event.delay:.0f} s")))
        elif isinstance(event, ReplyFinished | ReplyFailed):
            await self._ended(index, event.message,
                              sentence(event.error) if isinstance(event, ReplyFailed) else None)

    def _count(self, index: int, *, thinking: bool) -> None:
        live = self._live.get(index)
        if live is None:
            return
        self.received = True
        live.deltas += 1
        now = self.host.clock()
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
            column.show_figures(replace(column.figures, state=state,
                                        tokens_per_second=live.deltas / elapsed
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
            self.host.notify(sanitize(error), title=f"{one_line(model, 40)} failed",
                             severity="error", markup=False, timeout=8)
        if all(c.reply is None for c in view.columns):
            self._all_ended(view)

    def _position(self, message: Message | None) -> tuple[int, int] | None:
        if message is None:
            return None
        return self.host.positions_of([message]).get(message.id)

    def _all_ended(self, view: CompareView) -> None:
        view.ended()
        self.host.status.update_info(state="compared", note="choose a reply: ←/→, Enter")
        prompt = self.host.prompt
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
        self.host.status.update_info(state="stopped", note="the partial replies are saved")
        if not self.received:
            self._restore_prompt()

    def _saved(self, message_id: str) -> Message | None:
        try:
            return self.host.workspace.store.get_message(message_id)
        except TuiChatError:
            return None

    async def failed_before_reply(self, text: str, *, notify: bool = True) -> None:
        if self.view is not None:
            await self.view.remove()
            self.view = None
            self.host.controller.take_comparison()
        if notify:
            self.host.notify(sanitize(text), title="Not sent", severity="error",
                             markup=False, timeout=8)
        self.host.status.update_info(state="ready", note="")
        self._restore_prompt()
        self.host.refresh_chrome()

    def _restore_prompt(self) -> None:
        self.host.attach_flow.put_back()
        prompt = self.host.prompt
        if self.sent_text and not prompt.text.strip():
            prompt.restore(self.sent_text)
