"""What an import file must be: exactly what a tui-chat export could have written.

The whole file is checked before anything is written, and each problem is one sentence
(`UsageError`) naming the file and where the problem is. The rules:

- **Standard JSON** (RFC 8259) in UTF-8: no NaN or Infinity, no key twice in one object (JSON
  parsers disagree on which one wins), no lone surrogate escape such as "\\ud800" (no UTF-8
  text can hold one), no nesting deeper than Python's parser can follow (an export is six
  levels deep; a hostile file used to end in a RecursionError).
- **Exact types**: strings where an export writes strings, true/false for flags, integers
  for token counts, finite numbers for timings, ISO 8601 timestamps with an offset, roles and
  statuses from their lists (`ExportText`, `ExportTimestamp`, … below). Unknown keys are
  ignored, so a later version that only adds keys stays importable.
- **Ids are opaque tokens** (`ID_PATTERN`): 1 to 64 ASCII letters, digits, '-' or '_',
  starting with a letter or a digit. `models.new_id` writes 32 hex digits; the rule also takes
  what an earlier tui-chat could hold (short test ids, UUIDs with hyphens), and refuses path
  separators, dots, spaces, control characters, the empty string and very long ids, since ids
  become file names and command-line arguments.
- **Each id once**: a conversation id, or a message id, appearing twice in one file.
- **A tree** (format version 2): each message's `parent_id` is null or a message earlier in the
  same conversation (so parents come first and there is no cycle); `active_child_id` is null
  or one of the message's children, `active_root_id` null or one of the conversation's roots
  (null where there are some: the newest is chosen, as for a key left out).
- **Attachments within attaching's limits** (format version 2): what `attachments` lets a
  user attach, an import takes, no more: a text at most MAX_TEXT_BYTES, an image at most
  MAX_IMAGE_BYTES and of the type its bytes say, a message's files at most MAX_MESSAGE_BYTES
  together; and each declares its true size and type (`attachment_problem`). Token estimates
  are not trusted: they are counted again.

Conflicts with the store are not problems of the file: `Store.import_conversation` keeps a
message whose id another conversation already uses under a new id, and the summary says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Strict, ValidationError

from tui_chat.core.attachments import (
    MAX_IMAGE_BYTES,
    MAX_MESSAGE_BYTES,
    MAX_TEXT_BYTES,
    image_mime,
    size_text,
)
from tui_chat.core.errors import UsageError
from tui_chat.core.validation import first_problem

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
ID_RULE = "1 to 64 ASCII letters, digits, '-' or '_', starting with a letter or a digit"
_SURROGATE_ESCAPE = re.compile(r"\\(?:\\|(u[dD][89abAB][0-9a-fA-F]{2})"  # a high one,
                               r"(\\u[dD][c-fC-F][0-9a-fA-F]{2})?"  # maybe its low one,
                               r"|(u[dD][c-fC-F][0-9a-fA-F]{2}))")  # or a low one alone
_ANY_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
FROM_AN_EXPORT = "give a file written by tui-chat export --format json"


class _NotStandard(ValueError):
    """A JSON text that Python's parser reads but the standard does not allow."""


# -- reading the JSON ---------------------------------------------------------------------

def load_json(text: str, source: str) -> Any:
    """The JSON value of `text`, read as the standard defines it; UsageError otherwise."""
    try:
        value = json.loads(text, object_pairs_hook=_object_without_duplicates,
                           parse_constant=_no_constant)
    except _NotStandard as problem:
        raise UsageError(f"{source} is not standard JSON ({problem}); {FROM_AN_EXPORT}.") from None
    except RecursionError:
        raise UsageError(f"{source} is nested too deeply to be a tui-chat export; "
                         f"{FROM_AN_EXPORT}.") from None
    except ValueError as error:
        raise UsageError(f"{source} is not valid JSON ({error}); {FROM_AN_EXPORT}.") from None
    line = _lone_surrogate_line(text)
    if line is not None:
        raise UsageError(f"{source} has a lone surrogate escape (such as \\ud800) on line "
                         f"{line}, which is not text; {FROM_AN_EXPORT}.")
    return value


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _NotStandard(f"the key {ascii(key)[:60]} appears twice in one object")
            seen.add(key)
    return value


def _no_constant(name: str) -> Any:
    raise _NotStandard(f"{name} is not a JSON number")


def _lone_surrogate_line(text: str) -> int | None:
    """The line of the first lone surrogate escape, or None. A valid UTF-8 file holds no
    surrogates itself; only an escape can make one (a high one followed by a low one is a
    pair, one character). Escaped backslashes are skipped whole, so `\\\\ud800` is text."""
    if _ANY_SURROGATE_ESCAPE.search(text) is None:
        return None
    for match in _SURROGATE_ESCAPE.finditer(text):
        high, low, lone_low = match.groups()
        if lone_low is not None or (high is not None and low is None):
            return text.count("\n", 0, match.start()) + 1
    return None


# -- field types ----------------------------------------------------------------------------

def _token(value: str) -> str:
    if ID_PATTERN.fullmatch(value) is None:
        raise ValueError(f"not an id tui-chat writes ({ID_RULE})")
    return value


def _timestamp(value: object) -> datetime:
    if not isinstance(value, str):
        raise ValueError("a timestamp must be an ISO 8601 string")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("not an ISO 8601 timestamp") from None
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("a timestamp needs its UTC offset (such as +00:00 or Z)")
    return moment


ExportText = Annotated[str, Strict()]
ExportId = Annotated[str, Strict(), AfterValidator(_token)]
ExportTimestamp = Annotated[datetime, BeforeValidator(_timestamp)]
ExportFlag = Annotated[bool, Strict()]
ExportCount = Annotated[int, Strict()]
ExportSeconds = Annotated[float, Strict()]  # NaN and Infinity never get past load_json


# -- whole-file checks ----------------------------------------------------------------------

def problem_sentence(error: ValidationError, source: str) -> UsageError:
    """The first problem pydantic found, as one sentence."""
    where, message = first_problem(error)
    return UsageError(f"{source} has a problem at '{where}': {message}; nothing was imported.")


def check_unique(ids: Iterable[tuple[str, str]], what: str, source: str) -> None:
    """Each id once: `ids` are (id, where it is) pairs; UsageError on the first repeat."""
    first_seen: dict[str, str] = {}
    for item_id, where in ids:
        if item_id in first_seen:
            raise UsageError(f"{source} holds the {what} id {item_id} twice (at "
                             f"'{first_seen[item_id]}' and '{where}'); nothing was imported.")
        first_seen[item_id] = where


def check_tree(active_root: str | None, links: list[tuple[str, str | None, str | None]],
               where: str, source: str) -> None:
    """The tree of one conversation: `links` are (id, parent_id, active_child_id) in file
    order; UsageError naming the first message that breaks a rule."""
    seen: set[str] = set()
    children: dict[str | None, set[str]] = {}
    for index, (message_id, parent, _active) in enumerate(links):
        if parent is not None and parent not in seen:
            raise UsageError(f"{source} has a problem at '{where}.messages.{index}.parent_id': "
                             f"{parent} is not a message before it in this conversation; "
                             "nothing was imported.")
        seen.add(message_id)
        children.setdefault(parent, set()).add(message_id)
    for index, (message_id, _parent, active) in enumerate(links):
        below = children.get(message_id, set())
        if active is not None and active not in below:
            wanted = "null: it has no children" if not below else "the id of one of its children"
            raise UsageError(f"{source} has a problem at '{where}.messages.{index}."
                             f"active_child_id': it must be {wanted}; nothing was imported.")
    roots = children.get(None, set())
    if active_root is not None and active_root not in roots:
        wanted = "null: it has no messages" if not roots else "the id of one of its roots"
        raise UsageError(f"{source} has a problem at '{where}.active_root_id': it must be "
                         f"{wanted}; nothing was imported.")


# -- attachments --------------------------------------------------------------------------

_BOM = len("\ufeff".encode())  # a text file's BOM counts in its size, not in its text


def attachment_problem(kind: str, mime: str, size: int, text: str | None,
                       data: bytes | None) -> str | None:
    """Why an imported attachment (its declared kind, type and size; its text, or an image's
    decoded bytes) is not one a user could have attached, or None."""
    if kind == "text":
        real = len((text or "").encode("utf-8", "surrogatepass"))
        if real > MAX_TEXT_BYTES:
            return (f"a text attachment of {size_text(real)} is larger than the "
                    f"{size_text(MAX_TEXT_BYTES)} attaching allows")
        if mime != "text/plain":
            return f'a text attachment\'s "mime" is "text/plain", not "{mime[:40]}"'
        if size not in (real, real + _BOM):
            return f'the attachment says it is {size} bytes ("size") but holds {real}'
        return None
    raw = data or b""
    found = image_mime(raw)
    if len(raw) > MAX_IMAGE_BYTES:
        return (f"an image attachment of {size_text(len(raw))} is larger than the "
                f"{size_text(MAX_IMAGE_BYTES)} attaching allows")
    if found is None:
        return 'an image attachment\'s "data" must be a PNG, JPEG, WebP or GIF image'
    if mime != found:
        return f'the image says it is "{mime[:40]}" ("mime") but its bytes are {found}'
    if size != len(raw):
        return f'the attachment says it is {size} bytes ("size") but holds {len(raw)}'
    return None


def attachments_problem(sizes: Iterable[int]) -> str | None:
    """Why a message's attachments together are more than one message may carry, or None."""
    total = sum(sizes)
    if total > MAX_MESSAGE_BYTES:
        return (f"the message's attachments come to {size_text(total)}, more than the "
                f"{size_text(MAX_MESSAGE_BYTES)} one message may carry")
    return None
