"""Ask the terminal how many cells it gives the characters terminals disagree on.

For each sample (`SAMPLES`: a consonant with a spacing vowel sign, an emoji with VS16, an
emoji with a skin tone, an emoji of Unicode 15) the probe returns the carriage, prints the
sample, asks where the cursor is (CSI 6n) and erases the line again, all in one write, so
nothing stays on screen.
It is sent before the UI is even imported and read just before the app starts: the answers
arrive while Python imports Textual, so the first frame waits for nothing (a terminal that
does not answer costs at most `WAIT` seconds, and then the usual widths are used). Between
the two the terminal neither echoes nor buffers lines, so the answers are not shown; keys
typed in that moment are dropped.

The probe is stdlib only and runs only when both stdin and stdout are a terminal; a
headless app (tests) or `tui-chat serve` never sends it.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import sys
import time
from collections.abc import Mapping
from typing import IO, Any

SAMPLES: dict[str, str] = {
    "spacing_marks": "\u0915\u0940",  # की: 2 cells where a vowel sign takes one
    "vs16_wide": "\u2764\ufe0f",  # ❤️: 2 cells where VS16 widens
    "modifiers_join": "\U0001f44d\U0001f3fd",  # 👍🏽: 2 cells where a skin tone joins
    "new_emoji": "\U0001fa77",  # 🩷 (Unicode 15): 2 cells where the terminal knows it
}
WAIT = 0.15
_REPLY = re.compile(rb"\x1b\[(\d+);(\d+)R")


class CellProbe:
    """A probe sent to the terminal; `finish()` reads its answers, `close()` gives the
    terminal its mode back."""

    def __init__(self, fd_in: int, saved_mode: list[Any]) -> None:
        self._fd_in = fd_in
        self._saved = saved_mode
        self._closed = False

    @classmethod
    def start(cls, stdin: IO[str] | None = None, stdout: IO[str] | None = None,
              env: Mapping[str, str] | None = None) -> CellProbe | None:
        """Send the probe, or None where there is no terminal to ask."""
        stdin = stdin or sys.stdin
        stdout = stdout or sys.stdout
        env = os.environ if env is None else env
        if sys.platform == "win32" or env.get("TERM", "dumb") == "dumb" \
                or env.get("TEXTUAL_DRIVER") or env.get("TUI_CHAT_NO_PROBE"):
            return None
        try:
            if not (stdin.isatty() and stdout.isatty()):
                return None
            import termios

            fd_in, fd_out = stdin.fileno(), stdout.fileno()
            saved = termios.tcgetattr(fd_in)
            quiet = termios.tcgetattr(fd_in)
            quiet[3] &= ~(termios.ECHO | termios.ICANON)
            quiet[6][termios.VMIN], quiet[6][termios.VTIME] = 0, 0
            termios.tcsetattr(fd_in, termios.TCSANOW, quiet)
        except (OSError, ValueError, ImportError):
            return None
        probe = cls(fd_in, saved)
        request = "".join(f"\r{sample}\x1b[6n\r\x1b[K" for sample in SAMPLES.values())
        try:
            os.write(fd_out, request.encode())
        except OSError:
            probe.close()
            return None
        return probe

    def finish(self, wait: float = WAIT) -> dict[str, int] | None:
        """The cells the terminal gave each sample (None if it did not answer them all in
        `wait` seconds more); the terminal's mode is given back."""
        received = b""
        deadline = time.monotonic() + wait
        try:
            while len(_REPLY.findall(received)) < len(SAMPLES):
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self._fd_in], [], [], left)[0]:
                    break
                chunk = os.read(self._fd_in, 1024)
                if not chunk:
                    break
                received += chunk
        except OSError:
            return None
        finally:
            self.close()
        columns = [int(column) for _row, column in _REPLY.findall(received)]
        if len(columns) < len(SAMPLES):
            return None
        return {name: column - 1 for name, column in zip(SAMPLES, columns, strict=False)}

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        import termios

        with contextlib.suppress(OSError, termios.error):
            termios.tcsetattr(self._fd_in, termios.TCSANOW, self._saved)
