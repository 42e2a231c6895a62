"""A loopback fake of Chutes' end-to-end encryption endpoints, the server side written here
with the same primitives as Chutes (pqcrypto's ML-KEM-768, cryptography's HKDF-SHA256 and
ChaCha20-Poly1305), not with chutes-e2ee's own helpers, so that the client is checked against
an independent reading of the protocol:

- `GET /v1/models`: the models, each with its `chute_id` and `confidential_compute`.
- `GET /e2e/instances/{chute_id}`: each instance's ML-KEM-768 public key and a pool of
  single-use nonces, with `nonce_expires_in`; 404 for a chute without E2EE.
- `POST /e2e/invoke`: checks the nonce (issued for that instance, unused, not expired),
  decrypts the request (`mlkem_ct(1088) | nonce(12) | ciphertext | tag(16)`, gzipped JSON
  carrying `e2e_response_pk`), and streams `e2e_init` (the ML-KEM ciphertext to the response
  key), then one `e2e` event per chunk (`nonce | ciphertext | tag` of `data: {...}`), the
  usage chunk and `[DONE]` in plain, as Chutes does. `e2e_error` is plain too.
- `POST /v1/chat/completions`: a plain reply (what `auto` falls back to).

`wire` holds every byte the server read, for tests that show what crosses in plain text.
"""

from __future__ import annotations

import base64
import collections
import gzip
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from pqcrypto.kem.ml_kem_768 import decrypt as mlkem_decaps
from pqcrypto.kem.ml_kem_768 import encrypt as mlkem_encaps
from pqcrypto.kem.ml_kem_768 import generate_keypair

from tests.fakeprovider import _QuietServer, chunk, sse, usage_chunk

MLKEM_CT = 1088


def _key(shared: bytes, mlkem_ct: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=mlkem_ct[:16],
                info=info).derive(shared)


@dataclass
class Chute:
    model: str
    chute_id: str
    e2ee: bool = True
    confidential_compute: bool = False
    instances: int = 1


@dataclass
class E2EEReply:
    """What one invoke streams: `pieces` of text; `tamper_at`: that piece's ciphertext has a
    byte flipped; `error_after`: after that many pieces, an `e2e_error` event and the end."""

    pieces: list[str] = field(default_factory=lambda: ["Hello", ", ", "world."])
    tamper_at: int | None = None
    error_after: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    """Sent with the response (Chutes' quota headers, a pool's `x-chutes-chosen-model`)."""


@dataclass
class Invoke:
    headers: dict[str, str]
    payload: dict[str, Any]


class _Tee:
    """The handler's socket reader, copying every byte read to `sink`."""

    def __init__(self, inner: Any, sink: bytearray, lock: threading.Lock) -> None:
        self._inner, self._sink, self._lock = inner, sink, lock

    def _keep(self, data: bytes) -> bytes:
        with self._lock:
            self._sink += data
        return data

    def read(self, size: int = -1) -> bytes:
        return self._keep(self._inner.read(size))

    def readline(self, size: int = -1) -> bytes:
        return self._keep(self._inner.readline(size))

    def close(self) -> None:
        self._inner.close()


class FakeChutesE2EE:
    """`with FakeChutesE2EE() as server:`; `server.url` is the chat base URL (…/v1)."""

    def __init__(self, *, nonces_per_instance: int = 10, nonce_ttl: float = 55.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.chutes: dict[str, Chute] = {}
        self.nonces_per_instance = nonces_per_instance
        self.nonce_ttl = nonce_ttl
        self.clock = clock
        self.wire = bytearray()
        self.invokes: list[Invoke] = []
        self.plain_requests: list[dict[str, Any]] = []
        self.discoveries: list[str] = []
        self.rejected: list[str] = []
        """Why each refused invoke was refused."""
        self.replies: collections.deque[E2EEReply] = collections.deque()
        self.invoke_errors: collections.deque[tuple[int, str]] = collections.deque()
        """(status, detail) that the next invokes answer with, before anything is checked."""
        self.reply_headers: dict[str, str] = {}
        """Sent with every reply not scripted (`replies`): quota headers, say."""
        self.instances_status = 200
        """Another status: what every instance listing answers."""
        self._keys: dict[str, tuple[bytes, bytes]] = {}  # instance id -> (public, secret)
        self._issued: dict[str, tuple[str, float]] = {}  # nonce -> (instance id, expiry)
        self._used: set[str] = set()
        self._lock = threading.Lock()
        self._httpd = _QuietServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)

    def add(self, model: str, *, e2ee: bool = True, confidential_compute: bool = False,
            instances: int = 1) -> Chute:
        number = len(self.chutes) + 1
        chute = Chute(model, f"00000000-0000-4000-8000-{number:012d}", e2ee,
                      confidential_compute, instances)
        self.chutes[chute.chute_id] = chute
        for index in range(instances):
            self._keys[f"{chute.chute_id}/i{index}"] = generate_keypair()
        return chute

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def restart_instances(self) -> None:
        """As when the instances restart: every nonce issued so far is unknown to them."""
        with self._lock:
            self._issued.clear()

    @property
    def issued_nonces(self) -> int:
        return len(self._issued)

    def __enter__(self) -> FakeChutesE2EE:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    # -- the protocol ---------------------------------------------------------------------

    def models_list(self) -> dict[str, Any]:
        return {"object": "list", "data": [
            {"id": c.model, "object": "model", "chute_id": c.chute_id,
             "confidential_compute": c.confidential_compute} for c in self.chutes.values()]}

    def instances(self, chute_id: str) -> tuple[int, dict[str, Any]]:
        self.discoveries.append(chute_id)
        if self.instances_status != 200:
            return self.instances_status, {"detail": "Service unavailable"}
        chute = self.chutes.get(chute_id)
        if chute is None or not chute.e2ee:
            return 404, {"detail": "No E2EE-capable instances for this chute"}
        now = self.clock()
        listed = []
        for index in range(chute.instances):
            instance_id = f"{chute_id}/i{index}"
            nonces = [base64.urlsafe_b64encode(os.urandom(16)).decode()
                      for _ in range(self.nonces_per_instance)]
            with self._lock:
                for nonce in nonces:
                    self._issued[nonce] = (instance_id, now + self.nonce_ttl)
            listed.append({"instance_id": instance_id,
                           "e2e_pubkey": base64.b64encode(self._keys[instance_id][0]).decode(),
                           "nonces": nonces})
        return 200, {"instances": listed, "nonce_expires_in": self.nonce_ttl}

    def check_nonce(self, instance_id: str, nonce: str) -> str | None:
        """Why the nonce is refused, or None."""
        with self._lock:
            issued = self._issued.get(nonce)
            if issued is None or issued[0] != instance_id:
                return "unknown nonce"
            if nonce in self._used:
                return "nonce reused"
            if self.clock() >= issued[1]:
                return "nonce expired"
            self._used.add(nonce)
        return None

    def open_request(self, instance_id: str, blob: bytes) -> dict[str, Any]:
        secret = self._keys[instance_id][1]
        mlkem_ct, nonce, sealed = blob[:MLKEM_CT], blob[MLKEM_CT:MLKEM_CT + 12], blob[
            MLKEM_CT + 12:]
        key = _key(mlkem_decaps(secret, mlkem_ct), mlkem_ct, b"e2e-req-v1")
        payload: dict[str, Any] = json.loads(gzip.decompress(
            ChaCha20Poly1305(key).decrypt(nonce, sealed, None)))
        return payload

    def frames(self, payload: dict[str, Any], reply: E2EEReply) -> list[bytes]:
        response_pk = base64.b64decode(payload["e2e_response_pk"])
        mlkem_ct, shared = mlkem_encaps(response_pk)
        key = ChaCha20Poly1305(_key(shared, mlkem_ct, b"e2e-stream-v1"))
        model = str(payload.get("model"))

        def sealed(data: dict[str, Any], tamper: bool = False) -> bytes:
            nonce = os.urandom(12)
            box = bytearray(key.encrypt(nonce, b"data: " + json.dumps(data).encode(), None))
            if tamper:
                box[0] ^= 0x01
            return sse({"e2e": base64.b64encode(nonce + bytes(box)).decode()})

        frames = [sse({"e2e_init": base64.b64encode(mlkem_ct).decode()}),
                  sealed(chunk("", role="assistant", model=model))]
        for index, piece in enumerate(reply.pieces):
            if reply.error_after is not None and index == reply.error_after:
                frames.append(sse({"e2e_error": {"message": "The instance failed mid-reply",
                                                 "code": 500}}))
                return frames
            frames.append(sealed(chunk(piece, model=model), tamper=index == reply.tamper_at))
        frames.append(sealed(chunk(model=model, finish_reason="stop")))
        frames.append(sse(usage_chunk(model=model)))
        frames.append(b"data: [DONE]\n\n")
        return frames

    def next_reply(self, model: str) -> E2EEReply:
        """The scripted reply, else for `bench/N` N pieces (benchmarks), else a greeting."""
        if self.replies:
            return self.replies.popleft()
        if model.startswith("bench/"):
            return E2EEReply(pieces=[f"w{index} " for index in range(int(model[6:]))])
        return E2EEReply(headers=dict(self.reply_headers))

    # -- HTTP -----------------------------------------------------------------------------

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                self.rfile = _Tee(self.rfile, server.wire, server._lock)  # type: ignore[assignment]

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/v1/models":
                    self._json(200, server.models_list())
                elif self.path.startswith("/e2e/instances/"):
                    self._json(*server.instances(self.path.rsplit("/", 1)[1]))
                else:
                    self._json(404, {"detail": "Not Found"})

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path == "/v1/chat/completions":
                    request = json.loads(body)
                    server.plain_requests.append(request)
                    model = str(request.get("model"))
                    reply = server.next_reply(model)
                    self._stream([sse(chunk(p, model=model)) for p in reply.pieces]
                                 + [sse(chunk(model=model, finish_reason="stop")),
                                    sse(usage_chunk(model=model)), b"data: [DONE]\n\n"],
                                 reply.headers)
                elif self.path == "/e2e/invoke":
                    self._invoke(body)
                else:
                    self._json(404, {"detail": "Not Found"})

            def _invoke(self, body: bytes) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                if server.invoke_errors:
                    status, detail = server.invoke_errors.popleft()
                    server.rejected.append(detail)
                    self._json(status, {"detail": detail})
                    return
                instance_id = headers.get("x-instance-id", "")
                if instance_id not in server._keys:
                    server.rejected.append("unknown instance")
                    self._json(404, {"detail": "Instance not found"})
                    return
                refused = server.check_nonce(instance_id, headers.get("x-e2e-nonce", ""))
                if refused is not None:
                    server.rejected.append(refused)
                    self._json(403, {"detail": f"E2EE {refused}"})
                    return
                try:
                    payload = server.open_request(instance_id, body)
                except Exception:
                    server.rejected.append("undecryptable")
                    self._json(400, {"detail": "Could not decrypt the request"})
                    return
                server.invokes.append(Invoke(headers, payload))
                reply = server.next_reply(str(payload.get("model")))
                self._stream(server.frames(payload, reply), reply.headers)

            def _json(self, status: int, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _stream(self, frames: list[bytes], headers: dict[str, str] | None = None
                        ) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                for frame in frames:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

        return Handler


def main() -> None:
    """`python -m tests.fake_chutes_e2ee --port N --model M [--tee-model T] [--plain-model P]`:
    serve until killed (benchmarks run it in a process of its own, so that its encryption is
    not the client's CPU; a person trying the app in a terminal runs it the same way)."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--model", action="append", default=[])
    parser.add_argument("--tee-model", action="append", default=[],
                        help="a model listed with confidential_compute: true")
    parser.add_argument("--plain-model", action="append", default=[],
                        help="a model whose chute has no E2EE instance")
    parser.add_argument("--quota", metavar="TOTAL,USED", default="",
                        help="send Chutes' quota headers with every reply")
    args = parser.parse_args()
    server = FakeChutesE2EE()
    server._httpd.server_close()
    server._httpd = _QuietServer(("127.0.0.1", args.port), server._handler_class())
    server._httpd.daemon_threads = True
    server._thread = threading.Thread(target=server._httpd.serve_forever, daemon=True)
    if args.quota:
        total, used = (int(part) for part in args.quota.split(","))
        server.reply_headers = {"x-chutes-quota-total": str(total),
                                "x-chutes-quota-used": str(used),
                                "x-chutes-quota-remaining": str(total - used)}
    for model in args.model:
        server.add(model)
    for model in args.tee_model:
        server.add(model, confidential_compute=True)
    for model in args.plain_model:
        server.add(model, e2ee=False)
    with server:
        print(f"serving {server.url}", flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
