"""The conversation controller, headless: the real workspace against the loopback fake
provider, and a fake view that records what it is told (no Textual app, milliseconds a test).

What is pinned here is the controller's: which exchange an Enter starts, that it is the one
writer of `editing`, `continue_partial` and `comparison`, the one streaming guard, what Esc
does, how an exchange ends (finished, stopped, failed before a reply), and that what an
exchange asks the user (core.asker) is put to the view and its answer used.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of, tool_call_stream
from tests.mcp.conftest import time_server
from tests.unit.test_workspace import env_for
from tui_chat.core.config import Settings
from tui_chat.core.mcp.config import McpServerConfig, McpSettings
from tui_chat.core.model_facts import ModelSettings
from tui_chat.core.models import Message, MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.core.workspace import Workspace
from tui_chat.ui.conversation.controller import STILL_STREAMING, ConversationController, Exchange


class FakePresenter:
    """Records what it is told to draw of one exchange (the name of each call, and its
    argument) and how the exchange ended; a comparison's columns record here too."""

    def __init__(self, view: FakeView, exchange: Exchange) -> None:
        self.view, self.exchange = view, exchange
        self.events: list[tuple[str, Any]] = []
        self.ended: str | None = None

    async def user_message_saved(self, message: Message) -> None:
        self.events.append(("user_message_saved", message))

    async def path_changed(self, after_id: str | None) -> None:
        self.events.append(("path_changed", after_id))

    async def reply_started(self, message: Message) -> None:
        self.events.append(("reply_started", message))

    async def content(self, text: str) -> None:
        self.events.append(("content", text))
        self.view.first_delta.set()
        await self.view.hold_deltas.wait()

    async def reasoning(self, text: str) -> None:
        self.events.append(("reasoning", text))

    async def retry(self, reason: str, delay: float) -> None:
        self.events.append(("retry", reason))

    async def reply_finished(self, message: Message) -> None:
        self.events.append(("reply_finished", message))

    async def reply_failed(self, message: Message, error: Exception) -> None:
        self.events.append(("reply_failed", message))

    async def tool_event(self, event: object) -> None:
        self.events.append(("tool_event", type(event).__name__))

    async def column(self, index: int) -> FakePresenter:
        if self.view.controller.comparison is None:
            self.view.controller.comparison_shown(self.view.comparison_widget)  # type: ignore[arg-type]
        self.events.append(("column", index))
        return self

    async def finished(self) -> None:
        self.ended = "finished"

    async def stopped(self) -> None:
        self.ended = "stopped"

    async def failed_before_reply(self, text: str, *, notify: bool = True) -> None:
        self.ended = f"failed: {text}"

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.events]

    def replies(self) -> list[Message]:
        return [m for kind, m in self.events if kind in ("reply_finished", "reply_failed")]


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
        self.yes = True
        """The answer of every confirmation."""
        self.choice: str | None = None
        """The answer of every question with choices (None: the first choice)."""

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

    async def show_messages(self, messages: list[Message], *, above: object = None) -> None:
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

    async def confirm(self, question: str) -> bool:
        self.calls.append(("confirm", question))
        return self.yes

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        self.calls.append(("ask", question))
        return self.choice if self.choice is not None else choices[0]

    async def approve_call(self, request: Any) -> Any:
        from tui_chat.core.mcp.loop import CHOICES, Approval

        self.calls.append(("approve_call", request))
        return Approval(CHOICES[self.choice or "Run once"], reason="not now")


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
    kinds = presenter.kinds()
    assert kinds[0] == "user_message_saved" and kinds[-1] == "reply_finished"
    assert kinds[1] == "reply_started" and set(kinds[2:-1]) == {"content"}
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
    ended = presenter.ended or ""
    assert "reply_failed" in presenter.kinds() or ended.startswith("failed: ")
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


async def test_a_new_conversation_stops_the_reply_and_forgets_what_was_chosen(
        app: Any, chutes_server: FakeProvider) -> None:
    controller, view = app
    chutes_server.script(Reply(stream_of(["one"])), Reply(stream_of(["partial", " more"])))
    await enter(controller, view, "q")
    first = controller.workspace.session.conversation.id
    view.hold_deltas.clear()
    view.first_delta.clear()
    view.start_exchange(controller.exchange_for("again", []))
    await view.first_delta.wait()
    await controller.new_conversation()
    assert view.presenters[-1].ended == "stopped" and not view.streaming
    assert not controller.workspace.session.is_saved and controller.editing is None
    assert controller.active_conversation_id() is None
    assert ("focus_prompt", None) in view.calls
    left = controller.workspace.store.get_messages(first)[-1]
    assert left.role is Role.ASSISTANT and left.status is MessageStatus.INTERRUPTED


MODEL = "deepseek-ai/DeepSeek-V3-0324"


def with_tools(chutes_server: FakeProvider, store: Store, *, tools: bool,
               server: McpServerConfig) -> Workspace:
    settings = Settings(mcp=McpSettings(servers={"time": server}),
                        models={f"chutes:{MODEL}": ModelSettings(tools=tools)})
    return Workspace(settings, store, env=env_for(chutes_server))


async def test_what_the_exchange_confirms_is_put_to_the_view(
        store: Store, chutes_server: FakeProvider) -> None:
    """Tool servers on, a model that takes no tools: the exchange asks whether to send
    without them (the view answers), and the controller acts on the answer."""
    workspace = with_tools(chutes_server, store, tools=False, server=time_server())
    view = FakeView()
    controller = view.controller = ConversationController(workspace, view)  # type: ignore[arg-type]
    view.yes = False
    presenter = await enter(controller, view, "What time is it?")
    [(_, question)] = [c for c in view.calls if c[0] == "confirm"]
    assert "does not take tools" in question and question.endswith("without them?")
    assert (presenter.ended or "").startswith("failed: ") and "nothing was sent" in (
        presenter.ended or "")
    assert chutes_server.requests == [] and workspace.asker is not controller
    view.yes = True
    chutes_server.script(Reply(stream_of(["I cannot tell."])))
    presenter = await enter(controller, view, "What time is it?")
    assert presenter.ended == "finished"
    assert presenter.replies()[0].content == "I cannot tell."
    body = chutes_server.requests[-1].body
    assert isinstance(body, dict) and "tools" not in body
    await workspace.aclose()


async def test_a_tool_call_is_put_to_the_view_and_its_answer_used(
        store: Store, chutes_server: FakeProvider) -> None:
    """A real tool server (mcp-server-time): the call is asked through the view, which
    denies it here; the denial is kept and goes back to the model."""
    workspace = with_tools(chutes_server, store, tools=True, server=time_server())
    view = FakeView()
    controller = view.controller = ConversationController(workspace, view)  # type: ignore[arg-type]
    view.choice = "Deny"
    chutes_server.script(Reply(tool_call_stream(
        [("time__get_current_time", '{"timezone": "Asia/Kolkata"}')], ids=["call_k"])),
        Reply(stream_of(["Denied, then."])))
    presenter = await enter(controller, view, "What time is it in Kolkata?")
    [(_, request)] = [c for c in view.calls if c[0] == "approve_call"]
    assert request.tool.name == "get_current_time"
    assert request.arguments == {"timezone": "Asia/Kolkata"}
    assert presenter.ended == "finished"
    assert "tool_event" in presenter.kinds()  # the tool events reach the presenter
    tool = workspace.session.messages()[2]
    assert tool.tool_run is not None and tool.tool_run.status == "denied"
    assert "not now" in tool.content  # the reason goes back to the model
    await workspace.aclose()


async def test_an_answer_the_question_did_not_offer_is_no_answer(app: Any) -> None:
    controller, view = app
    view.choice = "Always, for everything"
    assert await controller.ask("Run it?", ["Run once", "Deny"]) is None
    view.choice = "Deny"
    assert await controller.ask("Run it?", ["Run once", "Deny"]) == "Deny"
    view.yes = False
    assert await controller.confirm("Send it?") is False


async def test_a_comparison_says_in_one_sentence_that_it_sends_no_tools(
        store: Store, chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    """Tool servers on for the conversation: a comparison says it sends none (as
    `ask --compare` does), and still compares."""
    chutes_server.script(Reply(stream_of(["from chutes"])))
    sutra_server.script(Reply(stream_of(["from sutra"], flavour="sutra")))
    settings = Settings(mcp=McpSettings(servers={"time": time_server()}))
    workspace = Workspace(settings, store, env=env_for(chutes_server, sutra_server))
    view = FakeView()
    controller = view.controller = ConversationController(workspace, view)  # type: ignore[arg-type]
    workspace.choose_several([("chutes", MODEL), ("sutra", "sutra-v2")])
    presenter = await enter(controller, view, "q")
    assert presenter.ended == "finished"
    assert [text for severity, text in view.said if severity == "warning"] == [
        workspace.compare_note()]
    assert "Compare sends no tools" in (workspace.compare_note() or "")
    assert all("tools" not in request.body for request in chutes_server.requests)


async def test_continue_reply_writes_a_new_branch_that_starts_with_the_reply(
        app: Any, chutes_server: FakeProvider) -> None:
    """`g` in message mode: the selected reply is continued where it ends, as a sibling
    beside it (the original stays), where the provider takes `continue_final_message`."""
    controller, view = app
    chutes_server.script(Reply(stream_of(["Once upon ", "a time"])))
    await enter(controller, view, "tell a story")
    original = controller.workspace.session.messages()[-1]
    chutes_server.script(Reply(stream_of([", there was a cat."])))
    controller.continue_reply(original.id)
    await view.wait()
    presenter = view.presenters[-1]
    assert presenter.exchange.kind == "continue" and presenter.ended == "finished"
    reply = controller.workspace.session.messages()[-1]
    assert reply.content == "Once upon a time, there was a cat."
    assert set(controller.workspace.store.siblings(reply.id).ids) == {original.id, reply.id}
    assert chutes_server.requests[-1].body["continue_final_message"] is True


async def test_continue_reply_where_the_provider_cannot_sends_nothing_and_says_why(
        store: Store, chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    """SUTRA documents no way to continue a final assistant message."""
    sutra_server.script(Reply(stream_of(["Namaste"], flavour="sutra")))
    workspace = Workspace(Settings(), store, env=env_for(chutes_server, sutra_server))
    view = FakeView()
    controller = view.controller = ConversationController(workspace, view)  # type: ignore[arg-type]
    workspace.choose("sutra", "sutra-v2", persist=False)
    await enter(controller, view, "hello")
    sent = len(sutra_server.requests)
    controller.continue_reply(workspace.session.messages()[-1].id)
    await view.wait()
    ended = view.presenters[-1].ended or ""
    assert ended.startswith("failed: ") and "continue" in ended.lower()
    assert len(sutra_server.requests) == sent
