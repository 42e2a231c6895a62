"""The terminal driver: Textual's own (LinuxDriver), with output that survives the terminal
going away.

Textual writes to the terminal from a thread (`WriterThread`) fed by a queue of 30 writes. When
the terminal closes (its window, a killed tmux session), the next write fails with EIO and that
thread dies of it; the app's next 30 writes fill the queue and the 31st blocks the UI thread
forever, in a lock that no signal handled by the event loop can reach: the app hung with its
store open, and SIGTERM did nothing (issue 26). Here the file the thread writes to drops its
output once the terminal is gone, so the thread lives on, the queue drains, and the app quits
as it should (its SIGHUP path saves the reply). (Overrides Textual's private `_file`:
tests/faults/test_signals.py, which kills the terminal under the app, pins it.)
"""

from __future__ import annotations

from typing import IO, Any

from textual.drivers.linux_driver import LinuxDriver

from tui_chat.ui import textual_compat


class TerminalOutput:
    """A text file that stops writing, silently, at its first failure (the terminal gone)."""

    def __init__(self, file: IO[str]) -> None:
        self._file = file
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                self._file.write(text)
            except (OSError, ValueError):  # EIO, EPIPE; closed
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._file.flush()
            except (OSError, ValueError):
                self.gone = True

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return self._file.isatty()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


class TerminalDriver(LinuxDriver):
    """LinuxDriver whose output outlives the terminal (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        output = textual_compat.driver_output(self)
        if output is not None:
            textual_compat.set_driver_output(self, TerminalOutput(output))
