"""Compose a prompt in the user's own editor: `$VISUAL`, else `$EDITOR`, else the first of
DEFAULT_EDITORS found on the PATH.

The text goes into a new temporary file (mode 0600, readable by its owner only, since a
prompt may hold anything), the editor runs on it in the foreground, and what it saved comes
back; the file is removed whatever happens. The front-end hands the terminal over first (the
app suspends itself; `tui-chat ask -e` already has it, though its output may go to a file or
a pipe: the editor then gets the terminal itself, see `run_in_foreground`). A missing editor,
one that cannot start or exits with a failure, or a file it left unreadable, is an
`EditorError`: one sentence, and nothing is taken from the editor.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from tui_chat.core.errors import TuiChatError
from tui_chat.core.files import read_bounded
from tui_chat.core.text import one_line

DEFAULT_EDITORS = ("editor", "nano", "vi")
MAX_DRAFT_BYTES = 16 * 1024 * 1024
"""The most a draft read back from the editor may be (a prompt, not a disk image)."""
"""Tried in this order when neither variable is set (`editor` is Debian's chosen one)."""

Runner = Callable[[Sequence[str]], int]
"""Runs a command in the foreground and returns its exit status."""


class EditorError(TuiChatError):
    """The editor could not be used; the sentence says why and what to do."""


def editor_command(env: Mapping[str, str]) -> tuple[list[str], str]:
    """The editor's command line (without the file) and where it came from ("$VISUAL",
    "$EDITOR" or "the default")."""
    path = env.get("PATH", os.defpath)
    for variable in ("VISUAL", "EDITOR"):
        value = env.get(variable, "").strip()
        if not value:
            continue
        try:
            argv = shlex.split(value)
        except ValueError as error:
            raise EditorError(f"${variable} ('{one_line(value, 60)}') is not a command line "
                              f"({str(error).lower()}): set it to your editor, for example "
                              "nano or 'code --wait'.") from None
        found = shutil.which(argv[0], path=path) if argv else None
        if found is None:
            wanted = one_line(argv[0] if argv else value, 60)
            raise EditorError(f"The editor '{wanted}' (from ${variable}) was not found: set "
                              f"${variable} to an editor you have.")
        return [found, *argv[1:]], f"${variable}"
    for name in DEFAULT_EDITORS:
        found = shutil.which(name, path=path)
        if found is not None:
            return [found], "the default"
    raise EditorError("No editor was found: set $VISUAL or $EDITOR to your editor "
                      "(for example nano or vim).")


TERMINAL = "/dev/tty"
"""The controlling terminal, for an editor whose caller's output goes elsewhere."""


KEYBOARD_SIGNALS = (signal.SIGINT, signal.SIGQUIT)


@contextlib.contextmanager
def keyboard_signals_to_the_editor() -> Iterator[None]:
    """While the editor runs, Ctrl+C and Ctrl+\\ are the editor's alone, as POSIX `system()`
    has it: the caller shares the terminal's process group, so the signals reach it too, and
    Python's default SIGINT (KeyboardInterrupt) killed the editor and quit the app with the
    draft in its prompt. The caller catches them with a handler that does nothing (not
    SIG_IGN, which the editor would inherit: a handler is reset to the default at exec)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {signum: signal.signal(signum, _ignore) for signum in KEYBOARD_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


def _ignore(_signum: int, _frame: object) -> None:
    """A keyboard signal meant for the editor."""


def run_in_foreground(argv: Sequence[str], *, terminal: str = TERMINAL) -> int:
    """The editor on this terminal (its keyboard signals its own, see
    `keyboard_signals_to_the_editor`). Standard input and output are inherited when both are
    a terminal; when either is not (`tui-chat ask -e > reply.md`, a pipe), the editor gets
    the controlling terminal for both instead, so that its screen reaches the user rather
    than the file. With no terminal at all it inherits what there is (a graphical editor
    needs none)."""
    with keyboard_signals_to_the_editor():
        if os.isatty(0) and os.isatty(1):
            return subprocess.run(list(argv), check=False).returncode
        try:
            tty = open(terminal, "r+b", buffering=0)  # noqa: SIM115 (closed below)
        except OSError:
            return subprocess.run(list(argv), check=False).returncode
        with tty:
            return subprocess.run(list(argv), stdin=tty, stdout=tty, check=False).returncode


def edit_text(text: str, env: Mapping[str, str], *, run: Runner = run_in_foreground) -> str:
    """`text` as the user left it in their editor. A trailing newline the editor added (most
    add one) is dropped, unless `text` had one. Raises EditorError."""
    argv, source = editor_command(env)
    name = one_line(Path(argv[0]).name, 40)
    descriptor, name_of_file = tempfile.mkstemp(prefix="tui-chat-prompt-", suffix=".md")
    path = Path(name_of_file)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        try:
            status = run([*argv, str(path)])
        except OSError as error:
            raise EditorError(f"The editor '{name}' (from {source}) could not be started "
                              f"({error.strerror or type(error).__name__}): set $VISUAL or "
                              "$EDITOR to an editor you have.") from None
        if status != 0:
            how = (f"was stopped by signal {-status}" if status < 0
                   else f"exited with status {status}")
            raise EditorError(f"The editor '{name}' {how}, so what it wrote was not used.")
        try:
            written = read_bounded(path, MAX_DRAFT_BYTES).decode("utf-8", "replace")
        except OSError as error:
            raise EditorError(f"What the editor '{name}' wrote could not be read back "
                              f"({error.strerror or type(error).__name__}); nothing was "
                              "taken from it.") from None
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
    if written.endswith("\n") and not text.endswith("\n"):
        written = written[:-2] if written.endswith("\r\n") else written[:-1]
    return written
