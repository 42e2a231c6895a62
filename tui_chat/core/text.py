"""Make untrusted text (model output, provider errors, imported files) safe for a terminal;
and gather streamed text cheaply."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TextIO

# C0 controls except TAB and LF, DEL, C1 controls, and the bidi overrides/isolates that can make
# text read differently from what it is ("Trojan Source"). ZWJ/ZWNJ stay: emoji sequences and
# Indic scripts need them.
_UNSAFE = [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F, *range(0x80, 0xA0),
           *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_TABLE = dict.fromkeys(_UNSAFE)
_TO_CHANGE = re.compile("[\r" + "".join(re.escape(chr(code)) for code in _UNSAFE) + "]")
_CR_LF = re.compile(r"\r\n?")
_SURROGATE = re.compile("[\ud800-\udfff]")


def sanitize(text: str) -> str:
    """Drop control characters that a terminal would act on; CR and CRLF become LF."""
    if _TO_CHANGE.search(text) is None:  # nearly every text (a search is 6x a translate's speed)
        return text
    if "\r" in text:
        text = _CR_LF.sub("\n", text)
    return text.translate(_TABLE)


def without_lone_surrogates(text: str) -> str:
    """Each lone surrogate (from a JSON escape such as "\\ud800", or from bytes that were not
    UTF-8 in a command-line argument) as U+FFFD: UTF-8, and so the store, cannot hold one."""
    return _SURROGATE.sub("\ufffd", text)


def one_line(text: str, limit: int = 80) -> str:
    """Collapse whitespace into a single trimmed line of at most `limit` characters."""
    line = " ".join(sanitize(text).split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def cleaner_for(stream: TextIO) -> Callable[[str], str]:
    """`sanitize` for a terminal; text unchanged for a pipe or file, so scripts get exactly
    what the model wrote."""
    return sanitize if stream.isatty() else _unchanged


def _unchanged(text: str) -> str:
    return text


class GrowingText:
    """Text that grows by appends (a streamed reply), joined only when read: `+=` on a long
    text would copy all of it on every token."""

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: list[str] = []

    def append(self, text: str) -> None:
        self._parts.append(text)

    def __bool__(self) -> bool:
        """Whether anything was appended."""
        return bool(self._parts)

    @property
    def text(self) -> str:
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""
