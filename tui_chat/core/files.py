"""Private files: what tui-chat writes that may hold conversations or keys.

- Files are mode 0600 and the folders tui-chat creates (every missing one, not only the last)
  0700, whatever the umask: the mode is set explicitly, never left to the umask.
- A file is written atomically: a temporary file in the same folder, flushed to disk, then
  renamed over the old one, so a crash leaves the old file or the new one, never half of one.
- A path that is a symbolic link (a dotfiles manager's config.toml) is written through to its
  target, in the target's folder, so the link stays a link.
- A file tui-chat cannot use is moved aside (NAME.broken-TIMESTAMP), never deleted, and is
  itself made private.
- `os_error_reason` turns an OSError into the words that name its real cause (a full disk is
  a full disk, not a permissions problem).
- Every file tui-chat reads is read by `read_bounded`: only a regular file, and never more
  than the reader's limit. A named pipe, a device (/dev/zero), a socket, or a link to one is
  refused before a byte is read: opened without blocking, then checked on the descriptor
  (no race with a rename), so nothing waits for a writer that never comes and nothing reads
  an endless device until memory runs out.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from datetime import datetime
from pathlib import Path

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def make_private_dir(folder: Path) -> None:
    """Create `folder` and any missing parents, each mode 0700; existing folders are left as
    they are (they are the user's)."""
    missing: list[Path] = []
    current = folder
    while not current.is_dir():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=FOLDER_MODE)
        except FileExistsError:
            if not path.is_dir():
                raise
            continue  # another process created it first: it is theirs to set
        # mkdir's mode is masked by the umask (0o077 would still be fine, 0o277 would leave
        # a folder we cannot write into): set it exactly.
        path.chmod(FOLDER_MODE)


def real_path(path: Path) -> Path:
    """Where writing to `path` really lands: the final target of a symbolic link (or chain
    of links, dangling or not), else `path` itself."""
    if not path.is_symlink():
        return path
    return Path(os.path.realpath(path))


def write_private_file(path: Path, text: str) -> None:
    """Write `text` to `path` atomically with mode 0600, creating missing folders 0700; a
    symbolic link is written through to its target. Raises OSError."""
    target = real_path(path)
    make_private_dir(target.parent)
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                     dir=target.parent)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, target)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def move_aside(path: Path) -> Path:
    """Rename a file we cannot use to NAME.broken-TIMESTAMP beside it; never delete it. The
    moved file is made private (0600): it may hold keys or conversations."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.broken-{stamp}")
    counter = 1
    while target.exists() or target.is_symlink():
        target = path.with_name(f"{path.name}.broken-{stamp}-{counter}")
        counter += 1
    path.rename(target)
    make_private(target)
    return target


def make_private(path: Path) -> None:
    """Mode 0600 for a regular file (a link or a folder is left alone); best effort."""
    try:
        if stat.S_ISREG(path.lstat().st_mode):
            path.chmod(FILE_MODE)
    except OSError:
        pass  # the file is kept either way; its mode is not worth failing over


_REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOENT: "a folder on the way does not exist",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "it is a folder",
    errno.EIO: "the disk reported an input/output error",
}

_ADVICE = {
    errno.ENOSPC: "free some space and try again",
    errno.EDQUOT: "free some space and try again",
    errno.EROFS: "make it writable or choose another place",
    errno.EACCES: "check the folder's permissions",
    errno.EPERM: "check the folder's permissions",
}


def os_error_reason(error: OSError) -> str:
    """The cause in a few words ("the disk is full"), for a sentence that names it."""
    if error.errno in _REASONS:
        return _REASONS[error.errno]
    return (error.strerror or type(error).__name__).lower()


def os_error_advice(error: OSError) -> str:
    """What to do about it, in a few words ("free some space and try again")."""
    return _ADVICE.get(error.errno or 0, "check the disk and the path")


class NotAFileError(OSError):
    """A path that is something other than a regular file (a named pipe, a device...);
    `strerror` says what it is, in words for a sentence."""


class FileTooLargeError(OSError):
    """A regular file larger than its reader's limit; `size` is its size in bytes, or at
    least limit + 1 when it grew while being read."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(errno.EFBIG, f"it is larger than the {limit} bytes it may be")
        self.size, self.limit = size, limit


_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a folder"))


def special_kind(mode: int) -> str | None:
    """What a file of this mode is, in words, when it is not a regular file; else None."""
    if stat.S_ISREG(mode):
        return None
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return "not a regular file"


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at `path` (links followed), at most `limit` of them.
    Raises NotAFileError for anything else (before reading a byte, and without blocking: the
    file is opened with O_NONBLOCK, then checked with fstat), FileTooLargeError past `limit`
    (also when the file grows while read), and OSError as opening or reading raise it."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise NotAFileError(errno.EISDIR, "it is a folder, not a file", str(path)) from None
    try:
        status = os.fstat(fd)
        kind = special_kind(status.st_mode)
        if kind is not None:
            raise NotAFileError(errno.EINVAL, f"it is {kind}, not a regular file", str(path))
        if status.st_size > limit:
            raise FileTooLargeError(status.st_size, limit)
        chunks: list[bytes] = []
        left = limit + 1  # one byte more: a file that grew past the limit is caught
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise FileTooLargeError(limit + 1, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)
