"""Drive a real tmux: run a command in a detached session, send keys, capture the screen, and
ask tmux itself how many cells a string takes (its cursor position after printing it).

Used by the tests that check that tui-chat's borders stay in place in a real terminal."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

TMUX = shutil.which("tmux")
_CONFIG = """\
set -g prefix None
unbind-key C-b
set -sg escape-time 0
set -g status off
set -g default-terminal tmux-256color
"""


class Tmux:
    """One tmux server on its own socket, with one session `width` × `height`."""

    def __init__(self, directory: Path, width: int, height: int) -> None:
        assert TMUX is not None
        self.directory = directory
        self.width, self.height = width, height
        self.socket = directory / "tmux.sock"
        self.config = directory / "tmux.conf"
        self.config.write_text(_CONFIG)
        self._measured = 0

    def _tmux(self, *args: str, check: bool = True) -> str:
        assert TMUX is not None
        done = subprocess.run([TMUX, "-S", str(self.socket), "-f", str(self.config), *args],
                              capture_output=True, text=True, check=check, timeout=30)
        return done.stdout

    def start(self, command: Sequence[str], env: dict[str, str]) -> None:
        env_args = [part for name, value in env.items() for part in ("-e", f"{name}={value}")]
        self._tmux("new-session", "-d", "-s", "main", "-x", str(self.width), "-y",
                   str(self.height), *env_args, *command)

    def pid(self) -> int:
        """The process id of the command the session runs."""
        return int(self._tmux("list-panes", "-t", "main", "-F", "#{pane_pid}").split()[0])

    def kill_session(self) -> None:
        """Close the session's terminal under its command, as closing its window does."""
        self._tmux("kill-session", "-t", "main")

    def send(self, *keys: str, literal: bool = False) -> None:
        self._tmux("send-keys", "-t", "main:0", *(("-l",) if literal else ()), *keys)

    def capture(self, *, styles: bool = False) -> list[str]:
        """The screen's rows as tmux holds them (a wide character once, trailing spaces);
        with `styles`, with the escape sequences of their colours and attributes."""
        text = self._tmux("capture-pane", "-p", "-N", *(("-e",) if styles else ()),
                          "-t", "main:0")
        return text.split("\n")[: self.height]

    def wait_for(self, predicate: Callable[[list[str]], bool], seconds: float = 30.0,
                 what: str = "the screen") -> list[str]:
        """The screen once `predicate` holds for it (fails after `seconds`)."""
        deadline = time.monotonic() + seconds
        while True:
            rows = self.capture()
            if predicate(rows):
                return rows
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} never appeared; the screen was:\n"
                                     + "\n".join(rows))
            time.sleep(0.05)

    def columns(self, strings: Sequence[str]) -> list[int]:
        """How many cells tmux advances its cursor for each string (printed in a window of its
        own, followed by a cursor position request)."""
        self._measured += 1
        source = self.directory / f"measure-{self._measured}.json"
        result = self.directory / f"measured-{self._measured}.json"
        source.write_text(json.dumps(list(strings)), encoding="utf-8")
        root = Path(__file__).resolve().parent.parent
        self._tmux("new-window", "-d", "-t", f"main:{self._measured}", "-c", str(root),
                   sys.executable, "-m", "tests.tmux_measure", str(source), str(result))
        deadline = time.monotonic() + 30
        while not result.exists():
            if time.monotonic() > deadline:
                raise AssertionError("tmux did not report cursor positions")
            time.sleep(0.02)
        measured: list[int] = json.loads(result.read_text())
        return measured

    def close(self) -> None:
        self._tmux("kill-server", check=False)
        if self.socket.exists():
            os.unlink(self.socket)
