"""Issue 6: the disk fills up, or the data folder turns read-only, while a reply is being saved.
The user is told in one sentence, the reply stays on screen, what was saved before is intact,
and once there is room again the app carries on."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.faults.pilot import wait_idle
from tests.ui.conftest import (
    AppFactory,
    FixedClock,
    conversation,
    record_notifications,
    rendered_text,
    wait_until,
)
from tui_chat.commands.app import build_services
from tui_chat.core.config import Settings
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.ui.app import TuiChatApp
from tui_chat.ui.services import AppServices
from tui_chat.ui.widgets.message_view import MessageView
from tui_chat.ui.widgets.reply_view import ReplyView

PIECES = [f"{i:03d} " + "lorem ipsum " * 333 + "\n\n" for i in range(60)]  # ~240 kB


class Disk:
    """How a test breaks the disk under the store, and repairs it."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def fill(self) -> None:
        raise NotImplementedError

    def repair(self) -> None:
        raise NotImplementedError


class PageLimit(Disk):
    """SQLite's own limit: a real SQLITE_FULL from the store's connection, no privileges."""

    def fill(self) -> None:
        conn = self.store._conn
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")

    def repair(self) -> None:
        self.store._conn.execute("PRAGMA max_page_count = 1073741823")


class FullTmpfs(Disk):
    """A small tmpfs filled to the last byte by another file: ENOSPC for real."""

    def __init__(self, store: Store, mount: Path) -> None:
        super().__init__(store)
        self.filler = mount / "filler"

    def fill(self) -> None:
        # Unbuffered: a buffered file that met ENOSPC keeps its bytes and raises again when
        # closed, outside any suppress. Smaller writes once a large one fails, to the last byte.
        with self.filler.open("wb", buffering=0) as handle:
            for size in (65536, 4096, 512, 1):
                with contextlib.suppress(OSError):
                    while handle.write(b"\0" * size):
                        pass

    def repair(self) -> None:
        self.filler.unlink()


class ReadOnly(Disk):
    """The store turns read-only under the running app: SQLite's SQLITE_READONLY for real.
    (A file system cannot be remounted read-only while the store has files open for writing:
    Linux refuses with EBUSY; the read-only folder at start is tested below.)"""

    def fill(self) -> None:
        self.store._conn.execute("PRAGMA query_only = ON")

    def repair(self) -> None:
        self.store._conn.execute("PRAGMA query_only = OFF")


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}); needs root or "
                    "CAP_SYS_ADMIN. The unprivileged SQLITE_FULL case still runs.")
    try:
        yield mount
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(mount)], check=False)
        subprocess.run(["umount", "-l", str(mount)], check=False)


async def break_disk_mid_reply(store_path: Path, server: FakeProvider, monkeypatch: Any,
                               make_disk: Callable[[Store], Disk]) -> None:
    monkeypatch.setenv("CHUTES_BASE_URL", server.url)
    monkeypatch.setenv("CHUTES_API_KEY", "test-key-disk-0000")
    store = Store.open(store_path)
    disk = make_disk(store)
    app = TuiChatApp(AppServices.create(Settings(max_retries=0), store,
                                        config_path=store_path.parent / "config.toml",
                                        clock=FixedClock()))
    try:
        async with app.run_test(size=(100, 30), notifications=True) as pilot:
            await exercise(pilot, app, store, disk, server)
            await pilot.press("ctrl+q")
        assert app.return_code == 0 and app._exception is None
    finally:
        store.close()
    with sqlite3.connect(store_path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        rows = raw.execute("SELECT role, content, status FROM messages ORDER BY seq").fetchall()
    raw.close()
    assert rows[:2] == [("user", "first", "complete"), ("assistant", "saved before", "complete")]
    assert rows[-1] == ("assistant", "after repair", "complete")


async def send(pilot: Pilot[Any], text: str) -> None:
    screen = conversation(pilot.app)
    screen.prompt.insert(text)
    await pilot.press("enter")


async def exercise(pilot: Pilot[Any], app: TuiChatApp, store: Store, disk: Disk,
                   server: FakeProvider) -> None:
    screen = conversation(app)
    server.script(Reply(stream_of(["saved before"])))
    await send(pilot, "first")
    await wait_idle(pilot)
    notes = record_notifications(app)
    # Half the reply, then held until the disk is full: the rest arrives on a full disk
    # however fast or slow the machine (it could end, and be saved, before the fill).
    held = threading.Event()
    server.script(Reply(stream_of(PIECES), delay=0.05, gate=held, gate_after=31))
    await send(pilot, "a long one")
    await wait_until(pilot, lambda: bool(screen.query(ReplyView))
                     and len(screen.query_one(ReplyView).content) > 20_000)
    disk.fill()
    arrived = len(screen.query_one(ReplyView).content)
    held.set()
    await wait_idle(pilot)
    assert [text for severity, text in notes if severity == "error"] == []  # inline only
    reply = screen.query(MessageView)[-1].message
    assert "conversation store" in (reply.error or "") and "not saved" in (reply.error or "")
    assert reply.role is Role.ASSISTANT and len(reply.content) >= arrived
    assert reply.content == "".join(PIECES)[:len(reply.content)]
    assert reply.status in (MessageStatus.INTERRUPTED, MessageStatus.COMPLETE)
    assert "not saved" in shown_text(screen.query(MessageView)[-1])
    assert app.is_running
    # Room again: the next exchange is saved.
    disk.repair()
    server.script(Reply(stream_of(["after repair"])))
    screen.prompt.clear()
    await send(pilot, "again")
    await wait_idle(pilot)
    last = screen.query(MessageView)[-1].message
    assert (last.content, last.status) == ("after repair", MessageStatus.COMPLETE)
    assert store.get_message(last.id).content == "after repair"


async def test_sqlite_full_while_saving_a_reply(tmp_path: Path, chutes_server: FakeProvider,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    await break_disk_mid_reply(tmp_path / "store.sqlite3", chutes_server, monkeypatch,
                               PageLimit)


async def test_a_full_file_system_while_saving_a_reply(
        tmpfs: Path, chutes_server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    await break_disk_mid_reply(tmpfs / "store.sqlite3", chutes_server, monkeypatch,
                               lambda store: FullTmpfs(store, tmpfs))


async def test_a_store_that_turns_read_only_while_saving_a_reply(
        tmp_path: Path, chutes_server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    await break_disk_mid_reply(tmp_path / "store.sqlite3", chutes_server, monkeypatch, ReadOnly)


async def test_a_read_only_data_folder_at_start(
        tmpfs: Path, chutes_server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app says so once, runs on a temporary store, and leaves the folder as it was."""
    db = tmpfs / "store.sqlite3"
    with Store.open(db) as store:
        chat = store.create_conversation(Conversation(title="kept"))
        store.add_message(Message(conversation_id=chat.id, role=Role.USER, content="old",
                                  status=MessageStatus.COMPLETE))
    before = contents(tmpfs)
    remount(tmpfs, "ro")
    monkeypatch.setenv("TUI_CHAT_DB", str(db))
    monkeypatch.setenv("TUI_CHAT_CONFIG", str(tmp_path_config(tmpfs)))
    monkeypatch.setenv("CHUTES_BASE_URL", chutes_server.url)
    monkeypatch.setenv("CHUTES_API_KEY", "test-key-disk-0000")
    services = build_services()
    app = TuiChatApp(services)
    notes = record_notifications(app)
    try:
        async with app.run_test(size=(100, 30), notifications=True) as pilot:
            await pilot.pause()
            shown = [text for severity, text in notes if severity in ("warning", "error")]
            assert len(shown) == 1 and str(db) in shown[0] and "not be saved" in shown[0]
            chutes_server.script(Reply(stream_of(["still ", "works"])))
            await send(pilot, "hello")
            await wait_idle(pilot)
            reply = conversation(app).query(MessageView)[-1].message
            assert (reply.content, reply.status) == ("still works", MessageStatus.COMPLETE)
            await pilot.press("ctrl+q")
    finally:
        services.store.close()
    assert app.return_code == 0
    assert contents(tmpfs) == before
    assert services.store.path.parent != tmpfs and not services.store.path.exists()


def shown_text(view: MessageView) -> str:
    """The message's words as one line: wrapped lines joined, the border glyph left out."""
    return " ".join(rendered_text(view).replace("█", " ").split())


def tmp_path_config(mount: Path) -> Path:
    return mount.parent / "config.toml"


def contents(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir()}


def remount(mount: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(mount)], check=True)


async def test_stopping_a_reply_while_the_disk_is_full_keeps_it_on_screen(
        make_app: AppFactory, store: Store, chutes_server: FakeProvider) -> None:
    """Esc, then the store cannot save the partial reply: it stays on screen, the user is told
    it was not saved, and the stop still stops."""
    chutes_server.script(Reply(stream_of(PIECES), stall_after=4, stall_seconds=600))
    app = make_app()
    disk = PageLimit(store)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        notes = record_notifications(app)
        screen = conversation(app)
        await send(pilot, "stop me")
        await wait_until(pilot, lambda: bool(screen.query(ReplyView))
                         and screen.query_one(ReplyView).content.count("lorem") >= 999)
        disk.fill()
        await pilot.press("escape")
        await wait_idle(pilot)
        assert chutes_server.wait_for_idle()
        reply = screen.query(MessageView)[-1].message
        assert reply.role is Role.ASSISTANT and reply.content == "".join(PIECES[:3])
        assert reply.status is MessageStatus.INTERRUPTED
        assert [text for severity, text in notes if severity == "error"] == []  # inline only
        assert "not saved" in shown_text(screen.query(MessageView)[-1])
        disk.repair()
        chutes_server.script(Reply(stream_of(["fine"])))
        screen.prompt.clear()
        await send(pilot, "next")
        await wait_idle(pilot)
        assert screen.query(MessageView)[-1].message.content == "fine"
        await pilot.press("ctrl+q")
    assert app.return_code == 0 and app._exception is None
