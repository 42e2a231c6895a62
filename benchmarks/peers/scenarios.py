"""The four scenarios, each one run of one app in a fresh tmux pane and fresh directories,
timed from the key (or the launch) to the first screen read by `capture-pane` that shows
the result; CPU is the app's own (/proc), over the same span.

- reply: a 2,000-chunk Markdown reply at full loopback speed (`bench/markdown-2000`), from
  the send key to its last line on the screen.
- paced: the same reply at 100 chunks a second (20 s): the app's CPU share over those 20 s,
  and when its last line showed (an app that falls behind shows it late).
- open: a stored conversation of N messages, opened from the app's own list: from the key
  that opens it to its last message on the screen; resident memory after.
- startup: from launching the app, empty store, to its ready screen (`App.ready_marker`).

A run that does not get there in its time limit is reported as not finished, never waited
for longer; nor is one whose app goes idle (under 3 % of a core for 3 s) with the end not
on screen (oterm stops following a long reply: it ends scrolled far above its end).
"""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.peers.apps import CONVERSATION_TITLE, App, Conversation
from benchmarks.peers.terminal import Pane, Terminal, rss_mb
from benchmarks.textgen import history_text, markdown_chunks

REPLY_CHUNKS = 2000
PACED_RATE = 100
SETTLE = 1.0
"""Seconds an app is left alone once ready, before the timed key (start-up work to finish,
as a user takes longer than that to type a prompt)."""
PROMPT = "hello peers"
IDLE_WINDOW, IDLE_SHARE = 3.0, 0.03


@dataclass
class Run:
    seconds: float | None  # None: did not get there
    cpu_seconds: float
    note: str = ""
    cpu_share: float | None = None  # paced: CPU over the stream's duration / that duration
    rss_mb: float | None = None
    screen: list[str] | None = None  # of a run that did not get there: what it showed last


def reply_sentinel() -> str:
    """The reply's last line of text (unique in it: the last line of its last code block)."""
    last = next(chunk for chunk in reversed(markdown_chunks(REPLY_CHUNKS)) if "compute(" in chunk)
    return last.strip()


def conversation_sentinel(count: int) -> str:
    return f"zzlast{count}end"


def long_conversation(count: int) -> Conversation:
    """`count` messages, user and assistant in turn (the benchmarks' stored history text),
    the last one ending with a word found nowhere else."""
    rng = random.Random(7)
    messages: list[tuple[str, str]] = []
    for index in range(count // 2 + count % 2):
        user, answer = history_text(rng, index)
        messages.append(("user", user))
        if len(messages) < count:
            messages.append(("assistant", answer))
    role, content = messages[-1]
    messages[-1] = (role, f"{content}\n\nThe end: {conversation_sentinel(count)}.")
    return Conversation(CONVERSATION_TITLE, "bench/1", messages)


def last_lines(pane: Pane, count: int = 12) -> list[str]:
    return [line.rstrip() for line in pane.screen().splitlines() if line.strip()][-count:]


class Workspace:
    """Fresh folders for runs, and stores built once per (app, shape) and copied into them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._templates: dict[tuple[str, str], Path] = {}
        self._count = 0

    def fresh(self) -> Path:
        self._count += 1
        folder = self.root / f"run{self._count}"
        folder.mkdir()
        return folder

    def with_store(self, app: App, shape: str, build: Callable[[Path], None]) -> Path:
        key = (app.name, shape)
        if key not in self._templates:
            template = Path(tempfile.mkdtemp(prefix=f"{app.name}-", dir=self.root))
            build(template)
            self._templates[key] = template
        folder = self.fresh()
        shutil.copytree(self._templates[key], folder, dirs_exist_ok=True)
        return folder


def wait_for_end(pane: Pane, found: Callable[[str], bool], began: float, timeout: float,
                 at: float | None = None) -> tuple[float | None, str, float | None]:
    """(when `found` first held, or None; why not; the app's CPU at began + `at` seconds).
    The screen is read every 10 ms at first, then less often (1 % of the time waited so
    far, at most every 100 ms): reading it costs CPU that the app being timed competes for."""
    marks: list[tuple[float, float]] = [(began, pane.cpu())]
    cpu_at: float | None = None
    while True:
        screen = pane.screen()
        now = time.perf_counter()
        if at is not None and cpu_at is None and now >= began + at:
            cpu_at = pane.cpu()
        if found(screen):
            return now, "", cpu_at
        if now - began > timeout:
            return None, f"did not finish in {timeout:.0f} s", cpu_at
        if now - marks[-1][0] >= 0.5:
            marks.append((now, pane.cpu()))
            window = [m for m in marks if m[0] >= now - IDLE_WINDOW]
            settled = now - began > IDLE_WINDOW + (at or 0.0)  # a paced stream is over
            if (settled and len(window) > 1
                    and window[-1][1] - window[0][1] < IDLE_SHARE * (window[-1][0] - window[0][0])):
                idle = now - IDLE_WINDOW - began
                return None, f"idle from {idle:.0f} s on, the end never on screen", cpu_at
        time.sleep(min(0.1, max(0.01, (now - began) / 100)))


class Scenarios:
    def __init__(self, terminal: Terminal, workspace: Workspace, url: str,
                 timeout: float) -> None:
        self.terminal, self.workspace, self.url, self.timeout = terminal, workspace, url, timeout

    def _launch(self, app: App, folder: Path, model: str, marker: str
                ) -> tuple[Pane, float, float | None]:
        env = app.env(folder, self.url, model)
        began = time.perf_counter()
        pane = self.terminal.start(app.argv(model), env, folder)
        ready = pane.wait_for(lambda screen: marker in screen, self.timeout)
        return pane, began, ready

    def startup(self, app: App) -> Run:
        pane, began, ready = self._launch(app, self.workspace.fresh(), "bench/1",
                                          app.ready_marker)
        try:
            if ready is None:
                return Run(None, pane.cpu(), f"not ready in {self.timeout:.0f} s")
            return Run(ready - began, pane.cpu(), rss_mb=rss_mb(pane.pid))
        finally:
            pane.close()

    def reply(self, app: App, model: str = f"bench/markdown-{REPLY_CHUNKS}",
              paced: float | None = None) -> Run:
        folder = self.workspace.with_store(app, model, lambda f: app.chat_store(f, model))
        pane, _, ready = self._launch(app, folder, model, app.chat_ready_marker)
        try:
            if ready is None:
                return Run(None, pane.cpu(), f"not ready in {self.timeout:.0f} s")
            time.sleep(SETTLE)
            pane.type(PROMPT)
            if pane.wait_for(lambda screen: PROMPT in screen, self.timeout) is None:
                return Run(None, pane.cpu(), "its prompt did not show the text typed")
            sentinel = reply_sentinel()
            cpu, began = pane.cpu(), time.perf_counter()
            pane.keys(app.send_key)
            limit = self.timeout + (paced or 0.0)
            end, note, cpu_at = wait_for_end(pane, lambda screen: sentinel in screen, began,
                                             limit, at=paced)
            used = pane.cpu() - cpu
            share = None if paced is None else ((cpu_at if cpu_at is not None else pane.cpu())
                                                - cpu) / paced
            return Run(None if end is None else end - began, used, note, share,
                       screen=None if end is not None else last_lines(pane))
        finally:
            pane.close()

    def paced(self, app: App) -> Run:
        seconds = REPLY_CHUNKS / PACED_RATE
        return self.reply(app, f"bench/paced-{PACED_RATE}ps-{REPLY_CHUNKS}", paced=seconds)

    def open(self, app: App, count: int) -> Run:
        conversation = long_conversation(count)
        folder = self.workspace.with_store(app, f"open-{count}",
                                           lambda f: app.open_store(f, conversation))
        pane, _, ready = self._launch(app, folder, "bench/1", app.chat_ready_marker)
        try:
            if ready is None:
                return Run(None, pane.cpu(), f"not ready in {self.timeout:.0f} s")
            time.sleep(SETTLE)
            if not app.open_first(pane, conversation.title, self.timeout):
                return Run(None, pane.cpu(), "its list did not show the conversation")
            time.sleep(0.2)
            sentinel = conversation_sentinel(count)
            cpu, began = pane.cpu(), time.perf_counter()
            pane.keys(app.open_key)
            end, note, _ = wait_for_end(pane, lambda screen: sentinel in screen, began,
                                        self.timeout)
            return Run(None if end is None else end - began, pane.cpu() - cpu, note,
                       rss_mb=rss_mb(pane.pid),
                       screen=None if end is not None else last_lines(pane))
        finally:
            pane.close()
