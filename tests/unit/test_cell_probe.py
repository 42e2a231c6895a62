"""The start-up probe (tui_chat/commands/cell_probe.py) against a pseudo-terminal whose other
end plays a terminal, and against tmux itself."""

from __future__ import annotations

import json
import os
import pty
import re
import sys
import termios
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest

from tests.tmux import TMUX, Tmux
from tui_chat.commands.cell_probe import SAMPLES, CellProbe
from tui_chat.ui import cells

Widths = Callable[[str], int]


def modern(sample: str) -> int:
    """A terminal that widens VS16 and joins skin tones (as kitty or WezTerm do)."""
    return {"\u0915\u0940": 2, "\u2764\ufe0f": 2, "\U0001f44d\U0001f3fd": 2,
            "\U0001fa77": 2}[sample]


@pytest.fixture
def terminal() -> Iterator[tuple[IO[str], int]]:
    main, child = pty.openpty()
    tty = open(child, "w", encoding="utf-8", closefd=True)  # noqa: SIM115
    yield tty, main
    tty.close()
    os.close(main)


def answer(main: int, widths: Widths) -> threading.Thread:
    """Play the terminal: answer each cursor position request after each sample."""
    def run() -> None:
        received = b""
        while received.count(b"\x1b[6n") < len(SAMPLES):
            received += os.read(main, 1024)
        for sample in re.findall(r"\r([^\r\x1b]+)\x1b\[6n", received.decode()):
            os.write(main, f"\x1b[5;{widths(sample) + 1}R".encode())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_the_answers_choose_the_model_and_the_mode_comes_back(
        terminal: tuple[IO[str], int]) -> None:
    tty, main = terminal
    before = termios.tcgetattr(tty.fileno())
    probe = CellProbe.start(tty, tty, {"TERM": "xterm-256color"})
    assert probe is not None
    assert not termios.tcgetattr(tty.fileno())[3] & termios.ECHO  # answers are not echoed
    answer(main, modern).join(timeout=10)
    widths = probe.finish(wait=10)
    assert widths == {"spacing_marks": 2, "vs16_wide": 2, "modifiers_join": 2, "new_emoji": 2}
    assert cells.model_from_widths(widths) == cells.CellModel(vs16_wide=True,
                                                              modifiers_join=True)
    assert termios.tcgetattr(tty.fileno()) == before


def test_a_terminal_that_does_not_answer_leaves_the_default(
        terminal: tuple[IO[str], int]) -> None:
    tty, _ = terminal
    before = termios.tcgetattr(tty.fileno())
    probe = CellProbe.start(tty, tty, {"TERM": "xterm-256color"})
    assert probe is not None
    assert probe.finish(wait=0.05) is None
    assert termios.tcgetattr(tty.fileno()) == before


def test_no_terminal_no_probe(tmp_path: Path, terminal: tuple[IO[str], int]) -> None:
    tty, _ = terminal
    with open(tmp_path / "out", "w+") as file:
        assert CellProbe.start(file, file, {"TERM": "xterm"}) is None
    assert CellProbe.start(tty, tty, {"TERM": "dumb"}) is None
    assert CellProbe.start(tty, tty, {"TERM": "xterm", "TEXTUAL_DRIVER": "web"}) is None


def test_an_unexpected_answer_keeps_that_default() -> None:
    model = cells.model_from_widths({"spacing_marks": 1, "vs16_wide": 3, "modifiers_join": 4})
    assert model == cells.CellModel(spacing_marks=False)


PROBE_SCRIPT = """
import json, sys
from tui_chat.commands.cell_probe import CellProbe
probe = CellProbe.start()
widths = probe.finish(wait=10) if probe else None
open(sys.argv[1], "w").write(json.dumps(widths))
input()
"""


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)")
def test_tmux_answers_with_the_model_it_draws_and_nothing_stays_on_screen(
        tmp_path: Path) -> None:
    tmux = Tmux(tmp_path, 40, 5)
    result = tmp_path / "widths.json"
    script = tmp_path / "probe.py"
    script.write_text(PROBE_SCRIPT)
    root = Path(__file__).resolve().parents[2]
    try:
        tmux.start([sys.executable, str(script), str(result)],
                   {"LANG": "C.UTF-8", "PYTHONPATH": str(root)})
        tmux.wait_for(lambda _: result.exists() and result.stat().st_size > 0,
                      what="the probe's answers")
        widths = json.loads(result.read_text())
        # tmux 3.3 draws as the default, but for the emoji its C library does not know yet
        # (glibc 2.36, Unicode 14: Debian 12), which it draws as nothing.
        assert cells.model_from_widths(widths) == cells.CellModel(new_emoji=False)
        assert widths == {"spacing_marks": 2, "vs16_wide": 1, "modifiers_join": 4,
                          "new_emoji": 0}
        assert "".join(tmux.capture()).strip() == ""
    finally:
        tmux.close()
