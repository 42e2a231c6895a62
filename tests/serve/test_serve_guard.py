"""Who may use `tui-chat serve` (tui_chat/commands/serve.py), over real HTTP on 127.0.0.1:
every server serves nothing without its token, the websocket included (on loopback too:
another account on the machine reaches 127.0.0.1 as well); its websocket talks only to a page
of exactly the printed address; a loopback server answers only to its own name; the page
loads nothing from other hosts."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from html.parser import HTMLParser

import httpx
import pytest
from aiohttp import ClientSession, WSServerHandshakeError

from tests.serve.conftest import TOKEN, Served
from tui_chat.commands.serve import Guard, cookie_name, is_loopback, url


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("localhost", True), ("::1", True), ("127.0.0.2", True),
    ("0.0.0.0", False), ("192.168.1.20", False), ("::", False), ("example.org", False)])
def test_only_loopback_addresses_count_as_this_machine(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_the_printed_address_carries_the_token() -> None:
    assert url("127.0.0.1", 8000, TOKEN) == f"http://127.0.0.1:8000/?token={TOKEN}"
    assert url("192.168.1.20", 8000, TOKEN) == f"http://192.168.1.20:8000/?token={TOKEN}"
    assert url("::1", 8000, TOKEN) == f"http://[::1]:8000/?token={TOKEN}"


def test_a_loopback_guard_wants_its_own_host_and_origin() -> None:
    guard = Guard("127.0.0.1", 8000, TOKEN)
    assert guard.refusal(TOKEN, None, "127.0.0.1:8000", None) is None
    assert guard.refusal(None, TOKEN, "localhost:8000", "http://localhost:8000") is None
    assert guard.refusal(TOKEN, None, "evil.example:8000", None) is not None  # DNS rebinding
    assert guard.refusal(TOKEN, None, "127.0.0.1:8000", "http://evil.example") is not None
    assert guard.refusal(None, TOKEN, "127.0.0.1:8000", "http://127.0.0.1:9000") is not None
    assert guard.refusal(None, None, "127.0.0.1:8000", None) is not None  # no token


def test_off_loopback_the_websocket_talks_only_to_the_printed_address() -> None:
    guard = Guard("192.168.1.20", 8000, TOKEN)
    assert guard.refusal(None, TOKEN, "192.168.1.20:8000", "http://192.168.1.20:8000") is None
    # Another port of the same host is the same site: the cookie comes along, the Origin not.
    assert guard.refusal(None, TOKEN, "192.168.1.20:8000", "http://192.168.1.20:9000"
                         ) is not None
    assert guard.refusal(None, TOKEN, "192.168.1.20:8000", "https://192.168.1.20:8000"
                         ) is not None
    assert guard.refusal(None, TOKEN, "192.168.1.20:8000", "http://evil.example") is not None


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
        for path in ("/", "/static/js/textual.js", "/tui-chat/textual.js", "/tui-chat/indic.js",
                     "/ws", "/download/x"):
            response = await client.get(token_server + path)
            assert response.status_code == 403, path
        wrong = await client.get(token_server + "/?token=not-it")
        assert wrong.status_code == 403
    async with ClientSession() as session:
        with pytest.raises(WSServerHandshakeError) as refused:
            await session.ws_connect(token_server + "/ws")
        assert refused.value.status == 403


async def test_a_loopback_websocket_without_the_token_is_refused(served: Served) -> None:
    """Another account on this machine connects to ws://127.0.0.1:PORT/ws without a browser:
    no token, no session."""
    async with ClientSession() as session:
        with pytest.raises(WSServerHandshakeError) as refused:
            await session.ws_connect(served.origin + "/ws?width=80&height=24")
        assert refused.value.status == 403
        with pytest.raises(WSServerHandshakeError):
            await session.ws_connect(served.origin + "/ws?width=80&height=24",
                                     origin=served.origin)
    async with ClientSession(cookies={cookie_name(served.port): served.token}) as session:
        websocket = await session.ws_connect(served.origin + "/ws?width=80&height=24",
                                             origin=served.origin)
        try:
            message = await asyncio.wait_for(websocket.receive(), timeout=30)
            assert message.type.name in ("BINARY", "TEXT")  # with it, the app is there
        finally:
            await websocket.close()


async def test_off_loopback_a_websocket_from_another_port_is_refused(
        served_off_loopback: Served) -> None:
    """What a page on another port of the same host sends: the cookie (same site) and its own
    Origin."""
    origin = served_off_loopback.origin
    other_port = origin.rsplit(":", 1)[0] + f":{served_off_loopback.port + 1}"
    cookies = {cookie_name(served_off_loopback.port): TOKEN}
    async with ClientSession(cookies=cookies) as session:
        with pytest.raises(WSServerHandshakeError) as refused:
            await session.ws_connect(f"http://127.0.0.1:{served_off_loopback.port}/ws",
                                     origin=other_port)
        assert refused.value.status == 403
        websocket = await session.ws_connect(
            f"http://127.0.0.1:{served_off_loopback.port}/ws?width=80&height=24", origin=origin)
        try:
            message = await asyncio.wait_for(websocket.receive(), timeout=30)
            assert message.type.name in ("BINARY", "TEXT")  # its own page is served
        finally:
            await websocket.close()


class _Resources(HTMLParser):
    """Every address an HTML page loads (src, href, and url() in its styles)."""

    def __init__(self) -> None:
        super().__init__()
        self.addresses: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_style = tag == "style"
        self.addresses += [value for name, value in attrs
                           if name in ("src", "href", "data-session-websocket-url") and value]

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.addresses += re.findall(r"url\(\s*[\"']?([^\"')]+)", data)


async def test_the_page_loads_nothing_from_other_hosts(served: Served) -> None:
    async with httpx.AsyncClient() as client:
        page = await client.get(served.url)
    assert page.status_code == 200
    resources = _Resources()
    resources.feed(page.text)
    assert resources.addresses  # the parser found the page's own scripts and styles
    host = served.origin.split("://")[1]
    for address in resources.addresses:
        assert address.split("://", 1)[-1].startswith(host) or (
            "://" not in address and not address.startswith("//")), address


async def test_the_page_opened_with_the_token_gets_it_as_a_cookie(served_with_token: Served
                                                                  ) -> None:
    cookie_of_port = cookie_name(served_with_token.port)
    token_server = served_with_token.url.split("/?")[0]
    async with httpx.AsyncClient() as client:
        page = await client.get(f"{token_server}/?token={TOKEN}")
        assert page.status_code == 200
        cookie = page.headers["set-cookie"]
        assert f"{cookie_of_port}={TOKEN}" in cookie and "HttpOnly" in cookie
        assert "SameSite=Strict" in cookie
        for path in ("/static/js/textual.js", "/tui-chat/textual.js", "/tui-chat/indic.js"):
            script = await client.get(token_server + path)  # with the cookie
            assert script.status_code == 200, path
            assert script.headers["content-type"].startswith(
                ("text/javascript", "application/javascript")), path
    async with ClientSession(cookies={cookie_of_port: TOKEN}) as session:
        websocket = await session.ws_connect(token_server + "/ws?width=80&height=24")
        try:
            message = await asyncio.wait_for(websocket.receive(), timeout=30)
            assert message.type.name in ("BINARY", "TEXT")  # the app process is talking
        finally:
            await websocket.close()


def test_serve_binds_loopback_by_default_and_answers_only_there(served: Served) -> None:
    assert served.url == f"http://127.0.0.1:{served.port}/?token={served.token}"
    assert len(served.token) >= 32
    assert httpx.get(served.url).status_code == 200
    assert httpx.get(served.origin + "/").status_code == 403  # the token, on loopback too
    refused = httpx.get(served.url, headers={"Host": f"evil.example:{served.port}"})
    assert refused.status_code == 403


def test_a_port_in_use_is_one_sentence(served: Served) -> None:
    done = subprocess.run([sys.executable, "-m", "tui_chat", "serve", "--port",
                           str(served.port)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--port" in done.stderr
    assert "Traceback" not in done.stderr
