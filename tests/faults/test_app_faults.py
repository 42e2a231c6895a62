"""Issue 6 in the full-screen app: every provider fault gives one sentence (a notification and
inline on the message), keeps the partial reply on screen and in the store with its status,
gives the prompt back when nothing arrived, leaves no worker or connection behind, and the
next request works."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.fakeprovider import DONE, FakeProvider, Reply, chunk, sse, stream_of
from tests.faults.pilot import send, wait_idle
from tests.ui.conftest import (
    AppFactory,
    conversation,
    record_notifications,
    rendered_text,
    wait_until,
)
from tui_chat.core.config import Settings, Timeouts
from tui_chat.core.models import Message, MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.ui.app import TuiChatApp
from tui_chat.ui.widgets.message_view import MessageView

WORDS = [f"w{i} " for i in range(12)]
PARTIAL = "".join(WORDS[:5])
# A read timeout short enough for the stall to show, given only to the stalled reply: every
# other reply has the default, so a machine too busy to wake for 1.5 s is not a stall.
STALL = Settings(max_retries=0, timeouts=Timeouts(read=1.5))
BIG = Settings(max_retries=0)


@dataclass
class Fault:
    """A reply that fails. `partial` is what arrived before it failed ("" for nothing)."""

    reply: Reply
    phrase: str
    partial: str = ""

    @property
    def status(self) -> MessageStatus:
        return MessageStatus.INTERRUPTED if self.partial else MessageStatus.ERROR


def _partial(tail: list[bytes]) -> list[bytes]:
    return [*stream_of(WORDS[:5], finish_reason=None, usage=False, done=False), *tail]


FAULTS: dict[str, Fault] = {
    "drop": Fault(Reply(stream_of(WORDS), drop_after=6), "broke during the reply", PARTIAL),
    "stall": Fault(Reply(stream_of(WORDS), stall_after=6, stall_seconds=120),
                   "stopped sending for 1.5 seconds", PARTIAL),
    "401": Fault(Reply.error(401, {"detail": "Invalid token."}), "rejected the API key (401)"),
    "402": Fault(Reply.error(402, {"detail": {"message": "Quota exceeded"}}), "(402)"),
    "403": Fault(Reply.error(403, {"error": {"message": "Forbidden"}}), "(403): Forbidden"),
    "404": Fault(Reply.error(404, {"detail": "model not found"}), "does not know the model"),
    "422": Fault(Reply.error(422, {"detail": [{"msg": "temperature out of range"}]}),
                 "temperature out of range"),
    "429": Fault(Reply.error(429, {"detail": "at capacity"}, **{"Retry-After": "7"}),
                 "at capacity (429): at capacity. Wait 7 s"),
    "500": Fault(Reply.error(500, {"error": {"message": "boom"}}), "server error (500): boom"),
    "502-html": Fault(Reply.error(502, "<html><body><h1>502 Bad Gateway</h1>" + "x" * 5000
                                  + "</body></html>"), "server error (502)."),
    "503": Fault(Reply.error(503, {"detail": "No instances available"}), "(503)"),
    "json-body": Fault(Reply(status=200, content_type="application/json",
                             body=json.dumps({"id": "x", "choices": []}).encode()),
                       "instead of an event stream"),
    "error-in-stream": Fault(Reply(_partial([sse({"error": {"message": "upstream died",
                                                             "code": 502}})])),
                             "upstream died", PARTIAL),
    "error-in-stream-vllm": Fault(Reply(_partial([sse({"object": "error", "message": "vllm broke",
                                                        "type": "BadRequestError",
                                                        "code": 400})])),
                                  "vllm broke", PARTIAL),
    "error-in-stream-openrouter": Fault(Reply(_partial([sse({
        "id": "gen-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "error": {"code": 502, "message": "provider went away"},
        "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}]})])),
        "provider went away", PARTIAL),
    "not-json": Fault(Reply(_partial([b"data: {oops\n\n"])), "not a valid chunk", PARTIAL),
    "no-done": Fault(Reply(_partial([])), "ended before it was complete", PARTIAL),
}


def llm_workers(app: TuiChatApp) -> list[object]:
    return [w for w in app.workers if w.group == "llm" and not w.is_finished]


def shown_messages(app: TuiChatApp) -> list[Message]:
    return [view.message for view in conversation(app).query(MessageView)]


async def assert_usable(pilot: Pilot[Any], server: FakeProvider, store: Store) -> None:
    """Nothing left running; the next request works and is saved."""
    app = pilot.app
    assert isinstance(app, TuiChatApp)
    assert not llm_workers(app)
    assert server.wait_for_idle(), "a connection was left open"
    server.clear_script()
    server.script(Reply(stream_of(["fine ", "again"])))
    await send(pilot, "next one")
    last = shown_messages(app)[-1]
    assert (last.content, last.status) == ("fine again", MessageStatus.COMPLETE)
    assert store.get_message(last.id).status is MessageStatus.COMPLETE
    assert app.is_running and app.return_code is None


@pytest.mark.parametrize("name", list(FAULTS))
async def test_fault_in_the_app(make_app: AppFactory, store: Store,
                                chutes_server: FakeProvider, name: str) -> None:
    fault = FAULTS[name]
    chutes_server.script(fault.reply)
    if fault.reply.status in (400, 422):  # asked again without stream_options: the same
        chutes_server.script(fault.reply)
    app = make_app(settings=STALL if name == "stall" else BIG)
    prompt = f"prompt for {name} [b]x[/]"
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        notes = record_notifications(app)
        await send(pilot, prompt)
        screen = conversation(app)
        # One sentence, inline on the message (no toast repeating it), and the partial reply
        # kept on screen with its status.
        assert [text for severity, text in notes if severity == "error"] == []
        user, reply = shown_messages(app)[-2:]
        assert (user.role, user.content) == (Role.USER, prompt)
        error = reply.error or ""
        assert fault.phrase in error, error
        assert "\n" not in error.strip() and len(error) < 400
        assert reply.status is fault.status
        assert reply.content == fault.partial
        view = screen.query(MessageView)[-1]
        assert error[:40] in " ".join(rendered_text(view).split())
        assert ("interrupted" if fault.partial else "failed") in rendered_text(view)
        # Saved the same way (the advice, e.g. "Press F2", is the app's, not the store's).
        saved = store.get_message(reply.id)
        assert (saved.content, saved.status) == (fault.partial, fault.status)
        assert saved.error and error.startswith(saved.error)
        # The prompt comes back only when nothing was received.
        assert screen.prompt.text == ("" if fault.partial else prompt)
        await assert_usable(pilot, chutes_server, store)
        assert [s for s, _ in notes if s == "error"] == []
        await pilot.press("ctrl+q")  # quits cleanly: no exception anywhere
    assert app.return_code == 0 and app._exception is None


async def test_429_retry_after_is_honoured_then_the_reply_arrives(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply.error(429, {"detail": "busy"}, **{"Retry-After": "1"}),
                         Reply(stream_of(["after ", "the wait"])))
    app = make_app(settings=Settings(max_retries=1))
    async with app.run_test(size=(100, 30)) as pilot:
        notes = record_notifications(app)
        screen = conversation(app)
        screen.prompt.insert("hello")
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.status.info.state == "retrying")
        assert "retry in 1 s" in screen.status.info.note
        await wait_idle(pilot)
        reply = shown_messages(app)[-1]
        assert (reply.content, reply.status) == ("after the wait", MessageStatus.COMPLETE)
        assert not [n for n in notes if n[0] == "error"]
    assert len([r for r in chutes_server.requests if r.method == "POST"]) == 2


async def test_bytes_that_are_not_utf8(make_app: AppFactory, store: Store,
                                       chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply([sse(chunk("ok ")),
                                b'data: {"choices":[{"delta":{"content":"\xff!"}}]}\n\n',
                                sse(chunk(finish_reason="stop")), DONE]))
    app = make_app(settings=BIG)
    async with app.run_test(size=(100, 30)) as pilot:
        notes = record_notifications(app)
        await send(pilot, "bytes")
        reply = shown_messages(app)[-1]
        assert (reply.content, reply.status) == ("ok \ufffd!", MessageStatus.COMPLETE)
        assert "ok \ufffd!" in rendered_text(conversation(app).query(MessageView)[-1])
        assert store.get_message(reply.id).content == "ok \ufffd!"
        assert not [n for n in notes if n[0] == "error"]
        await assert_usable(pilot, chutes_server, store)


@pytest.mark.slow
async def test_one_megabyte_event(make_app: AppFactory, store: Store,
                                  chutes_server: FakeProvider) -> None:
    big = ("y" * 99 + "\n") * 10_000  # 1,000,000 characters in ONE event
    chutes_server.script(Reply(stream_of([big])))
    app = make_app(settings=BIG, clock=time.monotonic)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "big")
        reply = shown_messages(app)[-1]
        assert (len(reply.content), reply.status) == (1_000_000, MessageStatus.COMPLETE)
        assert store.get_message(reply.id).content == big
        await assert_usable(pilot, chutes_server, store)


@pytest.mark.slow
async def test_hundred_thousand_chunk_reply(make_app: AppFactory, store: Store,
                                            chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["z"] * 100_000)))
    app = make_app(settings=BIG, clock=time.monotonic)  # real time: flushes once a second
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        screen.prompt.insert("many")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not screen.streaming, seconds=600)
        await pilot.pause()
        reply = shown_messages(app)[-1]
        assert (reply.content, reply.status) == ("z" * 100_000, MessageStatus.COMPLETE)
        assert store.get_message(reply.id).content == "z" * 100_000
        await assert_usable(pilot, chutes_server, store)


async def test_stop_while_the_reply_is_being_set_up_saves_it_as_interrupted(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Esc can land while the screen is still drawing the new reply (not inside the stream):
    the reply must still be saved and shown as interrupted at once."""
    chutes_server.script(Reply(stream_of(WORDS), delay=0.05))
    app = make_app(settings=BIG)
    gate = asyncio.Event()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        original = screen.presenter._reply_started

        async def slow_reply_started(message: Message) -> None:
            await original(message)
            gate.set()
            await asyncio.sleep(30)  # Esc arrives here

        monkeypatch.setattr(screen.presenter, "_reply_started", slow_reply_started)
        screen.prompt.insert("stop early")
        await pilot.press("enter")
        await wait_until(pilot, gate.is_set)
        await pilot.press("escape")
        await wait_idle(pilot)
        reply = shown_messages(app)[-1]
        assert reply.role is Role.ASSISTANT and reply.status is MessageStatus.INTERRUPTED
        assert store.get_message(reply.id).status is MessageStatus.INTERRUPTED
        assert screen.prompt.text == "stop early"  # nothing arrived: the prompt is back
        assert chutes_server.wait_for_idle()
