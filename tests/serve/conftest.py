"""Running `tui-chat serve` as a user would: its own process, this test's store, config and
the loopback fake provider, on a free loopback port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider
from tests.ui.conftest import TEST_KEY


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Served:
    def __init__(self, process: subprocess.Popen[str], url: str, port: int) -> None:
        self.process, self.url, self.port = process, url, port
        self.origin = url.split("/?")[0]  # the printed address without its token
        self.token = url.partition("?token=")[2]


def serve(command: list[str], tmp_path: Path, provider: FakeProvider, port: int
          ) -> Iterator[Served]:
    env = {**os.environ, "CHUTES_BASE_URL": provider.url, "CHUTES_API_KEY": TEST_KEY,
           "TUI_CHAT_DB": str(tmp_path / "store.sqlite3"),
           "TUI_CHAT_CONFIG": str(tmp_path / "config.toml")}
    process = subprocess.Popen([sys.executable, "-m", *command], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env,
                               cwd=Path(__file__).resolve().parents[2])
    try:
        assert process.stdout is not None
        first = process.stdout.readline()  # "tui-chat serve: open URL" once it listens
        assert first.startswith("tui-chat serve: open "), first + process.stderr.read()
        yield Served(process, first.removeprefix("tui-chat serve: open ").strip(), port)
    finally:
        process.terminate()
        process.wait(timeout=20)


@pytest.fixture
def served(tmp_path: Path, chutes_server: FakeProvider) -> Iterator[Served]:
    """`tui-chat serve --port PORT`: loopback, with the token it makes."""
    port = free_port()
    yield from serve(["tui_chat", "serve", "--port", str(port)], tmp_path, chutes_server, port)


TOKEN = "a-test-token-of-some-length"


@pytest.fixture
def served_with_token(tmp_path: Path, chutes_server: FakeProvider) -> Iterator[Served]:
    """The server as any address other than loopback gets it (with TOKEN), on 127.0.0.1."""
    port = free_port()
    yield from serve(["tests.serve.token_server", str(port), TOKEN], tmp_path, chutes_server,
                     port)


OFF_LOOPBACK_NAME = "tui-chat.test"  # the browser test maps it to 127.0.0.1


@pytest.fixture
def served_off_loopback(tmp_path: Path, chutes_server: FakeProvider) -> Iterator[Served]:
    """The server as `--host tui-chat.test` would run it (a name that is not loopback, so the
    off-loopback guard), bound to 127.0.0.1, with TOKEN."""
    port = free_port()
    yield from serve(["tests.serve.token_server", str(port), TOKEN, OFF_LOOPBACK_NAME],
                     tmp_path, chutes_server, port)
