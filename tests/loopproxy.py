"""A real HTTP proxy on 127.0.0.1 for tests: absolute-form requests for http:// targets and
CONNECT tunnels for https://, recording what went through it.

`with LoopProxy() as proxy:` then `proxy.url`; `proxy.seen` lists ("POST",
"http://127.0.0.1:PORT/v1/chat/completions") or ("CONNECT", "127.0.0.1:PORT") per request,
with the request's headers in `proxy.headers`. Each forwarded absolute-form request is sent
upstream in origin-form with `Connection: close`, so one client connection carries one request.
"""

from __future__ import annotations

import select
import socket
import socketserver
import threading
from urllib.parse import urlsplit


class LoopProxy:
    def __init__(self, answer: bytes | None = None) -> None:
        """`answer`: send these bytes (a whole HTTP response) to every request instead."""
        self.answer = answer
        self.seen: list[tuple[str, str]] = []
        self.headers: list[dict[str, str]] = []
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                proxy._handle(self.request)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> LoopProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handle(self, client: socket.socket) -> None:
        head, rest = _read_head(client)
        if head is None:
            return
        lines = head.decode("latin-1").split("\r\n")
        method, target, version = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        self.seen.append((method, target))
        self.headers.append(headers)
        if self.answer is not None:
            client.sendall(self.answer)
            return
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            with socket.create_connection((host, int(port))) as upstream:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                _relay(client, upstream, rest)
            return
        parts = urlsplit(target)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        forwarded = [f"{method} {path} {version}"]
        forwarded += [line for line in lines[1:] if line and not line.lower().startswith(
            ("proxy-", "connection:"))]
        forwarded.append("Connection: close")
        with socket.create_connection((parts.hostname, parts.port or 80)) as upstream:
            upstream.sendall(("\r\n".join(forwarded) + "\r\n\r\n").encode("latin-1") + rest)
            _relay(client, upstream, b"")


def _read_head(sock: socket.socket) -> tuple[bytes | None, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        piece = sock.recv(65536)
        if not piece:
            return None, b""
        data += piece
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _relay(client: socket.socket, upstream: socket.socket, pending: bytes) -> None:
    """Copy bytes both ways until either side closes."""
    if pending:
        upstream.sendall(pending)
    sockets = [client, upstream]
    while True:
        readable, _, _ = select.select(sockets, [], [], 0.5)
        for sock in readable:
            try:
                data = sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            other = upstream if sock is client else client
            try:
                other.sendall(data)
            except OSError:
                return
