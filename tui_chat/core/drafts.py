"""Unsent prompts, one per conversation, kept across conversation switches and quits.

Not part of the store (a draft is not a message, and the schema stays as it is): a small JSON
object `{conversation id: text}` in `drafts.json` beside the store file, written atomically
with mode 0600 (`files.write_private_file`). The conversation not saved yet (nothing sent in
it) keeps its draft under `NEW`. A file that cannot be read is moved aside, never deleted,
and the app goes on with no drafts; one that cannot be written costs the drafts, not the
conversation (the caller gets the sentence).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from tui_chat.core.files import (
    move_aside,
    os_error_reason,
    read_bounded,
    write_private_file,
)

NEW = ""
"""The key of the conversation not saved yet."""
FILE_NAME = "drafts.json"
MAX_BYTES = 8 * 1024 * 1024
"""A drafts file larger than this is not read (it is moved aside)."""
MAX_DRAFTS = 200
"""The most drafts kept: past it, the oldest written go first."""


class Drafts:
    """The drafts of one store (`path`: the file; None keeps them in memory only, as for a
    temporary store)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.notice: str | None = None
        """One sentence when the file could not be read or written, else None."""
        self._texts: dict[str, str] = {}
        self._written: dict[str, str] = {}
        if path is not None:
            self._texts = self._read(path)
            self._written = dict(self._texts)

    @classmethod
    def beside(cls, store_path: Path) -> Drafts:
        """The drafts of the store at `store_path` (a temporary store's go with it)."""
        return cls(store_path.parent / FILE_NAME)

    def _read(self, path: Path) -> dict[str, str]:
        try:
            raw = read_bounded(path, MAX_BYTES)
        except FileNotFoundError:
            return {}
        except OSError as error:
            self.notice = f"The drafts in {path} could not be read ({os_error_reason(error)})."
            return {}
        try:
            data = json.loads(raw)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            return {str(k): v for k, v in data.items() if isinstance(v, str) and v}
        except ValueError:
            with_aside = ""
            with contextlib.suppress(OSError):
                with_aside = f": it was moved to {move_aside(path)}"
            self.notice = f"The drafts file {path} could not be read{with_aside}."
            return {}

    def get(self, key: str) -> str:
        return self._texts.get(key, "")

    def put(self, key: str, text: str) -> None:
        """Keep `text` as the draft of `key` (blank: forget it)."""
        self._texts.pop(key, None)
        if text.strip():
            self._texts[key] = text  # the newest last: the oldest go first past MAX_DRAFTS
            while len(self._texts) > MAX_DRAFTS:
                del self._texts[next(iter(self._texts))]

    def save(self) -> str | None:
        """Write the drafts when they changed; the sentence saying why they could not be
        (they stay in memory), else None."""
        if self.path is None or self._texts == self._written:
            return None
        try:
            write_private_file(self.path, json.dumps(self._texts, ensure_ascii=False))
        except OSError as error:
            return (f"Your unsent prompts could not be saved to {self.path} "
                    f"({os_error_reason(error)}).")
        self._written = dict(self._texts)
        return None
