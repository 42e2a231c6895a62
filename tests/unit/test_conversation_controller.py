"""The conversation controller, headless: the real workspace against the loopback fake
provider, and a fake view that records what it is told (no Textual app, milliseconds a test).

What is pinned here is the controller's: which exchange an Enter starts, that it is the one
writer of `editing`, `continue_partial` and `comparison`, the one streaming guard, what Esc
does, and how an exchange ends (finished, stopped, failed before a reply).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.unit.test_workspace import env_for
from tui_chat.core.compare import TargetEvent
from tui_chat.core.config import Settings
from tui_chat.core.events import ContentDelta
from tui_chat.core.models import Message, MessageStatus, Role
from tui_chat.core.session import ReplyFailed, ReplyFinished, ReplyStarted, UserMessageSaved
from tui_chat.core.store import Store
from tui_chat.core.workspace import Workspace
from tui_chat.ui.conversation.controller import STILL_STREAMING, ConversationController, Exchange


class FakePresenter:
    """Records the events of one exchange and how it ended."""

    def __init__(self, view: FakeView, exchange: Exchange) -> None:
        self.view, self.exchange = view, exchange
        self.events: list[object] = []
        self.ended: str | None = None

    async def apply(self, event: object) -> None:
        self.events.append(event)
        if isinstance(event, TargetEvent) and self.view.controller.comparison is None:
            self.view.controller.comparison_shown(self.view.comparison_widget)  # type: ignore[arg-type]
        if isinstance(event, ContentDelta) or (isinstance(event, TargetEvent) and isinstance(
                event.event, ContentDelta)):
            self.view.first_delta.set()
            await self.view.hold_deltas.wait()

    async def finished(self) -> None:
        self.ended = "finished"

    async def stopped(self) -> None:
        self.ended = "stopped"

    async def failed_before_reply(self, text: str, *, notify: bool = True) -> None:
        self.ended = f"failed: {text}"

    def replies(self) -> list[Message]:
        inner = [e.event if isinstance(e, TargetEvent) else e for e in self.events]
        return [e.message for e in inner if isinstance(e, ReplyFinished | ReplyFailed)]


class FakeView:
    """A ConversationView that draws nothing: it runs each exchange as a task and records
    every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.said: list[tuple[str, str]] = []
        self.presenters: list[FakePresenter] = []
        self.task: asyncio.Task[None] | None = None
        self.messages_shown = False
        self.hold_deltas = asyncio.Event()
        self.hold_deltas.set()
        self.first_delta = asyncio.Event()
        self.comparison_widget = object()
        self.controller: ConversationController

    @property
    def streaming(self) -> bool:
        return self.task is not None and not self.task.done()

    def start_exchange(self, exchange: Exchange) -> None:
        self.task = asyncio.create_task(self.controller.run(exchange))

    def cancel_exchange(self) -> None:
        if self.task is not None:
            self.task.cancel()

    async def stop_exchange(self) -> None:
        self.cancel_exchange()
        await self.wait()

    async def wait(self) -> None:
        if self.task is not None:
            await asyncio.gather(self.task, return_exceptions=True)

    def say(self, text: str, *, title: str = "", severity: str = "information",
            timeout: float | None = None) -> None:
        self.said.append((severity, text))

    def set_note(self, note: str) -> None:
        self.calls.append(("note", note))

    def edit_in_prompt(self, text: str) -> None:
        self.calls.append(("edit_in_prompt", text))

    def clear_prompt(self) -> None:
        self.calls.append(("clear_prompt", None))

    def focus_prompt(self) -> None:
        self.calls.append(("focus_prompt", None))

    def interaction_changed(self) -> None:
        self.calls.append(("interaction_changed", None))

    def refresh_chrome(self) -> None:
        self.calls.append(("refresh_chrome", None))

    async def show_messages(self, messages: list[Message]) -> None:
        self.messages_shown = bool(messages)

    @property
    def shows_messages(self) -> bool:
        return self.messages_shown

    async def whole_path(self) -> bool:
        return True

    def presenter_for(self, exchange: Exchange) -> FakePresenter:
        presenter = FakePresenter(self, exchange)
        self.presenters.append(presenter)
        self.messages_shown = True
        return presenter

    async def comparison_settled(self, comparison: object) -> None:
        self.calls.append(("comparison_settled", comparison))

    def exchange_ended(self) -> None:
        self.calls.append(("exchange_ended", None))

    async def confirm(self, question: str, *, yes: str = "Yes", no: str = "No",
                      danger: bool = False) -> bool:
        self.calls.append(("confirm", question))
        return True

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        self.calls.append(("ask", question))
        return choices[-1] if choices else None


@pytest.fixture
async def app(store: Store, chutes_server: FakeProvider) -> Any:
    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    view = FakeView()
    view.controller = ConversationController(workspace, view)  # type: ignore[arg-type]
    yield view.controller, view
    await view.stop_exchange()
    await workspace.aclose()


async def enter(controller: ConversationController, view: FakeView, text: str) -> FakePresenter:
    """What the view does on Enter: the exchange the controller chooses, run to its end."""
    view.start_exchange(controller.exchange_for(text, []))
    await view.wait()
    return view.presenters[-1]


def sent_contents(server: FakeProvider) -> list[str]:
    body = server.requests[-1].body
    assert isinstance(body, dict)
    return [m["content"] for m in body["messages"]]


async def test_send_runs_the_exchange_to_its_end(app: Any, chutes_server: FakeProvider) -> None:
    controller, view = app
    chutes_server.script(Reply(stream_of(["Hello", " there"])))
    presenter = await enter(controller, view, "hi")
    assert presenter.exchange == Exchange("send", "hi")
    kinds = [type(e) for e in presenter.events]
    assert kinds[0] is UserMessageSaved and ReplyStarted in kinds and kinds[-1] is ReplyFinished
    assert presenter.replies()[0].content == "Hello there"
    assert presenter.ended == "finished" and view.calls[-1] == ("exchange_ended", None)


async def test_edit_and_resend_replaces_the_branch_below(app: Any,
                                                         chutes_server: FakeProvider) -> None:
    controller, view = app
    chutes_server.script(Reply(stream_of(["one"])), Reply(stream_of(["two"])))
    await enter(controller, view, "first")
    asked = controller.workspace.session.messages()[0]
    controller.edit(asked)
    assert controller.editing is asked and ("edit_in_prompt", "first") in view.calls
    assert controller.interacting
    presenter = await enter(controller, view, "first, edited")
    assert presenter.exchange == Exchange("edit", "first, edited", asked.id)
    assert controller.editing is None  # used once
    path = controller.workspace.session.messages()
    assert [m.content for m in path] == ["first, edited", "two"]


async def test_regenerate_writes_the_last_reply_again(app: Any,
                                                      chutes_server: FakeProvider) -> None:
    controller, view = app
    chutes_server.script(Reply(stream_of(["one"])), Reply(stream_of(["again"])))
    await enter(controller, view, "q")
    controller.regenerate()
    await view.wait()
    assert view.presenters[-1].exchange.kind == "regenerate"
    reply = controller.workspace.session.messages()[-1]
    assert reply.content == "again"
    assert len(controller.workspace.store.siblings(reply.id).ids) == 2


async def test_compare_shows_a_comparison_until_it_settles(
        store: Store, chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["from chutes"])))
    sutra_server.script(Reply(stream_of(["from sutra"], flavour="sutra")))
    workspace = Workspace(Settings(), store, env=env_for(chutes_server, sutra_server))
    view = FakeView()
    controller = view.controller = ConversationController(workspace, view)  # type: ignore[arg-type]
    workspace.choose_several([("chutes", "deepseek-ai/DeepSeek-V3-0324"),
                              ("sutra", "sutra-v2")])
    presenter = await enter(controller, view, "q")
    assert presenter.exchange.kind == "compare" and presenter.ended == "finished"
    assert sorted(m.content for m in presenter.replies()) == ["from chutes", "from sutra"]
    assert controller.comparison is view.comparison_widget
    # choose: the workspace continues with it, the comparison gives way to it
    chosen = next(m for m in presenter.replies() if m.content == "from sutra")
    workspace.choose_reply(chosen.id)
    await controller.settle_comparison()
    assert controller.comparison is None
    assert ("comparison_settled", view.comparison_widget) in view.calls
    assert workspace.session.messages()[-1].id == chosen.id
    await workspace.aclose()


async def test_stop_cancels_the_reply_and_it_is_saved_as_interrupted(
        app: Any, chutes_server: FakeProvider) -> None:
    controller, view = app
    chutes_server.script(Reply(stream_of(["partial", " more"])))
    view.hold_deltas.clear()  # the first delta is drawn, and the reply waits there
    view.start_exchange(controller.exchange_for("q", []))
    await view.first_delta.wait()
    assert controller.streaming and controller.interacting
    controller.stop()
    await view.wait()
    assert view.presenters[-1].ended == "stopped"
    reply = controller.workspace.session.messages()[-1]
    assert reply.role is Role.ASSISTANT and reply.status is MessageStatus.INTERRUPTED


async def test_while_a_reply_streams_nothing_else_starts(app: Any,
                                                         chutes_server: FakeProvider) -> None:
    controller, view = app
    chutes_server.script(Reply(stream_of(["partial", " more"])))
    view.hold_deltas.clear()
    view.start_exchange(controller.exchange_for("q", []))
    await view.first_delta.wait()
    controller.edit(controller.workspace.session.messages()[0])
    assert not controller.choose_continue_partial()
    assert controller.busy()
    assert controller.editing is None and not controller.continue_partial
    assert view.said == [("warning", STILL_STREAMING)] * 3
    view.hold_deltas.set()
    await view.wait()


async def test_esc_cancels_an_edit_and_a_continue_from(app: Any,
                                                        chutes_server: FakeProvider) -> None:
    controller, view = app
    chutes_server.script(Reply(stream_of(["one"])))
    await enter(controller, view, "q")
    controller.edit(controller.workspace.session.messages()[0])
    controller.stop()
    assert controller.editing is None and not controller.interacting
    assert view.calls[-3:] == [("note", ""), ("interaction_changed", None),
                               ("focus_prompt", None)]
    assert ("clear_prompt", None) in view.calls
    assert controller.choose_continue_partial() and controller.interacting
    view.calls.clear()
    controller.stop()
    assert not controller.continue_partial
    assert ("clear_prompt", None) not in view.calls  # nothing of the prompt was the edit's


async def test_continue_partial_sends_the_cut_off_reply_once(
        app: Any, chutes_server: FakeProvider) -> None:
    controller, view = app
    chutes_server.script(Reply(stream_of(["half ", "of it", "x"]), drop_after=3),
                         Reply(stream_of(["ok"])), Reply(stream_of(["ok"])))
    await enter(controller, view, "q")
    assert controller.workspace.session.messages()[-1].status is MessageStatus.INTERRUPTED
    assert controller.choose_continue_partial()
    presenter = await enter(controller, view, "go on")
    assert presenter.exchange.continue_partial and not controller.continue_partial
    assert sent_contents(chutes_server) == ["q", "half of it", "go on"]
    again = await enter(controller, view, "again")
    assert not again.exchange.continue_partial  # chosen once


async def test_a_failure_before_any_reply_is_one_sentence(app: Any,
                                                         chutes_server: FakeProvider) -> None:
    controller, view = app
    chutes_server.script(Reply.error(401, {"detail": "Invalid API key"}))
    presenter = await enter(controller, view, "q")
    failed = [e for e in presenter.events if isinstance(e, ReplyFailed)]
    ended = presenter.ended or ""
    assert failed or ended.startswith("failed: ")
    assert view.calls[-1] == ("exchange_ended", None) and not view.streaming


async def test_a_deleted_conversation_is_said_once_and_forgotten(
        app: Any, chutes_server: FakeProvider) -> None:
    controller, view = app
    chutes_server.script(Reply(stream_of(["one"])), Reply(stream_of(["two"])))
    await enter(controller, view, "q")
    conversation_id = controller.workspace.session.conversation.id
    controller.workspace.store.delete_conversation(conversation_id)
    await enter(controller, view, "next")
    assert view.said and view.said[-1][0] == "warning"
    assert "The next message starts a new conversation." in view.said[-1][1]
