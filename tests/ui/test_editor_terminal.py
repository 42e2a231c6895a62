"""Ctrl+E on a real (pseudo-)terminal: the app hands the terminal over to the editor
(`App.suspend`: main screen, cooked mode) and takes it back, with the edited text in the
prompt. Pilot's headless driver cannot suspend, so this runs the app as a user does."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from tests.editors import stand_in
from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.faults.test_signals import BOUND, ROOT, environment, read_to_end, read_until

CHECK_THE_TERMINAL = """\
import termios
flags = termios.tcgetattr(0)[3]
cooked = bool(flags & termios.ICANON) and bool(flags & termios.ECHO)
print("EDITOR-RAN cooked" if cooked else "EDITOR-RAN raw", flush=True)
path.write_text(path.read_text() + " (edited)")
"""


@pytest.mark.slow
def test_the_editor_gets_the_terminal_and_the_app_takes_it_back(
        tmp_path: Path, chutes_server: FakeProvider) -> None:
    stand_in(tmp_path, "ed", CHECK_THE_TERMINAL)
    chutes_server.script(Reply(stream_of(["REPLY-ARRIVED"])))
    env = {**environment(tmp_path, chutes_server), "EDITOR": str(tmp_path / "ed"), "VISUAL": ""}
    main_fd, child_fd = pty.openpty()
    os.set_blocking(main_fd, True)
    fcntl.ioctl(child_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    process = subprocess.Popen([sys.executable, "-m", "tui_chat"], stdin=child_fd,
                               stdout=child_fd, stderr=child_fd, env=env, cwd=ROOT)
    os.close(child_fd)
    seen = bytearray()
    try:
        read_until(main_fd, b"Enter sends", seen)
        os.write(main_fd, b"draft\x05")  # Ctrl+E
        read_until(main_fd, b"EDITOR-RAN", seen)
        before = bytes(seen[:seen.find(b"EDITOR-RAN")])
        # The app left the alternate screen and stopped mouse reports before the editor ran.
        # (After the ready screen, not after "draft" drawn: keys typed at once may reach the
        # editor before the prompt is painted with them, as on a loaded machine.)
        assert b"\x1b[?1049l" in before[before.rfind(b"Enter sends"):]
        read_until(main_fd, b"\n", seen)
        assert b"EDITOR-RAN cooked" in seen
        read_until(main_fd, b"(edited)", seen)  # back in the app, the text in the prompt
        os.write(main_fd, b"\r")
        read_until(main_fd, b"REPLY-ARRIVED", seen)
        os.write(main_fd, b"\x11\x11")  # Ctrl+Q twice: the reply drawn may still stream (the
        # first then asks whether to quit; the second quits, as the question says)
        read_to_end(main_fd, seen)
        process.wait(timeout=BOUND)
    finally:
        os.close(main_fd)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    assert chutes_server.requests[-1].body["messages"][-1] == {
        "role": "user", "content": "draft (edited)"}


WAIT_FOR_A_LINE = """\
print("EDITOR-WAITS", flush=True)
sys.stdin.readline()  # until Ctrl+C: Python's default SIGINT ends the editor
path.write_text("never saved")
"""


def _controlling_terminal() -> None:
    """In the child, after setsid: the pseudo-terminal becomes its controlling terminal, as a
    shell's is, so that Ctrl+C typed there is SIGINT to its foreground process group (the app
    and the editor it runs)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@pytest.mark.slow
def test_ctrl_c_in_the_editor_keeps_the_app_and_the_draft(
        tmp_path: Path, chutes_server: FakeProvider) -> None:
    """Issue 26: Ctrl+C while the editor was open quit the app (KeyboardInterrupt through
    the wait for the editor), and the unsent draft was lost."""
    stand_in(tmp_path, "ed", WAIT_FOR_A_LINE)
    chutes_server.script(Reply(stream_of(["REPLY-ARRIVED"])))
    env = {**environment(tmp_path, chutes_server), "EDITOR": str(tmp_path / "ed"), "VISUAL": ""}
    main_fd, child_fd = pty.openpty()
    os.set_blocking(main_fd, True)
    fcntl.ioctl(child_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    process = subprocess.Popen([sys.executable, "-m", "tui_chat"], stdin=child_fd,
                               stdout=child_fd, stderr=child_fd, env=env, cwd=ROOT,
                               start_new_session=True, preexec_fn=_controlling_terminal)
    os.close(child_fd)
    seen = bytearray()
    try:
        read_until(main_fd, b"Enter sends", seen)
        os.write(main_fd, b"my draft\x05")  # Ctrl+E
        read_until(main_fd, b"EDITOR-WAITS", seen)
        os.write(main_fd, b"\x03")  # Ctrl+C, in cooked mode: SIGINT to the app and editor
        back = bytearray()
        read_until(main_fd, b"my draft", back)  # the app drew itself again, draft and all
        assert process.poll() is None
        os.write(main_fd, b"\r")
        read_until(main_fd, b"REPLY-ARRIVED", back)  # the draft, sent
        os.write(main_fd, b"\x11\x11")  # Ctrl+Q twice: the reply drawn may still stream (the
        # first then asks whether to quit; the second quits, as the question says)
        read_to_end(main_fd, back)
        process.wait(timeout=BOUND)
    finally:
        os.close(main_fd)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    assert chutes_server.requests[-1].body["messages"][-1] == {
        "role": "user", "content": "my draft"}
