"""Opening the store file: connect, check, migrate; move an unusable file aside.

`connect` raises Unusable (with `.moved`, where the file now is) for a file that is not a
tui-chat store or is damaged, after renaming it and its -wal/-shm aside; StoreError for a store
of a newer schema (left untouched), a busy store, or one that cannot be opened at all.

A new store file is created mode 0600 before SQLite opens it (SQLite would create it 0644, or
0666 under umask 000, and gives its -wal and -shm files the mode of the main file). Errors name
their real cause: a full disk says the disk is full, a read-only file says so.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from tui_chat.core.errors import StoreError
from tui_chat.core.files import FILE_MODE, make_private, move_aside
from tui_chat.core.store_schema import OUR_TABLES, SCHEMA_VERSION, migrate
from tui_chat.core.text import one_line

BUSY_TIMEOUT_SECONDS = 10.0
# PRAGMA quick_check reads the whole file (about 1 ms per MB); bigger stores skip it at open
# and report damage when a damaged page is read.
QUICK_CHECK_MAX_BYTES = 100 * 1024 * 1024
_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_SQLITE_READONLY = 8
_SQLITE_FULL = 13


class Unusable(Exception):
    """The file is not a usable tui-chat store; it has been moved aside to `moved` (None when
    another process moved it first)."""

    moved: Path | None = None


def connect(path: Path) -> tuple[sqlite3.Connection, list[str]]:
    """Connect, check and migrate: the connection and what the migration has to say (see
    `store_schema.migrate`). Raises Unusable (move aside) or StoreError (leave it)."""
    _create_private(path)
    identity = _identity(path)
    try:
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None,
                               check_same_thread=False)
    except sqlite3.Error as error:
        raise StoreError(f"Cannot open the conversation store {path} ({error}); "
                         "check the file and its folder's permissions.") from None
    conn.row_factory = sqlite3.Row
    try:
        notices = _check_and_migrate(conn, path)
    except Unusable as problem:
        # Move the files before closing: SQLite deletes a -wal file when it closes. If the
        # path is another file by now, another tui-chat moved ours aside and started afresh.
        if _identity(path) == identity:
            problem.moved = _move_aside_with_sidecars(path)
        conn.close()
        raise
    except BaseException:
        conn.close()
        raise
    return conn, notices


def _create_private(path: Path) -> None:
    """An empty file (a valid empty database) with mode 0600, unless one is there already."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except OSError:
        return  # it exists (or cannot be created: sqlite3.connect then says why)
    os.fchmod(fd, FILE_MODE)  # the umask may have taken bits away; never added any
    os.close(fd)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_dev, status.st_ino


def _check_and_migrate(conn: sqlite3.Connection, path: Path) -> list[str]:
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
        # One read transaction for the version and the tables: read apart, another process
        # creating the store between the two reads made a fresh store look like another
        # program's database (version 0 with tables), and it was moved aside mid-use.
        conn.execute("BEGIN")
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            tables = {row[0] for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.execute("COMMIT")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"The conversation store {path} was written by a newer tui-chat (schema "
                f"version {version}; this one reads up to {SCHEMA_VERSION}); upgrade tui-chat. "
                "The file was not changed.")
        if version == 0 and tables:
            raise Unusable("it is an SQLite database of another program")
        if version > 0 and not tables >= OUR_TABLES:
            raise Unusable("its tables are missing")
        if path.stat().st_size <= QUICK_CHECK_MAX_BYTES:
            check = [row[0] for row in conn.execute("PRAGMA quick_check")]
            if check != ["ok"]:
                raise Unusable("it is damaged: " + one_line(str(check[0]), 80))
        _enable_wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        return migrate(conn, version)
    except sqlite3.Error as error:
        if getattr(error, "sqlite_errorcode", None) in _CORRUPT_CODES:
            raise Unusable(str(error)) from None
        raise _store_error(path, error) from None


def _enable_wal(conn: sqlite3.Connection) -> None:
    """Switch the file to WAL mode, waiting for other connections as the busy timeout would.

    Changing the journal mode needs the file to itself, and SQLite reports "database is
    locked" at once instead of calling the busy handler: two processes creating the store
    together failed this way (seen in the two-writer test under load).
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            mode = str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            if mode.lower() == "wal":
                return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) and "busy" not in str(error):
                raise
            if time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            raise sqlite3.OperationalError("database is locked")
        time.sleep(0.02)


def _store_error(path: Path, error: sqlite3.Error) -> StoreError:
    text = str(error)
    code = (getattr(error, "sqlite_errorcode", None) or 0) & 0xFF  # the primary result code
    if code == _SQLITE_FULL:
        return StoreError(f"The conversation store {path} could not be written: the disk is "
                          "full; free some space and try again.")
    if code == _SQLITE_READONLY:
        return StoreError(f"The conversation store {path} could not be written: it is "
                          "read-only (the file, its folder or the disk); check their "
                          "permissions.")
    if "locked" in text or "busy" in text:
        return StoreError(f"The conversation store {path} is busy in another process; "
                          "try again in a moment.")
    return StoreError(f"The conversation store {path} could not be used ({text}); "
                      "check the disk and the file's permissions.")


@contextlib.contextmanager
def translate_errors(path: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.IntegrityError as error:
        raise StoreError(f"That would duplicate or orphan a record ({error}).") from None
    except sqlite3.Error as error:
        raise _store_error(path, error) from None


def _move_aside_with_sidecars(path: Path) -> Path:
    moved = move_aside(path)
    for suffix in ("-wal", "-shm"):
        sidecar = path.with_name(path.name + suffix)
        if sidecar.exists():
            aside = moved.with_name(moved.name + suffix)
            sidecar.rename(aside)
            make_private(aside)
    return moved
