"""Export files: the one policy for writing them (`tui-chat export -o`, the sidebar's export)
and for the names the app suggests.

- An export holds conversations, so it is written with mode 0600 whatever the umask, through
  `config.write_private_file` (a temporary file, fsync, rename into place).
- An existing file is never replaced unless the caller forces it (`tui-chat export --force`).
  The app never forces: `write_new_export` takes the first free name beside the one asked for.
  Without force the check cannot race another writer: the finished file is hard-linked into
  place, which fails if the name was taken meanwhile (on a file system without hard links,
  the name is checked just before the rename).
- A suggested name is built from the title and the conversation id so that it stays inside
  the export folder whatever they hold (`/../../x`, NUL, markup): letters, marks and digits of
  any script are kept (a Hindi or Chinese title stays readable), every other run of
  characters becomes one '-', and the name is cut to fit every common file system.
"""

from __future__ import annotations

import errno
import itertools
import os
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from tui_chat.core.config import write_private_file

MAX_SLUG_CHARS = 60
MAX_SLUG_BYTES = 150  # names may be 255 bytes; room for the id, a counter and the suffix
FALLBACK_SLUG = "conversation"
_ID_PART = 8
_NOT_ID = re.compile(r"[^A-Za-z0-9]+")


def write_export(path: Path, text: str, *, force: bool = False) -> None:
    """Write `text` to `path` (mode 0600). Raises FileExistsError if `path` exists and `force`
    is false (nothing is written then), OSError if it cannot be written."""
    if force:
        write_private_file(path, text)
        return
    if os.path.lexists(path):
        raise _exists(path)
    staging = path.with_name(f".tui-chat-export-{os.urandom(6).hex()}.tmp")
    write_private_file(staging, text)
    try:
        try:
            os.link(staging, path)
        except FileExistsError:
            raise _exists(path) from None
        except OSError:  # no hard links here (FAT, some network file systems)
            if os.path.lexists(path):
                raise _exists(path) from None
            os.replace(staging, path)
    finally:
        staging.unlink(missing_ok=True)


def write_new_export(path: Path, text: str) -> Path:
    """Write `text` to `path`, or, when that name is taken, to the first free `STEM-N.SUFFIX`
    beside it. Returns the path written; never replaces a file."""
    for candidate in _candidates(path):
        try:
            write_export(candidate, text)
        except FileExistsError:
            continue
        return candidate
    raise AssertionError("unreachable: there is always another name")


def suggested_export_path(directory: Path, title: str, conversation_id: str,
                          suffix: str = ".md") -> Path:
    """A free path inside `directory` named after the conversation."""
    path = directory / export_file_name(title, conversation_id, suffix)
    return next(candidate for candidate in _candidates(path) if not os.path.lexists(candidate))


def export_file_name(title: str, conversation_id: str, suffix: str = ".md") -> str:
    """`SLUG-ID8.SUFFIX`: one safe file name (never a path) for any title and id."""
    id_part = _NOT_ID.sub("", conversation_id)[:_ID_PART]
    slug = slug_of(title)
    return f"{slug}-{id_part}{suffix}" if id_part else f"{slug}{suffix}"


def slug_of(title: str) -> str:
    """The title's letters, marks and digits (any script), casefolded, other runs as '-'."""
    text = unicodedata.normalize("NFC", title).casefold()
    kept = "".join(char if unicodedata.category(char)[0] in "LMN" else "-" for char in text)
    slug = re.sub("-{2,}", "-", kept).strip("-")
    return _cut(slug).rstrip("-") or FALLBACK_SLUG


def _cut(slug: str) -> str:
    slug = slug[:MAX_SLUG_CHARS]
    while len(slug.encode("utf-8")) > MAX_SLUG_BYTES:
        slug = slug[:-1]
    return slug


def _candidates(path: Path) -> Iterator[Path]:
    """`path`, then `STEM-2.SUFFIX`, `STEM-3.SUFFIX`, … without end."""
    yield path
    for counter in itertools.count(2):
        yield path.with_name(f"{path.stem}-{counter}{path.suffix}")


def _exists(path: Path) -> FileExistsError:
    return FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(path))
