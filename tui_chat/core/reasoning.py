"""Split inline reasoning (`<think>…</think>`, `<thinking>…</thinking>`) from answer text.

Reasoning models put their thinking at the start of the content; tags may be split across
chunks, so text that could still become a tag is held back until it is decided.
"""

from __future__ import annotations

from enum import Enum

_OPEN_TO_CLOSE = {"<think>": "</think>", "<thinking>": "</thinking>"}


class _State(Enum):
    START = 0
    REASONING = 1
    AFTER_REASONING = 2
    CONTENT = 3


class ReasoningSplitter:
    """feed(text) -> (reasoning, content) pieces, in order; flush() at the end of the stream."""

    def __init__(self) -> None:
        self._state = _State.START
        self.passthrough = False
        """True once everything from here on is answer text (checked once per token)."""
        self._held = ""
        self._close = ""

    def feed(self, text: str) -> list[tuple[bool, str]]:
        """Returns (is_reasoning, text) pairs with non-empty text."""
        if self._state is _State.CONTENT:
            return [(False, text)] if text else []
        self._held += text
        out: list[tuple[bool, str]] = []
        while True:
            before = self._state
            self._step(out)
            if self._state is before or not self._held:
                break
        return [(kind, piece) for kind, piece in out if piece]

    def flush(self) -> list[tuple[bool, str]]:
        held, self._held = self._held, ""
        if not held:
            return []
        return [(self._state is _State.REASONING, held)]

    def _step(self, out: list[tuple[bool, str]]) -> None:
        if self._state is _State.START:
            stripped = self._held.lstrip()
            for open_tag, close_tag in _OPEN_TO_CLOSE.items():
                if stripped.startswith(open_tag):
                    self._held = stripped[len(open_tag):]
                    self._close = close_tag
                    self._state = _State.REASONING
                    return
            if not stripped or any(tag.startswith(stripped) for tag in _OPEN_TO_CLOSE):
                return  # still undecided
            self._state = _State.CONTENT
            self.passthrough = True
            out.append((False, self._held))
            self._held = ""
        elif self._state is _State.REASONING:
            index = self._held.find(self._close)
            if index >= 0:
                out.append((True, self._held[:index]))
                self._held = self._held[index + len(self._close):]
                self._state = _State.AFTER_REASONING
                return
            keep = _partial_suffix(self._held, self._close)
            out.append((True, self._held[: len(self._held) - keep]))
            self._held = self._held[len(self._held) - keep:]
        elif self._state is _State.AFTER_REASONING:
            # The blank lines models put between "</think>" and the answer are not the answer.
            stripped = self._held.lstrip()
            if stripped:
                self._state = _State.CONTENT
                self.passthrough = True
                out.append((False, stripped))
            self._held = ""


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of `tag`."""
    for length in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:length]):
            return length
    return 0
