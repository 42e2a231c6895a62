"""An incremental Server-Sent Events parser that follows the WHATWG rules exactly.

Written here rather than taken from httpx-sse because a provider's failure can arrive as a bare
JSON line with no `data:` prefix (Chutes does this mid-stream), which a conforming parser drops
silently; this one reports such lines as `StrayLine` so the client can surface the error. It also
strips the leading BOM, which httpx-sse 0.4 does not.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass


@dataclass(slots=True)
class SSEEvent:
    data: str
    event: str = "message"
    id: str = ""


@dataclass(slots=True)
class StrayLine:
    """A line that is not an SSE field we know: kept because it may be a bare JSON error."""

    text: str


class SSEParser:
    """Feed bytes as they arrive; get back complete events (and stray lines) in order."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._decoder_holds_bytes = False
        self._tail = ""  # text after the last line terminator
        self._skip_lf = False  # the last text ended in CR: a following LF belongs to it
        self._started = False  # a leading BOM is dropped once, at the very start
        self._data: list[str] = []
        self._event_type = ""
        self.last_event_id = ""
        self.retry_ms: int | None = None
        self._between_events = False
        """Past the start, nothing held over from earlier reads (no partial line or event,
        no split character, no CR awaiting its LF): the fast path's precondition."""

    def feed(self, chunk: bytes) -> list[SSEEvent | StrayLine]:
        # Fast path: a read that is exactly one plain `data:` event, as providers send them
        # (it runs once per token: the checks are ordered cheapest first).
        if self._between_events:
            try:
                text = chunk.decode("utf-8")
            except UnicodeDecodeError:
                text = self._decode(chunk)
            else:
                if (text[-2:] == "\n\n" and text[:6] == "data: "
                        and text.find("\n") == len(text) - 2 and "\r" not in text):
                    return [SSEEvent(text[6:-2], "message", self.last_event_id)]
        else:
            text = self._decode(chunk)
        out = self._feed_text(text)
        self._between_events = (self._started and not self._decoder_holds_bytes
                                and not self._tail and not self._data and not self._skip_lf
                                and not self._event_type)
        return out

    def _decode(self, chunk: bytes) -> str:
        # bytes.decode is a C call; the incremental decoder's Python wrapper costs more a read.
        # It is needed only while a character is split between reads, or for invalid bytes.
        if not self._decoder_holds_bytes:
            try:
                return chunk.decode("utf-8")
            except UnicodeDecodeError:
                pass
        text = self._decoder.decode(chunk)
        self._decoder_holds_bytes = bool(self._decoder.getstate()[0])
        return text

    def close(self) -> list[SSEEvent | StrayLine]:
        """End of body: an unterminated last line is only reported if it is stray text.

        By the spec an event not followed by a blank line is discarded.
        """
        self._between_events = False
        out = self._feed_text(self._decoder.decode(b"", final=True))
        tail, self._tail = self._tail, ""
        if tail.strip() and not tail.startswith(":") and not tail.startswith(_FIELD_PREFIXES):
            out.append(StrayLine(tail))
        return out

    def _feed_text(self, text: str) -> list[SSEEvent | StrayLine]:
        if not text:
            return []
        if not self._started:
            self._started = True
            if text.startswith("\ufeff"):
                text = text[1:]
        if self._skip_lf:
            self._skip_lf = False
            if text.startswith("\n"):
                text = text[1:]
        text = self._tail + text
        if "\r" in text:
            self._skip_lf = text.endswith("\r")
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        self._tail = lines.pop()
        out: list[SSEEvent | StrayLine] = []
        for line in lines:
            item = self._line(line)
            if item is not None:
                out.append(item)
        return out

    def _line(self, line: str) -> SSEEvent | StrayLine | None:
        if not line:
            return self._dispatch()
        if line.startswith("data: "):  # the common case, first
            self._data.append(line[6:])
            return None
        if line[0] == ":":
            return None
        field, sep, value = line.partition(":")
        if sep and value[:1] == " ":
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event_type = value
        elif field == "id":
            if "\0" not in value:
                self.last_event_id = value
        elif field == "retry":
            if value.isascii() and value.isdigit():
                self.retry_ms = int(value)
        else:
            return StrayLine(line)
        return None

    def _dispatch(self) -> SSEEvent | None:
        if not self._data:
            self._event_type = ""
            return None
        event = SSEEvent(
            data="\n".join(self._data),
            event=self._event_type or "message",
            id=self.last_event_id,
        )
        self._data = []
        self._event_type = ""
        return event


_FIELD_PREFIXES = ("data", "event", "id", "retry")
