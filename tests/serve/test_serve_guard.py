"""Who may use `tui-chat serve` (tui_chat/commands/serve.py), over real HTTP on 127.0.0.1:
a loopback server answers only to its own name and its own page; a server with a token
(what any other address gets) serves nothing, the websocket included, without it."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import httpx
import pytest
from aiohttp import ClientSession, WSServerHandshakeError

from tests.serve.conftest import TOKEN, Served
from tui_chat.commands.serve import COOKIE, Guard, is_loopback, url


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("localhost", True), ("::1", True), ("127.0.0.2", True),
    ("0.0.0.0", False), ("192.168.1.20", False), ("::", False), ("example.org", False)])
def test_only_loopback_addresses_count_as_this_machine(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_the_printed_address_carries_the_token() -> None:
    assert url("127.0.0.1", 8000, None) == "http://127.0.0.1:8000/"
    assert url("192.168.1.20", 8000, TOKEN) == f"http://192.168.1.20:8000/?token={TOKEN}"
    assert url("::1", 8000, None) == "http://[::1]:8000/"


def test_a_loopback_guard_wants_its_own_host_and_origin() -> None:
    guard = Guard("127.0.0.1", 8000, None)
    assert guard.refusal(None, None, "127.0.0.1:8000", None) is None
    assert guard.refusal(None, None, "localhost:8000", "http://localhost:8000") is None
    assert guard.refusal(None, None, "evil.example:8000", None) is not None  # DNS rebinding
    assert guard.refusal(None, None, "127.0.0.1:8000", "http://evil.example") is not None


def test_a_token_guard_wants_the_token() -> None:
    guard = Guard("0.0.0.0", 8000, TOKEN)
    assert guard.refusal(TOKEN, None, "host.lan:8000", None) is None
    assert guard.refusal(None, TOKEN, "host.lan:8000", None) is None
    assert guard.refusal(None, None, "host.lan:8000", None) is not None
    assert guard.refusal(TOKEN[:-1], None, "host.lan:8000", None) is not None


async def test_without_the_token_nothing_is_served(served_with_token: Served) -> None:
    token_server = served_with_token.url.split("/?")[0]
    assert served_with_token.url == f"{token_server}/?token={TOKEN}"
    async with httpx.AsyncClient() as client:
        for path in ("/", "/static/js/textual.js", "/ws", "/download/x"):
            response = await client.get(token_server + path)
            assert response.status_code == 403, path
        wrong = await client.get(token_server + "/?token=not-it")
        assert wrong.status_code == 403
    async with ClientSession() as session:
        with pytest.raises(WSServerHandshakeError) as refused:
            await session.ws_connect(token_server + "/ws")
        assert refused.value.status == 403


async def test_the_page_opened_with_the_token_gets_it_as_a_cookie(served_with_token: Served
                                                                  ) -> None:
    token_server = served_with_token.url.split("/?")[0]
    async with httpx.AsyncClient() as client:
        page = await client.get(f"{token_server}/?token={TOKEN}")
        assert page.status_code == 200
        cookie = page.headers["set-cookie"]
        assert f"{COOKIE}={TOKEN}" in cookie and "HttpOnly" in cookie
        assert "SameSite=Strict" in cookie
        script = await client.get(token_server + "/static/js/textual.js")  # with the cookie
        assert script.status_code == 200
    async with ClientSession(cookies={COOKIE: TOKEN}) as session:
        websocket = await session.ws_connect(token_server + "/ws?width=80&height=24")
        try:
            message = await asyncio.wait_for(websocket.receive(), timeout=30)
            assert message.type.name in ("BINARY", "TEXT")  # the app process is talking
        finally:
            await websocket.close()


def test_serve_binds_loopback_by_default_and_answers_only_there(served: Served) -> None:
    assert served.url == f"http://127.0.0.1:{served.port}/"
    assert httpx.get(served.url).status_code == 200
    refused = httpx.get(served.url, headers={"Host": f"evil.example:{served.port}"})
    assert refused.status_code == 403


def test_a_port_in_use_is_one_sentence(served: Served) -> None:
    done = subprocess.run([sys.executable, "-m", "tui_chat", "serve", "--port",
                           str(served.port)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--port" in done.stderr
    assert "Traceback" not in done.stderr
