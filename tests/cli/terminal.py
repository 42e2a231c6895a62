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
