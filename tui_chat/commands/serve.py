"""`tui-chat serve`: the app in a web browser, through textual-serve.

Each browser connection (one websocket) starts its own `tui-chat` process, with this
process's environment, config and store, so a page holds the same keys as the terminal app.
Hence who may open a page:

- A token is always required: made at start, printed in the URL to open, and checked on every
  request, the websocket included. The page given the token in its URL gets it back as a
  cookie (HttpOnly, SameSite=Strict) for the requests it makes itself. On a loopback address
  too: another account on this machine can reach 127.0.0.1 as well as you can. (A Unix socket
  of mode 0600 was the other way; a browser cannot open one, so it would need a TCP proxy in
  front, reachable by everyone again.)
- A websocket must come from the server's own page: its `Origin` must be exactly the printed
  address (on loopback, also its `localhost` / `[::1]` spellings). A page served from another
  port of the same host is the same *site*, so the browser sends the SameSite=Strict cookie
  along to it: only the Origin tells it apart.
- On a loopback address the `Host` header must name the server as served, too (a web page on
  another site that rebinds its name to 127.0.0.1 sends its own name).
- The page loads nothing from other hosts, and draws Indic text shaped (`serve_page.py`).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import os
import secrets
import shlex
import sys
from collections.abc import Awaitable, Callable, Mapping
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


def cookie_name(port: int) -> str:
    """The token's cookie: one name per port, since a browser sends a host's cookies to all
    of its ports (two servers on one machine would each overwrite the other's)."""
    return f"{COOKIE}_{port}"


class Guard:
    """Who may use the server: the checks every request passes before textual-serve's."""

    def __init__(self, host: str, port: int, token: str) -> None:
        self.token = token
        self.cookie = cookie_name(port)
        shown = shown_host(host)
        names = ((LOCAL_NAMES if host in LOCAL_NAMES else (*LOCAL_NAMES, shown))
                 if is_loopback(host) else (shown,))
        self.hosts = (frozenset(f"{name}:{port}" for name in names) if is_loopback(host)
                      else frozenset())
        self.origins = frozenset(f"http://{name}:{port}" for name in names)

    def refusal(self, query_token: str | None, cookie_token: str | None,
                host_header: str | None, origin: str | None) -> str | None:
        """Why the request is refused, or None to serve it."""
        if self.hosts and host_header not in self.hosts:
            return "This server answers only to its own address."
        if origin is not None and origin not in self.origins:
            return "This server only talks to its own page: open the address it printed."
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
            reason = self.refusal(query_token, request.cookies.get(self.cookie),
                                  request.headers.get("Host"), request.headers.get("Origin"))
            if reason is not None:
                raise web.HTTPForbidden(text=reason)
            response = await handler(request)
            if query_token and request.path == "/":
                response.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict")
            return response

        return check


SERVED_BY = "TUI_CHAT_SERVED_BY"
"""Set for the apps `serve` starts: the server's process id (see `follow_the_server`)."""
GRACE = 5.0
"""Seconds the apps are given to quit when the server stops (each saves its reply in
progress); any still running then ends on the SIGTERM the server's exit sends it."""


def app_command() -> str:
    """The command textual-serve runs (through a shell) for each connection: this tui-chat,
    the plain app. `exec`, so that the app is the server's own child: its parent's death is
    the server's (`follow_the_server`)."""
    return "exec " + shlex.join([sys.executable, "-m", "tui_chat"])


def follow_the_server(env: Mapping[str, str]) -> None:
    """In an app that `serve` started: end with the server, however the server ends
    (SIGKILL too), rather than run on with the user's keys and nobody to talk to. Linux sends
    the app SIGTERM when its parent dies (PR_SET_PDEATHSIG), which the app handles as any
    SIGTERM (the reply in progress is saved); a server gone already is SIGTERM now."""
    served_by = env.get(SERVED_BY, "")
    os.environ.pop(SERVED_BY, None)  # not for what the app starts (an editor, a tool server)
    if not served_by.isdigit():
        return
    import signal

    if sys.platform == "linux":
        import ctypes

        pr_set_pdeathsig = 1
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != int(served_by):
        raise SystemExit(128 + signal.SIGTERM)


def make_server(host: str, port: int, token: str) -> Any:
    """A textual-serve Server with the guard in front of every route."""
    import aiohttp_jinja2
    import jinja2
    from aiohttp import web
    from textual_serve.server import Server

    from tui_chat.commands import serve_page

    guard = Guard(host, port, token)
    try:
        template = serve_page.page_template()
        scripts = {serve_page.SCRIPT_PATH: serve_page.textual_script(),
                   serve_page.INDIC_PATH: serve_page.indic_script()}
    except serve_page.PageError as error:
        raise UsageError(str(error)) from error

    async def script(request: web.Request) -> web.Response:
        return web.Response(text=scripts[request.path], content_type="text/javascript")

    class GuardedServer(Server):
        async def _make_app(self) -> web.Application:
            app: web.Application = await super()._make_app()
            app.middlewares.append(guard.middleware())
            aiohttp_jinja2.setup(app, loader=jinja2.DictLoader({"app_index.html": template}))
            app.router.add_routes([web.get(path, script) for path in scripts])
            return app

        async def handle_index(self, request: web.Request) -> Any:
            # The page's own URLs (scripts, websocket) use the address it was opened at,
            # which is not the bind address when that is 0.0.0.0.
            self.public_url = f"{request.scheme}://{request.host}"
            return await super().handle_index(request)

        async def on_startup(self, app: web.Application) -> None:
            """Quiet: `serve` says where to go once it listens."""

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            task = asyncio.current_task()
            assert task is not None
            sessions.add(task)
            try:
                return await super().handle_websocket(request)
            finally:
                sessions.discard(task)

        async def close_sessions(self) -> None:
            """Tell every app to quit (textual-serve's own way, when its websocket's handler
            is cancelled: a "quit" message, then the app's end awaited, then the websocket
            closed), for up to GRACE seconds."""
            if sessions:
                for task in sessions:
                    task.cancel()
                await asyncio.wait(set(sessions), timeout=GRACE)

    sessions: set[asyncio.Task[Any]] = set()

    return GuardedServer(app_command(), host=host, port=port, title="tui-chat")


def shown_host(host: str) -> str:
    """The host as the printed address names it."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    if shown in ("0.0.0.0", "[::]"):
        import socket

        shown = socket.gethostname()
    return shown


def url(host: str, port: int, token: str) -> str:
    return f"http://{shown_host(host)}:{port}/?token={token}"


async def _serve(server: Any, host: str, port: int, token: str, *, bind: str | None = None
                 ) -> None:
    """Listen on `bind` (`host` unless given; an address in use fails here, before anything
    is printed), say where to go, and serve until SIGINT or SIGTERM."""
    import signal

    from aiohttp import web

    os.environ[SERVED_BY] = str(os.getpid())  # the apps' environment is this one's
    runner = web.AppRunner(await server._make_app(), handle_signals=False,
                           shutdown_timeout=1.0)
    await runner.setup()
    try:
        await web.TCPSite(runner, bind or host, port).start()
        print(f"tui-chat serve: open {url(host, port, token)}", flush=True)
        print("Each page runs its own tui-chat with your keys. Ctrl+C stops.", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
        for site in list(runner.sites):
            await site.stop()  # no new pages while the apps quit
        await server.close_sessions()
    finally:
        await runner.cleanup()


def run_serve(host: str, port: int) -> int:
    if not 0 < port < 65536:
        raise UsageError(f"Port {port} is not a port number; give --port 1 to 65535.")
    token = secrets.token_urlsafe(24)
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
