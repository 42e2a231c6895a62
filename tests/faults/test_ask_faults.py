"""Issue 6 for `tui-chat ask`: every fault gives one sentence, keeps and saves the partial reply
with its status, leaves nothing running, and the next request works."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakeprovider import DONE, FakeProvider, Reply, chunk, sse, stream_of
from tui_chat.core.models import MessageStatus, Role
from tui_chat.core.store import Store

KEY = "cpk_fault0matrix0key0000000000000.DISTINCT"
WORDS = [f"w{i} " for i in range(12)]
PARTIAL = "".join(WORDS[:5])


@dataclass
class Fault:
    """A reply that fails; text already received makes the saved reply "interrupted"."""

    reply: Reply
    exit_code: int
    phrase: str
    stdout: str = ""
    status: MessageStatus = MessageStatus.ERROR


def _partial(tail: list[bytes]) -> list[bytes]:
    return [*stream_of(WORDS[:5], finish_reason=None, usage=False, done=False), *tail]


FAULTS: dict[str, Fault] = {
    "drop": Fault(Reply(stream_of(WORDS), drop_after=6), 6, "broke during the reply", PARTIAL,
                  MessageStatus.INTERRUPTED),
    "stall": Fault(Reply(stream_of(WORDS), stall_after=6, stall_seconds=120), 5,
                   "stopped sending for 0.5 seconds", PARTIAL, MessageStatus.INTERRUPTED),
    "401": Fault(Reply.error(401, {"detail": "Invalid token."}), 3, "rejected the API key (401)"),
    "402": Fault(Reply.error(402, {"detail": {"message": "Quota exceeded"}}), 4, "(402)"),
    "403": Fault(Reply.error(403, {"error": {"message": "Forbidden"}}), 3, "(403): Forbidden"),
    "404": Fault(Reply.error(404, {"detail": "model not found"}), 7, "does not know the model"),
    "422": Fault(Reply.error(422, {"detail": [{"msg": "temperature out of range"}]}), 7,
                 "temperature out of range"),
    "429": Fault(Reply.error(429, {"detail": "at capacity"}, **{"Retry-After": "0"}), 4,
                 "rate limiting"),
    "500": Fault(Reply.error(500, {"error": {"message": "boom"}}), 5, "server error (500): boom"),
    "502-html": Fault(Reply.error(502, "<html><body><h1>502 Bad Gateway</h1>" + "x" * 5000
                             + "</body></html>"), 5, "server error (502)."),
    "503": Fault(Reply.error(503, {"detail": "No instances available"}), 5, "(503)"),
    "json-body": Fault(Reply(status=200, content_type="application/json",
                             body=json.dumps({"id": "x", "choices": []}).encode()), 6,
                       "instead of an event stream"),
    "error-in-stream": Fault(Reply(_partial([sse({"error": {"message": "upstream died",
                                                             "code": 502}})])),
                             5, "upstream died", PARTIAL, MessageStatus.INTERRUPTED),
    "not-json": Fault(Reply(_partial([b"data: {oops\n\n"])), 6, "not a valid chunk", PARTIAL,
                      MessageStatus.INTERRUPTED),
    "no-done": Fault(Reply(_partial([])), 6, "ended before it was complete", PARTIAL,
                     MessageStatus.INTERRUPTED),
}


def ask(server: FakeProvider, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "tui-chat" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("max_retries = 1\n")
    env = {**os.environ, "CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": KEY}
    return subprocess.run([sys.executable, "-m", "tui_chat", "ask", *args], capture_output=True,
                          text=True, env=env, timeout=timeout, check=False)


def last_exchange() -> tuple[str, str, MessageStatus, str | None]:
    with Store.open() as store:
        latest = store.latest_conversation()
        assert latest is not None
        *_, user, reply = store.get_messages(latest.id)
    assert (user.role, reply.role) == (Role.USER, Role.ASSISTANT)
    return user.content, reply.content, reply.status, reply.error


def assert_clean(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr
    assert KEY not in result.stdout + result.stderr and "DISTINCT" not in result.stderr


@pytest.mark.parametrize("name", list(FAULTS))
def test_fault(chutes_server: FakeProvider, name: str) -> None:
    fault = FAULTS[name]
    # A 429/5xx is retried once (max_retries = 1): script it twice so the retry fails too.
    chutes_server.script(fault.reply, fault.reply)
    result = ask(chutes_server, "--timeout", "0.5", f"prompt for {name}")
    assert_clean(result)
    assert result.returncode == fault.exit_code, result.stderr
    sentences = [line for line in result.stderr.splitlines() if line.startswith("tui-chat: ")
                 and "retrying" not in line]
    assert len(sentences) == 1 and fault.phrase in sentences[0], result.stderr
    assert result.stdout.rstrip("\n") == fault.stdout.rstrip("\n")  # partial text kept
    prompt, saved, status, error = last_exchange()
    assert prompt == f"prompt for {name}"  # the prompt is recoverable
    assert saved == fault.stdout and status is fault.status and error
    assert chutes_server.wait_for_idle()  # nothing left streaming
    # The next request works.
    chutes_server.clear_script()
    chutes_server.script(Reply(stream_of(["fine"])), Reply(stream_of(["fine"])))
    after = ask(chutes_server, "again")
    assert (after.returncode, after.stdout) == (0, "fine")


def test_429_with_retry_after_then_success(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply.error(429, {"detail": "busy"}, **{"Retry-After": "1"}),
                         Reply(stream_of(["after the wait"])))
    result = ask(chutes_server, "hello")
    assert result.returncode == 0 and result.stdout == "after the wait"
    assert "retrying in 1 s" in result.stderr
    assert last_exchange()[1:3] == ("after the wait", MessageStatus.COMPLETE)


def test_bytes_that_are_not_utf8(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply([sse(chunk("ok ")),
                                b'data: {"choices":[{"delta":{"content":"\xff!"}}]}\n\n',
                                sse(chunk(finish_reason="stop")), DONE]))
    result = ask(chutes_server, "bytes")
    assert result.returncode == 0 and result.stdout == "ok \ufffd!"


def test_one_megabyte_event(chutes_server: FakeProvider) -> None:
    big = "y" * 1_000_000
    chutes_server.script(Reply(stream_of([big])))
    result = ask(chutes_server, "big")
    assert result.returncode == 0 and result.stdout == big
    assert last_exchange()[1] == big


@pytest.mark.slow
def test_hundred_thousand_chunk_reply(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["z"] * 100_000)))
    result = ask(chutes_server, "many", timeout=300)
    assert result.returncode == 0 and result.stdout == "z" * 100_000
    assert last_exchange()[1:3] == ("z" * 100_000, MessageStatus.COMPLETE)
