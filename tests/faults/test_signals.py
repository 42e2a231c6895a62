"""Issue 12, signals: SIGTERM and SIGHUP (the terminal closed) during a reply, in `ask` and in
the app. Everything received so far is saved, marked interrupted (not only what the last
periodic save held), the terminal is given back, and the exit code is 128 + the signal."""

from __future__ import annotations

import fcntl
import os
import pty
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
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            return
        if not data:
            return
        seen.extend(data)


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
