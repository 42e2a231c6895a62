"""Running tui-chat on a pseudo-terminal, as a user at a terminal would."""

from __future__ import annotations

import os
import pty
import subprocess
import sys


def run_on_terminal(*args: str, answer: str | None = None, env: dict[str, str] | None = None,
                    stderr_too: bool = False) -> tuple[int, str, str]:
    """Run with stdin and stdout (`stderr_too`: and stderr) on a pseudo-terminal; returns
    (code, terminal text, stderr)."""
    main_fd, child_fd = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "tui_chat", *args], stdin=child_fd,
                               stdout=child_fd,
                               stderr=child_fd if stderr_too else subprocess.PIPE,
                               env={**os.environ, **(env or {})})
    os.close(child_fd)
    if answer is not None:
        os.write(main_fd, answer.encode())
    received = b""
    while True:
        try:
            data = os.read(main_fd, 4096)
        except OSError:
            break
        if not data:
            break
        received += data
    os.close(main_fd)
    _, err = process.communicate(timeout=30)
    return process.returncode, received.decode(), (err or b"").decode()


def run_with_controlling_terminal(args: list[str], *, until: bytes, answer: bytes,
                                  env: dict[str, str], timeout: float = 60
                                  ) -> tuple[int, str, str, bytes]:
    """Run tui-chat with stdin, stdout and stderr on pipes and a pseudo-terminal as its
    controlling terminal (/dev/tty), as a user running `ask` in a pipeline at a terminal;
    type `answer` on the terminal once it shows `until`. Returns (code, stdout, stderr,
    what the terminal showed)."""
    main_fd, child_fd = pty.openpty()
    path = os.ttyname(child_fd)

    def take_terminal() -> None:
        os.setsid()
        os.close(os.open(path, os.O_RDWR))  # a session leader's first terminal: its own

    process = subprocess.Popen([sys.executable, "-m", "tui_chat", *args],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env={**os.environ, **env},
                               preexec_fn=take_terminal)
    shown = b""  # the terminal side stays open here: reading a pty with none open fails
    try:
        while until not in shown:
            try:
                data = os.read(main_fd, 4096)
            except OSError:
                break
            if not data:
                break
            shown += data
        if until in shown:
            os.write(main_fd, answer)
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"no end; the terminal showed {shown!r}") from error
    finally:
        os.close(child_fd)
        os.close(main_fd)
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, out.decode(), err.decode(), shown
