"""`tui-chat serve`: the app in a web browser, through textual-serve.

Each browser connection (one websocket) starts its own `tui-chat` process, with this
process's environment, config and store, so a page holds the same keys as the terminal app.
Hence who may open a page:

- On a loopback address (the default, 127.0.0.1) only this machine can connect. The `Host`
  header must name the server as served (a web page on another site that rebinds its name to
  127.0.0.1 sends its own name), and a websocket must come from the server's own page (its
  `Origin`), so another site open in the browser cannot drive the app.
- On any other address a token is required: made at start, printed in the URL to open, and
  checked on every request, the websocket included. The page given the token in its URL
  gets it back as a cookie (HttpOnly, SameSite=Strict) for the requests it makes itself.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import shlex
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from tui_chat.core.errors import UsageError

if TYPE_CHECKING:
    from aiohttp import web

COOKIE = "tui_chat_token"
LOCAL_NAMES = ("localhost", "127.0.0.1", "[::1]")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Guard:
    """Who may use the server: the checks every request passes before textual-serve's."""

    def __init__(self, host: str, port: int, token: str | None) -> None:
        self.token = token
        names = (LOCAL_NAMES if host in LOCAL_NAMES else (*LOCAL_NAMES, host)
                 if is_loopback(host) else ())
        self.hosts = frozenset(f"{name}:{port}" for name in names)

    def refusal(self, query_token: str | None, cookie_token: str | None,
                host_header: str | None, origin: str | None) -> str | None:
        """Why the request is refused, or None to serve it."""
        if self.hosts and host_header not in self.hosts:
            return "This server answers only to its own address."
        if origin is not None and self.hosts and origin.removeprefix("http://") \
                not in self.hosts:
            return "This server only talks to its own page."
        if self.token is not None:
            supplied = query_token or cookie_token or ""
            if not hmac.compare_digest(supplied.encode(), self.token.encode()):
                return "Open the address tui-chat serve printed, with its token."
        return None

    def middleware(self) -> Callable[..., Awaitable[web.StreamResponse]]:
        from aiohttp import web

        @web.middleware
        async def check(request: web.Request,
                        handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                        ) -> web.StreamResponse:
            query_token = request.query.get("token")
            reason = self.refusal(query_token, request.cookies.get(COOKIE),
                                  request.headers.get("Host"), request.headers.get("Origin"))
            if reason is not None:
                raise web.HTTPForbidden(text=reason)
            response = await handler(request)
            if self.token is not None and query_token and request.path == "/":
                response.set_cookie(COOKIE, self.token, httponly=True, samesite="Strict")
            return response

        return check


def app_command() -> str:
    """The command textual-serve runs for each connection: this tui-chat, the plain app."""
    return shlex.join([sys.executable, "-m", "tui_chat"])


def make_server(host: str, port: int, token: str | None) -> Any:
    """A textual-serve Server with the guard in front of every route."""
    from textual_serve.server import Server

    guard = Guard(host, port, token)

    class GuardedServer(Server):
        async def _make_app(self) -> web.Application:
            app: web.Application = await super()._make_app()
            app.middlewares.append(guard.middleware())
            return app

        async def handle_index(self, request: web.Request) -> Any:
            # The page's own URLs (scripts, websocket) use the address it was opened at,
            # which is not the bind address when that is 0.0.0.0.
            self.public_url = f"{request.scheme}://{request.host}"
            return await super().handle_index(request)

        async def on_startup(self, app: web.Application) -> None:
            """Quiet: `serve` says where to go once it listens."""

    return GuardedServer(app_command(), host=host, port=port, title="tui-chat")


def url(host: str, port: int, token: str | None) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    if shown in ("0.0.0.0", "[::]"):
        import socket

        shown = socket.gethostname()
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


async def _serve(server: Any, host: str, port: int, token: str | None) -> None:
    """Listen (an address in use fails here, before anything is printed), say where to go,
    and serve until SIGINT or SIGTERM."""
    import asyncio
    import signal

    from aiohttp import web

    runner = web.AppRunner(await server._make_app(), handle_signals=False)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
        print(f"tui-chat serve: open {url(host, port, token)}", flush=True)
        print("Each page runs its own tui-chat with your keys. Ctrl+C stops.", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
    finally:
        await runner.cleanup()


def run_serve(host: str, port: int) -> int:
    import asyncio

    if not 0 < port < 65536:
        raise UsageError(f"Port {port} is not a port number; give --port 1 to 65535.")
    token = None if is_loopback(host) else secrets.token_urlsafe(24)
    try:
        server = make_server(host, port, token)
    except ImportError as error:
        raise UsageError("tui-chat serve needs textual-serve: pip install textual-serve."
                         ) from error
    try:
        asyncio.run(_serve(server, host, port, token))
    except OSError as error:
        reason = error.strerror or "refused"
        raise UsageError(f"Could not listen on {host} port {port} ({reason}); choose another "
                         "with --port or --host.") from error
    return 0
