"""`tui-chat serve` stops promptly and leaves no app behind (issue 26): Ctrl+C (SIGINT) or
SIGTERM of the server tells each app to quit and waits for it (a bounded grace: the server is
gone within the bound below, where it once took about 22 s with a page open); a server killed
outright (SIGKILL) takes its apps with it, as Linux sends each app SIGTERM when its parent
dies. Either way the reply in progress on the page is saved, marked interrupted.

Real processes: the server, one app per websocket, the loopback fake provider holding a reply
mid-way; a websocket client that reads what the app draws, as a browser does."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from aiohttp import ClientSession

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.faults.test_signals import HELD, PIECES, RECEIVED, saved_reply
from tests.serve.conftest import Served
from tui_chat.commands.serve import cookie_name

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc; Linux only")
SERVER_BOUND = 20.0  # seconds: the server waits for its apps a bounded grace (serve.GRACE)
BOUND = 60.0  # seconds: a bound for a broken build, never a timing


@pytest.fixture
def held_reply(chutes_server: FakeProvider) -> Iterator[threading.Event]:
    gate = threading.Event()
    chutes_server.script(Reply(stream_of([*PIECES, *HELD]), gate=gate,
                               gate_after=len(PIECES) + 1))
    yield gate
    gate.set()


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_until_gone(pids: list[int], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            for pid in pids:
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"{what} still running")
        time.sleep(0.05)


@contextlib.asynccontextmanager
async def a_reply_on_a_page(served: Served) -> AsyncIterator[list[int]]:
    """A page (a websocket that keeps reading) whose app streams the held reply: the app's
    process id, once LASTBEFOREGATE is on its screen."""
    received = bytearray()
    ready = asyncio.Event()
    async with ClientSession(cookies={cookie_name(served.port): served.token}) as session:
        websocket = await session.ws_connect(served.origin + "/ws?width=100&height=30",
                                             origin=served.origin)

        async def read() -> None:
            async for message in websocket:
                if isinstance(message.data, bytes):
                    received.extend(message.data)
                    if b"Ctrl+J new line" in received:
                        drawn.set()
                    if b"LASTBEFOREGATE" in received:
                        ready.set()

        drawn = asyncio.Event()
        reader = asyncio.create_task(read())
        try:
            await asyncio.wait_for(drawn.wait(), timeout=BOUND)  # the app's prompt
            await websocket.send_json(["stdin", "tell me\r"])
            await asyncio.wait_for(ready.wait(), timeout=BOUND)
            apps = children(served.process.pid)
            assert apps, "no app process"
            yield apps
        finally:
            reader.cancel()
            await websocket.close()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
async def test_a_stopped_server_ends_its_apps_and_they_save_the_reply(
        signum: int, served: Served, chutes_server: FakeProvider,
        held_reply: threading.Event, tmp_path: Path) -> None:
    async with a_reply_on_a_page(served) as apps:
        served.process.send_signal(signum)
        await asyncio.to_thread(served.process.wait, SERVER_BOUND)
        await asyncio.to_thread(wait_until_gone, apps, BOUND, "an app")
    assert served.process.returncode == 0
    content, status, _ = saved_reply(tmp_path / "store.sqlite3")
    assert (content, status) == (RECEIVED, "interrupted")


async def test_a_killed_server_takes_its_apps_with_it(
        served: Served, chutes_server: FakeProvider, held_reply: threading.Event,
        tmp_path: Path) -> None:
    async with a_reply_on_a_page(served) as apps:
        served.process.kill()
        await asyncio.to_thread(served.process.wait, BOUND)
        await asyncio.to_thread(wait_until_gone, apps, BOUND, "an app of the killed server")
    content, status, _ = saved_reply(tmp_path / "store.sqlite3")
    assert (content, status) == (RECEIVED, "interrupted")
