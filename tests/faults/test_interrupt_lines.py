"""Issue 14: `ask` stopped mid-line (Ctrl+C, SIGTERM) on a terminal ends the reply's line
before its sentence, so "tui-chat: interrupted." never follows the partial text on the same
line; into a pipe the text stays exactly what was received, and the sentence is alone on
stderr. Either way the reply so far is saved, marked interrupted."""

from __future__ import annotations

import os
import pty
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.faults.test_signals import (
    BOUND,
    RECEIVED,
    ROOT,
    environment,
    read_to_end,
    read_until,
    saved_reply,
)
from tui_chat.core.session import NOT_STARTED_NOTE

SENTENCE = {signal.SIGINT: b"tui-chat: interrupted.", signal.SIGTERM: b"tui-chat: stopped by"}
STOPS = pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])


@STOPS
def test_on_a_terminal_the_sentence_starts_its_own_line(
        signum: int, tmp_path: Path, chutes_server: FakeProvider,
        held_reply: threading.Event) -> None:
    main_fd, child_fd = pty.openpty()
    os.set_blocking(main_fd, True)
    process = subprocess.Popen([sys.executable, "-m", "tui_chat", "ask", "tell me"],
                               stdin=child_fd, stdout=child_fd, stderr=child_fd,
                               env=environment(tmp_path, chutes_server), cwd=ROOT)
    os.close(child_fd)
    seen = bytearray()
    try:
        read_until(main_fd, b"LASTBEFOREGATE ", seen)
        process.send_signal(signum)
        read_to_end(main_fd, seen)
        process.wait(timeout=BOUND)
    finally:
        os.close(main_fd)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signum, bytes(seen[-500:])
    # The terminal turns "\n" into "\r\n": one line end, no blank line, then the sentence.
    assert b"LASTBEFOREGATE \r\n" + SENTENCE[signum] in seen, bytes(seen[-500:])
    assert b"Traceback" not in seen
    assert saved_reply(tmp_path / "store.sqlite3")[:2] == (RECEIVED, "interrupted")


@STOPS
def test_into_a_pipe_the_text_is_what_was_received(
        signum: int, tmp_path: Path, chutes_server: FakeProvider,
        held_reply: threading.Event) -> None:
    process = subprocess.Popen([sys.executable, "-m", "tui_chat", "ask", "tell me"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=environment(tmp_path, chutes_server), cwd=ROOT)
    assert process.stdout is not None
    printed = bytearray()
    read_until(process.stdout.fileno(), b"LASTBEFOREGATE ", printed)
    process.send_signal(signum)
    out, err = process.communicate(timeout=BOUND)
    assert process.returncode == 128 + signum, err
    assert (bytes(printed) + out).decode() == RECEIVED
    assert err.startswith(SENTENCE[signum]) and err.count(b"\n") == 1, err
    assert saved_reply(tmp_path / "store.sqlite3")[:2] == (RECEIVED, "interrupted")


def test_a_closed_pipe_ends_quietly_with_141_and_the_reply_so_far_is_saved(
        tmp_path: Path, chutes_server: FakeProvider, held_reply: threading.Event) -> None:
    """`tui-chat ask … | head -1`: the reader goes away mid-reply. As any Unix tool killed by
    SIGPIPE: exit 128 + 13, nothing on stderr; what was received is saved, interrupted."""
    process = subprocess.Popen([sys.executable, "-m", "tui_chat", "ask", "tell me"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=environment(tmp_path, chutes_server), cwd=ROOT)
    assert process.stdout is not None and process.stderr is not None
    printed = bytearray()
    read_until(process.stdout.fileno(), b"LASTBEFOREGATE ", printed)
    process.stdout.close()  # the reader exits
    held_reply.set()  # the next piece meets the closed pipe
    err = process.stderr.read()
    process.wait(timeout=BOUND)
    assert (process.returncode, err) == (128 + signal.SIGPIPE, b"")
    content, status, _ = saved_reply(tmp_path / "store.sqlite3")
    assert content.startswith(RECEIVED) and status == "interrupted"


@STOPS
def test_ctrl_c_before_the_first_token_leaves_a_stopped_reply_that_ask_again_replaces(
        signum: int, tmp_path: Path, chutes_server: FakeProvider) -> None:
    """Nothing arrived: the reply is saved as stopped before it began (not an empty
    "interrupted" text), and `ask -c` with the same prompt retries on the same message."""
    gate = threading.Event()
    chutes_server.script(Reply(stream_of(["never"]), gate=gate, gate_after=0),
                         Reply(stream_of(["second ", "try"])))
    env = environment(tmp_path, chutes_server)
    try:
        process = subprocess.Popen([sys.executable, "-m", "tui_chat", "ask", "tell me"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                   cwd=ROOT)
        deadline = time.monotonic() + BOUND  # a bound for a broken build, not a timing
        while not chutes_server.requests:
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.05)
        process.send_signal(signum)
        out, err = process.communicate(timeout=BOUND)
    finally:
        gate.set()
    assert (process.returncode, out) == (128 + signum, b""), err
    assert err == (b"tui-chat: stopped before the reply began; ask again with -c and the same "
                   b"prompt to retry it.\n")
    assert saved_reply(tmp_path / "store.sqlite3") == ("", "interrupted", NOT_STARTED_NOTE)
    again = subprocess.run([sys.executable, "-m", "tui_chat", "ask", "-c", "tell me"],
                           capture_output=True, env=env, cwd=ROOT, timeout=BOUND)
    assert (again.returncode, again.stdout) == (0, b"second try"), again.stderr
    with sqlite3.connect(tmp_path / "store.sqlite3") as raw:
        rows = raw.execute("SELECT role, content FROM messages ORDER BY seq").fetchall()
    raw.close()
    assert rows == [("user", "tell me"), ("assistant", "second try")]
    assert chutes_server.requests[-1].body["messages"] == [  # type: ignore[index]
        {"role": "user", "content": "tell me"}]
