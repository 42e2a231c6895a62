"""Crash reports: an unexpected exception becomes one sentence for the user and a file for the
bug report, with every API key scrubbed and no local variables (they may hold keys)."""

from __future__ import annotations

import traceback
from datetime import datetime
from pathlib import Path

from tui_chat.core import paths
from tui_chat.core.secrets import scrub


def write_report(error: BaseException) -> Path | None:
    """Write the scrubbed traceback of `error` to a new file (mode 0600) in the state folder;
    its path, or None when it could not be written (a report must never raise)."""
    from tui_chat.core.config import write_private_file

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    path = paths.state_dir() / f"crash-{stamp}.log"
    text = scrub("".join(traceback.format_exception(error)))
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_private_file(path, text)
    except OSError:
        return None
    return path


def crash_sentence(error: BaseException, report: Path | None) -> str:
    where = (f"the details are in {report}" if report is not None
             else "the details could not be saved")
    return (f"An unexpected error ({type(error).__name__}) stopped tui-chat; {where}. "
            "This is a bug: please report it.")
