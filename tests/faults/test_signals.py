"""Issue 12, signals: SIGTERM and SIGHUP (the terminal closed) during a reply, in `ask` and in
the app. Everything received so far is saved, marked interrupted (not only what the last
periodic save held), the terminal is given back, and the exit code is 128 + the signal.

Issue 26: a terminal killed under the app (a tmux session killed, mid-reply or right after a
long reply) once left the app alive for good, every thread asleep (Textual's output thread
had died of EIO, and the UI thread blocked on its full queue), deaf to SIGTERM. The process
is gone each time now, with the reply saved."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import sqlite3
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.tmux import TMUX, Tmux

ROOT = Path(__file__).resolve().parents[2]
PIECES = [f"piece{i:02d} " for i in range(12)] + ["LASTBEFOREGATE "]
HELD = ["never ", "sent"]
RECEIVED = "".join(PIECES)
BOUND = 60.0  # seconds: a bound for a broken build, never a timing


@pytest.fixture
def held_reply(chutes_server: FakeProvider) -> Iterator[threading.Event]:
    """A reply that stops mid-line after PIECES until the test ends (it can never finish
    first)."""
    gate = threading.Event()
    chutes_server.script(Reply(stream_of([*PIECES, *HELD]), gate=gate,
                               gate_after=len(PIECES) + 1))
    yield gate
    gate.set()


def environment(tmp_path: Path, server: FakeProvider) -> dict[str, str]:
    return {**os.environ, "TUI_CHAT_DB": str(tmp_path / "store.sqlite3"),
            "TUI_CHAT_CONFIG": str(tmp_path / "config.toml"), "PYTHONPATH": str(ROOT),
            "CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": "test-key-signals-0000",
            "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}


def saved_reply(db: Path) -> tuple[str, str, str | None]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as raw:
        row = raw.execute("SELECT content, status, error FROM messages WHERE role = "
                          "'assistant' ORDER BY seq DESC LIMIT 1").fetchone()
    raw.close()
    return row[0], row[1], row[2]


def read_until(fd: int, wanted: bytes, seen: bytearray) -> None:
    deadline = time.monotonic() + BOUND
    while wanted not in seen:
        assert time.monotonic() < deadline, f"never saw {wanted!r}"
        if not select.select([fd], [], [], 0.5)[0]:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            raise AssertionError(f"the terminal closed before {wanted!r}") from None
        if not data:
            raise AssertionError(f"end of output before {wanted!r}")
        seen.extend(data)


def read_to_end(fd: int, seen: bytearray) -> None:
    """Until the terminal closes (the process has ended), reading what it writes: a terminal
    nobody reads fills up and blocks the writer, which then never ends."""
    deadline = time.monotonic() + BOUND
    while True:
        assert time.monotonic() < deadline, (
            f"the terminal never closed; the last it showed: {readable(bytes(seen[-3000:]))}")
        if not select.select([fd], [], [], 0.5)[0]:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            return
        if not data:
            return
        seen.extend(data)


_ESCAPE = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]"  # CSI
                     rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC
                     rb"|\x1b[()*+].|\x1b.")  # character sets, the rest


def readable(output: bytes) -> str:
    """A terminal's output without its escape sequences (the words a failure shows)."""
    return " ".join(_ESCAPE.sub(b" ", output).decode(errors="replace").split())


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_ask_saves_everything_it_printed_on_a_stop_signal(
        signum: int, tmp_path: Path, chutes_server: FakeProvider,
        held_reply: threading.Event) -> None:
    process = subprocess.Popen([sys.executable, "-m", "tui_chat", "ask", "tell me"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=environment(tmp_path, chutes_server), cwd=ROOT)
    assert process.stdout is not None
    printed = bytearray()
    read_until(process.stdout.fileno(), b"LASTBEFOREGATE", printed)
    process.send_signal(signum)
    out, err = process.communicate(timeout=BOUND)
    assert process.returncode == 128 + signum, err
    assert (bytes(printed) + out).decode() == RECEIVED
    assert "Traceback" not in err.decode() and signal.Signals(signum).name in err.decode()
    content, status, error = saved_reply(tmp_path / "store.sqlite3")
    assert (content, status) == (RECEIVED, "interrupted") and error


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_the_app_saves_the_reply_on_screen_and_gives_the_terminal_back(
        signum: int, tmp_path: Path, chutes_server: FakeProvider,
        held_reply: threading.Event) -> None:
    main_fd, child_fd = pty.openpty()
    os.set_blocking(main_fd, True)
    fcntl.ioctl(child_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    # All three on the terminal, as in a shell (Textual draws on stderr).
    process = subprocess.Popen([sys.executable, "-m", "tui_chat"], stdin=child_fd,
                               stdout=child_fd, stderr=child_fd,
                               env=environment(tmp_path, chutes_server), cwd=ROOT)
    os.close(child_fd)
    seen = bytearray()
    try:
        read_until(main_fd, b"Enter sends", seen)  # the prompt's placeholder: ready
        os.write(main_fd, b"tell me\r")
        read_until(main_fd, b"LASTBEFOREGATE", seen)  # on screen
        if signum == signal.SIGHUP:
            os.close(main_fd)  # the terminal window closes
            main_fd = -1
        process.send_signal(signum)
        if main_fd >= 0:
            read_to_end(main_fd, seen)
        process.wait(timeout=BOUND)
    finally:
        if main_fd >= 0:
            os.close(main_fd)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signum, bytes(seen[-2000:])
    assert b"Traceback" not in seen
    content, status, _ = saved_reply(tmp_path / "store.sqlite3")
    assert (content, status) == (RECEIVED, "interrupted")
    if signum == signal.SIGTERM:  # the terminal is given back: main screen, no mouse reports
        after = bytes(seen[seen.rfind(b"LASTBEFOREGATE"):])
        assert b"\x1b[?1049l" in after and b"\x1b[?1000l" in after


GONE_BOUND = 15.0  # seconds: the app's stop signal arms a 5 s backstop (ui.app.STOP_BOUND)
LONG_REPLY = [f"word{i:04d} " for i in range(2500)] + ["THEEND"]


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"


@pytest.mark.slow
@pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
@pytest.mark.parametrize("when", ["mid-reply", "after-reply"] * 3)
def test_the_app_is_gone_when_its_terminal_is_killed(
        when: str, tmp_path: Path, chutes_server: FakeProvider) -> None:
    gate = threading.Event()
    if when == "mid-reply":
        chutes_server.script(Reply(stream_of([*PIECES, *HELD]), gate=gate,
                                   gate_after=len(PIECES) + 1))
    else:
        chutes_server.script(Reply(stream_of(LONG_REPLY)))
    env = environment(tmp_path, chutes_server)
    tmux = Tmux(tmp_path, 100, 30)
    try:
        tmux.start([sys.executable, "-m", "tui_chat"],
                   {name: env[name] for name in ("TUI_CHAT_DB", "TUI_CHAT_CONFIG", "PYTHONPATH",
                                                 "CHUTES_BASE_URL", "CHUTES_API_KEY")})
        tmux.wait_for(lambda rows: any("Enter sends" in row for row in rows), BOUND,
                      "the prompt")
        pid = tmux.pid()
        tmux.send("tell me", literal=True)
        tmux.send("Enter")
        last = "LASTBEFOREGATE" if when == "mid-reply" else "THEEND"
        tmux.wait_for(lambda rows: any(last in row for row in rows), BOUND, last)
        tmux.kill_session()
        deadline = time.monotonic() + GONE_BOUND
        while not gone(pid):
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                raise AssertionError(f"the app outlived its terminal ({when})")
            time.sleep(0.02)
    finally:
        gate.set()
        tmux.close()
    content, status, _ = saved_reply(tmp_path / "store.sqlite3")
    if when == "mid-reply":
        assert (content, status) == (RECEIVED, "interrupted")
    else:
        assert (content, status) == ("".join(LONG_REPLY), "complete")
