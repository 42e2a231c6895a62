"""A real HTTP server on 127.0.0.1 that speaks the providers' SSE as ../shared/api documents it.

Tests, benchmarks and hand tries (`python -m tests.fakeprovider --port 8765`) all use it.
Replies come from a queue that tests script (`server.script(...)`); with an empty queue, the
model name picks a scenario (`fault/stall`, `fault/drop`, …; see `scenario_for`), and any other
model gets a friendly echo reply.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import json
import math
import select
import socket
import ssl
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CREATED = 1750464000


def chunk(
    content: str | None = None,
    *,
    model: str = "deepseek-ai/DeepSeek-V3-0324",
    finish_reason: str | None = None,
    role: str | None = None,
    flavour: str = "chutes",
    **delta_extra: Any,
) -> dict[str, Any]:
    """One `chat.completion.chunk`, shaped like the AsyncAPI files' examples."""
    delta: dict[str, Any] = {}
    if role is not None:
        delta["role"] = role
    if content is not None:
        delta["content"] = content
    delta.update(delta_extra)
    choice: dict[str, Any] = {"index": 0, "delta": delta}
    if flavour == "chutes":
        choice["logprobs"] = None
    choice["finish_reason"] = finish_reason
    return {
        "id": "chatcmpl-abc123",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "choices": [choice],
    }


def fake_tokens(text: str) -> int:
    """The fake provider's tokenizer: four ASCII characters make a token, any other character
    one token by itself (as Indic scripts cost with most tokenizers)."""
    ascii_chars = sum(1 for char in text if char.isascii())
    return math.ceil(ascii_chars / 4) + len(text) - ascii_chars


def _content_text(content: Any) -> str:
    if isinstance(content, list):  # content parts: the text parts
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def counted_prompt(request: dict[str, Any]) -> int:
    """The prompt tokens of a request as the fake counts them: 4 per message, 3 per request,
    and `fake_tokens` of each message's text."""
    messages = request.get("messages") or []
    return 3 + sum(4 + fake_tokens(_content_text(m.get("content"))) for m in messages
                   if isinstance(m, dict))


ROLES_MUST_ALTERNATE = "Conversation roles must alternate user/assistant/user/assistant/..."


def roles_problem(request: dict[str, Any]) -> str | None:
    """Why a strict server (vLLM with Gemma's chat template) refuses the request's messages, or
    None: system messages first, then user and assistant turns alternating from a user turn;
    a `tool` message only right after an assistant message with `tool_calls` (or another tool
    message), after which either may speak."""
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages must be a non-empty list"
    last, called = "system", False  # the role before; whether that message called tools
    for message in messages:
        role = message.get("role") if isinstance(message, dict) else None
        if role == "system" and last == "system":
            continue
        if role == "tool":
            if not (last == "tool" or (last == "assistant" and called)):
                return "A tool message must follow the assistant message that called it."
        elif role not in ("user", "assistant"):
            return f"Unknown role: {role!r}"
        elif last != "tool" and role != ("user" if last in ("system", "assistant")
                                         else "assistant"):
            return ROLES_MUST_ALTERNATE
        last, called = str(role), bool(message.get("tool_calls"))
    return None


def usage_chunk(prompt: int = 12, completion: int = 34, model: str = "m") -> dict[str, Any]:
    """Chutes ends every stream with a usage chunk whose choices is []."""
    return {
        "id": "chatcmpl-abc123", "object": "chat.completion.chunk", "created": CREATED,
        "model": model, "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion},
    }


def sse(data: dict[str, Any] | str) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"data: {text}\n\n".encode()


DONE = b"data: [DONE]\n\n"


def stream_of(
    pieces: Iterable[str],
    *,
    model: str = "deepseek-ai/DeepSeek-V3-0324",
    flavour: str = "chutes",
    finish_reason: str | None = "stop",
    usage: bool = True,
    done: bool = True,
    tokens: tuple[int, int] = (12, 34),
) -> list[bytes]:
    """The SSE frames of a complete reply made of `pieces`; `usage` (Chutes only; sent to a
    request that did not ask for it unless `usage_when_asked`) reports `tokens`: (prompt,
    completion)."""
    frames = [sse(chunk("", role="assistant", model=model, flavour=flavour))]
    frames += [sse(chunk(piece, model=model, flavour=flavour)) for piece in pieces]
    if finish_reason is not None:
        frames.append(sse(chunk(model=model, finish_reason=finish_reason, flavour=flavour)))
    if usage and flavour == "chutes":
        frames.append(sse(usage_chunk(*tokens, model=model)))
    if done:
        frames.append(DONE)
    return frames


def tool_call_stream(calls: Sequence[tuple[str, str]], *, text: str = "",
                     model: str = "deepseek-ai/DeepSeek-V3-0324", pieces: int = 2,
                     ids: Sequence[str] | None = None) -> list[bytes]:
    """A reply that calls tools, as OpenAI-compatible servers stream it (the AsyncAPI files'
    `delta.tool_calls`): optional `text`, then per (name, arguments) call a first fragment
    with its index, id (`ids[index]`, default `call_INDEX`), type and name, the arguments in
    `pieces` pieces, and `finish_reason: "tool_calls"`."""
    frames = [sse(chunk("", role="assistant", model=model))]
    if text:
        frames.append(sse(chunk(text, model=model)))
    for index, (name, arguments) in enumerate(calls):
        call_id = ids[index] if ids is not None else f"call_{index}"
        head = {"index": index, "id": call_id, "type": "function",
                "function": {"name": name, "arguments": ""}}
        frames.append(sse(chunk(model=model, tool_calls=[head])))
        for piece in _split(arguments, pieces):
            frames.append(sse(chunk(model=model, tool_calls=[
                {"index": index, "function": {"arguments": piece}}])))
    frames.append(sse(chunk(model=model, finish_reason="tool_calls")))
    frames.append(sse(usage_chunk(model=model)))
    frames.append(DONE)
    return frames


def _split(text: str, pieces: int) -> list[str]:
    """`text` in `pieces` pieces of about the same length (a piece may split a character's
    JSON escape, as real streams do; never a character itself)."""
    size = max(1, -(-len(text) // max(1, pieces)))
    return [text[start:start + size] for start in range(0, len(text), size)] or [""]


def tool_result_reply(request: dict[str, Any], *, flavour: str = "chutes") -> Reply | None:
    """The answer to a request whose last message is a tool result (`role: "tool"`): "The
    tool call_0 said: …" for each tool message since the last assistant message, in order.
    None for any other request."""
    messages = [m for m in request.get("messages") or [] if isinstance(m, dict)]
    if not messages or messages[-1].get("role") != "tool":
        return None
    results: list[dict[str, Any]] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        results.insert(0, message)
    text = " ".join(f"The tool {m.get('tool_call_id')} said: {_content_text(m.get('content'))}"
                    for m in results)
    model = str(request.get("model", "m"))
    return Reply(stream_of([text], model=model, flavour=flavour))


def tools_scenario(model: str, request: dict[str, Any]) -> Reply | None:
    """`tools/NAME`: a reply that calls the offered tool NAME once, its arguments the user's
    last message when that is a JSON object, else `{}`; after the tool's result, an answer
    that quotes it (`tool_result_reply`). For trying the tool loop by hand."""
    if not model.startswith("tools/"):
        return None
    messages = request.get("messages") or [{}]
    last = _content_text(messages[-1].get("content", "")).strip()
    try:
        arguments = json.dumps(json.loads(last)) if last.startswith("{") else "{}"
    except ValueError:
        arguments = "{}"
    return Reply(tool_call_stream([(model.split("/", 1)[1], arguments)], model=model,
                                  pieces=3))


def whole_completion(content: str, *, reasoning: str | None = None, model: str = "m",
                     finish_reason: str = "stop", tokens: tuple[int, int] | None = (9, 7)
                     ) -> Reply:
    """A whole `chat.completion` answered to a streaming request (`200 application/json`), as
    some providers do for models they do not stream."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    body: dict[str, Any] = {
        "id": "chatcmpl-whole", "object": "chat.completion", "created": CREATED, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}]}
    if tokens is not None:
        body["usage"] = {"prompt_tokens": tokens[0], "completion_tokens": tokens[1],
                         "total_tokens": sum(tokens)}
    return Reply(status=200, content_type="application/json", body=json.dumps(body).encode())


@dataclass
class Reply:
    """What the server does with one POST /chat/completions."""

    frames: Sequence[bytes] = ()
    status: int = 200
    content_type: str = "text/event-stream"
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""  # for non-streaming answers (errors, JSON)
    delay: float = 0.0  # seconds between frames
    first_byte_delay: float = 0.0  # before the response headers
    stall_after: int | None = None  # after this many frames: send nothing more, hold on
    drop_after: int | None = None  # after this many frames: cut the connection
    stall_seconds: float = 30.0
    gate: threading.Event | None = None  # after `gate_after` frames: wait until it is set
    gate_after: int = 0
    gates: Sequence[tuple[int, threading.Event]] = ()  # more (frame index, gate) holds
    piece_size: int | None = None  # from frame `pieces_after` on: writes of this many bytes,
    piece_delay: float = 0.0  # this many seconds apart (a drip, or a long event sent steadily)
    pieces_after: int = 0

    @staticmethod
    def error(status: int, body: dict[str, Any] | str, **headers: str) -> Reply:
        is_json = not isinstance(body, str)
        raw = json.dumps(body) if is_json else body
        return Reply(status=status, body=str(raw).encode(), headers=headers,
                     content_type="application/json" if is_json else "text/html")


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


def echo_reply(request: dict[str, Any], flavour: str, *, counted: bool = False) -> Reply:
    """"Hello! You said: …" in words; `counted`: its usage is what the fake counts for this
    request (`counted_prompt`, `fake_tokens` of the reply), reported on a Chutes stream and on
    any stream that asked for it (`stream_options.include_usage`)."""
    messages = request.get("messages") or [{}]
    last = _content_text(messages[-1].get("content", ""))
    model = str(request.get("model", "m"))
    text = f"Hello! You said: {last}"
    pieces = [word + " " for word in text.split(" ")]
    pieces[-1] = pieces[-1].rstrip()
    if not counted:
        return Reply(stream_of(pieces, model=model, flavour=flavour), delay=0.01)
    frames = stream_of(pieces, model=model, flavour=flavour, usage=False)
    asked = bool((request.get("stream_options") or {}).get("include_usage"))
    if flavour == "chutes" or asked:
        frames.insert(-1, sse(usage_chunk(counted_prompt(request), fake_tokens(text),
                                          model=model)))
    return Reply(frames)


def scenario_for(model: str, request: dict[str, Any], flavour: str) -> Reply:
    """Faults chosen by model name, for subprocess tests and trying the app by hand."""
    answered = tool_result_reply(request, flavour=flavour) or tools_scenario(model, request)
    if answered is not None:
        return answered
    words = [f"word{i} " for i in range(20)]
    scenarios: dict[str, Reply] = {
        "fault/stall": Reply(stream_of(words, model=model), stall_after=6),
        "fault/drop": Reply(stream_of(words, model=model), drop_after=6),
        "fault/no-done": Reply(stream_of(words, model=model, finish_reason=None, done=False)),
        "fault/401": Reply.error(401, {"detail": "Invalid token."}),
        "fault/402": Reply.error(402, {"detail": {"message": "Quota exceeded."}}),
        "fault/404": Reply.error(404, {"detail": "model not found"}),
        "fault/429": Reply.error(429, {"detail": "Infrastructure is at capacity."},
                                 **{"Retry-After": "0"}),
        "fault/500": Reply.error(500, {"error": {"message": "internal error"}}),
        "fault/502": Reply.error(502, "<html><body><h1>502 Bad Gateway</h1></body></html>"),
        "fault/json": Reply(status=200, content_type="application/json",
                            body=json.dumps({"id": "x", "choices": []}).encode()),
        "fault/garbage": Reply([*stream_of(words[:5], model=model, done=False, usage=False,
                                           finish_reason=None), b"data: {not json\n\n"]),
        "slow/long": Reply(stream_of([f"token{i} " for i in range(400)], model=model),
                           delay=0.02),
    }
    if model.startswith(("bench/markdown-", "bench/fence-", "bench/paced-")):
        from benchmarks.textgen import scenario  # the UI benchmarks' replies (see there)

        generated = scenario(model)
        if generated is not None:
            pieces, delay = generated
            return Reply(stream_of(pieces, model=model), delay=delay)
    if model.startswith("bench/"):  # bench/N: N content events at full speed
        count = int(model.split("/", 1)[1])
        return Reply(stream_of([f"tok{i} " for i in range(count)], model=model))
    return scenarios.get(model) or echo_reply(request, flavour)


MODELS_LIST = {
    "object": "list",
    "data": [
        {"id": "deepseek-ai/DeepSeek-V3-0324", "object": "model", "context_length": 163840,
         "pricing": {"prompt": 0.27, "completion": 1.1}},
        {"id": "deepseek-ai/DeepSeek-R1", "object": "model", "context_length": "163840"},
        {"id": "Qwen/Qwen3-235B-A22B", "object": "model"},
    ],
}


PRICED_MODELS = {
    "object": "list",
    "data": [
        {"id": "fake/small", "object": "model", "context_length": 2048,
         "max_model_len": 2048, "pricing": {"prompt": "0.5", "completion": "2"},
         "input_modalities": ["text"]},
        {"id": "fake/large", "object": "model", "context_length": 131072,
         "price": {"input": {"tao": 0.001, "usd": 0.25}, "output": {"tao": 0.004, "usd": 1.0}},
         "input_modalities": ["text", "image"]},
        {"id": "fake/unpriced", "object": "model", "context_length": "32768"},
    ],
}
"""Models with windows, prices (in both of Chutes' spellings) and input modalities, for
`FakeProvider.models_list`."""


class _QuietServer(ThreadingHTTPServer):
    tls: ssl.SSLContext | None = None

    def handle_error(self, request: object, client_address: object) -> None:
        """Clients that hang up mid-request are part of the tests; no tracebacks for them."""

    def get_request(self) -> tuple[socket.socket, Any]:
        """With `tls`, each connection is wrapped; its handshake runs in the handler's thread
        (at its first read), so a client that refuses the certificate stalls nobody else."""
        connection, address = super().get_request()
        if self.tls is not None:
            connection = self.tls.wrap_socket(connection, server_side=True,
                                              do_handshake_on_connect=False)
        return connection, address


class FakeProvider:
    """Start with `with FakeProvider() as server:`; `server.url` is the base URL."""

    def __init__(self, flavour: str = "chutes", port: int = 0, prefix: str = "/v1",
                 tls: ssl.SSLContext | None = None) -> None:
        """`tls`: serve HTTPS with this server-side context (`url` is then https://)."""
        self.flavour = flavour
        self.prefix = prefix
        self.requests: list[Recorded] = []
        self.models_list: dict[str, Any] = MODELS_LIST
        """What GET /models answers (Chutes flavour)."""
        self.models_refusal: tuple[int, dict[str, Any]] | None = None
        """(status, JSON body) that GET /models answers instead of the list."""
        self.models_status = 200
        """Another status makes GET /models answer it with an error body (any flavour)."""
        self.count_usage = False
        """Echo replies report the usage the fake counts for their request (`echo_reply`)."""
        self.usage_when_asked = False
        """Usage chunks are sent only to a request that asked for them
        (`stream_options.include_usage`), as Chutes' API description says."""
        self.reject_stream_options = False
        """A request with `stream_options` gets a 400, as from a server that does not know it."""
        self.strict_roles = True
        """A request whose roles do not alternate (`roles_problem`) gets vLLM's 400, as a
        strict chat template (Gemma's) answers it."""
        self.windows: dict[str, int] = {}
        """Model -> its window: a request whose prompt (as the fake counts it) and
        `max_tokens` do not fit, or whose `max_tokens` is the window itself, gets a 400."""
        self._queue: collections.deque[Reply] = collections.deque()
        self._lock = threading.Lock()
        self.open_connections = 0
        self._stop = threading.Event()
        self._httpd = _QuietServer(("127.0.0.1", port), self._handler_class())
        self._httpd.daemon_threads = True
        self._httpd.tls = tls
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        scheme = "https" if self._httpd.tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self._httpd.server_address[1]}{self.prefix}"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def clear_script(self) -> None:
        with self._lock:
            self._queue.clear()

    def next_reply(self, request: dict[str, Any]) -> Reply:
        refused = self._refusal(request)
        if refused is not None:
            return refused
        reply = self._scripted_or_scenario(request)
        asked = bool((request.get("stream_options") or {}).get("include_usage"))
        if self.usage_when_asked and not asked:
            reply = dataclasses.replace(reply, frames=[
                frame for frame in reply.frames if b'"choices": [], "usage"' not in frame])
        return reply

    def _scripted_or_scenario(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.count_usage and not str(request.get("model", "")).startswith(
                ("fault/", "slow/", "bench/")):
            return echo_reply(request, self.flavour, counted=True)
        return scenario_for(str(request.get("model", "")), request, self.flavour)

    def _refusal(self, request: dict[str, Any]) -> Reply | None:
        if self.reject_stream_options and "stream_options" in request:
            return Reply.error(400, {"detail": "Unknown parameter: stream_options"})
        if self.strict_roles and (problem := roles_problem(request)) is not None:
            return Reply.error(400, {"object": "error", "message": problem,
                                     "type": "BadRequestError", "param": None, "code": 400})
        window = self.windows.get(str(request.get("model", "")))
        max_tokens = request.get("max_tokens")
        if window is not None and isinstance(max_tokens, int):
            prompt = counted_prompt(request)
            if max_tokens >= window or prompt + max_tokens > window:
                return Reply.error(400, {"detail": (
                    f"This model's maximum context length is {window} tokens. However, you "
                    f"requested {prompt + max_tokens} tokens ({prompt} in the messages, "
                    f"{max_tokens} in the completion).")})
        return None

    def wait_for_idle(self, timeout: float = 30.0) -> bool:
        """True once no response is being written (used to assert nothing leaked). `timeout`
        only turns a leak into a failure: a passing test returns as soon as it is idle."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.open_connections == 0:
                return True
            time.sleep(0.01)
        return False

    def __enter__(self) -> FakeProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _record(self, body: Any) -> None:
                server.requests.append(Recorded(
                    self.command, self.path, {k.lower(): v for k, v in self.headers.items()},
                    body,
                ))

            def do_GET(self) -> None:
                self._record(None)
                if self.path == f"{server.prefix}/models" and server.models_refusal:
                    status, body = server.models_refusal
                    self._send_body(status, "application/json", json.dumps(body).encode())
                elif self.path == f"{server.prefix}/models" and server.models_status != 200:
                    self._send_body(server.models_status, "application/json",
                                    json.dumps({"detail": "Unauthorized"}).encode())
                elif self.path == f"{server.prefix}/models" and server.flavour == "chutes":
                    self._send_body(200, "application/json",
                                    json.dumps(server.models_list).encode())
                else:
                    self._send_body(404, "application/json",
                                    json.dumps({"detail": "Not Found"}).encode())

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                try:
                    request = json.loads(raw)
                except ValueError:
                    request = {}
                self._record(request)
                if self.path != f"{server.prefix}/chat/completions":
                    self._send_body(404, "application/json", b'{"detail": "Not Found"}')
                    return
                reply = server.next_reply(request)
                with server._lock:
                    server.open_connections += 1
                try:
                    self._serve(reply)
                except OSError:
                    pass  # the client went away: that is what some tests do on purpose
                finally:
                    with server._lock:
                        server.open_connections -= 1

            def _send_body(self, status: int, content_type: str, body: bytes,
                           headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()

            def _serve(self, reply: Reply) -> None:
                if reply.first_byte_delay:
                    time.sleep(reply.first_byte_delay)
                if reply.status != 200 or reply.content_type != "text/event-stream":
                    self._send_body(reply.status, reply.content_type, reply.body, reply.headers)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream; charset=utf-8")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Transfer-Encoding", "chunked")
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                for index, frame in enumerate(reply.frames):
                    held = [gate for at, gate in reply.gates if at == index]
                    if reply.gate is not None and index == reply.gate_after:
                        held.append(reply.gate)
                    for gate in held:
                        # A test's own moment (settings saved mid-reply, say), not a time.
                        while not gate.wait(0.05) and not server._stop.is_set():
                            pass
                    if reply.stall_after is not None and index == reply.stall_after:
                        self._hold(reply.stall_seconds)
                        self.close_connection = True
                        return
                    if reply.drop_after is not None and index == reply.drop_after:
                        self.connection.shutdown(socket.SHUT_RDWR)
                        self.close_connection = True
                        return
                    if reply.piece_size and index >= reply.pieces_after:
                        self._write_in_pieces(frame, reply.piece_size, reply.piece_delay)
                        continue
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))
                    self.wfile.flush()
                    if reply.delay:
                        time.sleep(reply.delay)
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def _write_in_pieces(self, frame: bytes, size: int, delay: float) -> None:
                for start in range(0, len(frame), size):
                    if server._stop.is_set():
                        return
                    piece = frame[start:start + size]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                    time.sleep(delay)

            def _hold(self, seconds: float) -> None:
                """Send nothing for `seconds`, but stop as soon as the client hangs up, so
                `open_connections` tells whether the client closed its end."""
                deadline = time.monotonic() + seconds
                while not server._stop.is_set() and time.monotonic() < deadline:
                    readable, _, _ = select.select([self.connection], [], [], 0.05)
                    if readable and not self.connection.recv(1, socket.MSG_PEEK):
                        return

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description="Loopback fake of the Chutes/SUTRA SSE API.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--flavour", choices=["chutes", "sutra"], default="chutes")
    args = parser.parse_args()
    with FakeProvider(args.flavour, args.port) as server:
        print(f"serving {args.flavour} at {server.url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
