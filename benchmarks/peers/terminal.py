"""A real terminal for the peers benchmark: a private tmux server (its own socket, so nobody
else's sessions are touched), 120×40 panes, keys sent with `send-keys`, the screen read with
`capture-pane -p`, and the CPU time of the app in a pane read from /proc.

Apps are started without a shell (`new-session … ARGV…` execs ARGV directly), so the pane's
process is the app itself: its CPU is `utime + stime` of it and of its live descendants.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

WIDTH, HEIGHT = 120, 40
TICKS = os.sysconf("SC_CLK_TCK")
POLL = 0.01


class TmuxMissing(RuntimeError):
    """tmux is not installed: the benchmark cannot run."""


def require_tmux() -> str:
    found = shutil.which("tmux")
    if found is None:
        raise TmuxMissing("The peers benchmark drives the apps in tmux, which is not installed: "
                          "run `apt-get install -y tmux` (Debian/Ubuntu) and try again.")
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU of `pid` and its live descendants (threads included), in seconds."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        fields = _stat_fields(current)
        if fields is not None:
            total += (int(fields[11]) + int(fields[12])) / TICKS
        pending.extend(children.get(current, []))
    return total


def _stat_fields(pid: int) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name (which may hold spaces): [0] is the
    state, [1] the parent's pid, [11] utime, [12] stime."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rindex(")") + 2:].split()


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def alive(pid: int) -> bool:
    fields = _stat_fields(pid)
    return fields is not None and fields[0] != "Z"


@dataclass
class Pane:
    terminal: Terminal
    session: str
    pid: int

    def screen(self) -> str:
        return self.terminal.tmux("capture-pane", "-p", "-t", self.session).stdout

    def keys(self, *keys: str) -> None:
        """tmux key names (`Enter`, `C-j`, `Down`, ...)."""
        self.terminal.tmux("send-keys", "-t", self.session, *keys)

    def type(self, text: str) -> None:
        self.terminal.tmux("send-keys", "-t", self.session, "-l", text)

    def cpu(self) -> float:
        return cpu_seconds(self.pid)

    def wait_for(self, found: Callable[[str], bool], timeout: float,
                 poll: float = POLL) -> float | None:
        """perf_counter() of the first screen on which `found` holds, None after `timeout`."""
        deadline = time.perf_counter() + timeout
        while True:
            text = self.screen()
            now = time.perf_counter()
            if found(text):
                return now
            if now > deadline or not alive(self.pid):
                return None
            time.sleep(poll)

    def close(self) -> None:
        """Kill the session (the app gets SIGHUP), then the app itself if it lingers."""
        self.terminal.tmux("kill-session", "-t", self.session, check=False)
        deadline = time.monotonic() + 5
        while alive(self.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if alive(self.pid):
            os.kill(self.pid, signal.SIGKILL)


class Terminal:
    """A tmux server of our own; `with Terminal() as terminal:` stops it afterwards."""

    def __init__(self, socket: Path) -> None:
        self.binary = require_tmux()
        self.socket = socket
        self._count = 0

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run([self.binary, "-S", str(self.socket), *args], check=check,
                              capture_output=True, text=True, timeout=30)

    def __enter__(self) -> Terminal:
        # A placeholder session keeps the server up between apps, so that no app's start-up
        # includes the server's.
        self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "idle", "-x", str(WIDTH),
                  "-y", str(HEIGHT), "sleep", "86400")
        return self

    def __exit__(self, *exc: object) -> None:
        self.tmux("kill-server", check=False)

    def start(self, argv: Sequence[str], env: dict[str, str], cwd: Path) -> Pane:
        """`argv` in a new 120×40 session, with exactly `env` as its environment."""
        self._count += 1
        session = f"app{self._count}"
        command = ["env", "-i", *(f"{key}={value}" for key, value in env.items()), *argv]
        self.tmux("new-session", "-d", "-s", session, "-x", str(WIDTH), "-y", str(HEIGHT),
                  "-c", str(cwd), *command)
        pid = int(self.tmux("display-message", "-p", "-t", session, "#{pane_pid}").stdout)
        return Pane(self, session, pid)
