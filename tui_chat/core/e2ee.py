"""End-to-end encryption to the GPU instance that runs a Chutes model (issue 27).

Design. The cryptography is Chutes' own, the `chutes-e2ee` package: an httpx transport that
resolves the model's chute (`/v1/models`' `chute_id`), takes a single-use nonce and the
instance's ML-KEM-768 key from `GET /e2e/instances/{chute_id}`, encrypts the gzipped request
(ML-KEM-768 + HKDF-SHA256 + ChaCha20-Poly1305), posts it to `/e2e/invoke`, and turns the
encrypted stream (`e2e_init`, `e2e` events; `usage` and `e2e_error` plain) back into standard
`data: {...}` lines. So the client's parser and the drawing see the same events as ever.

`PrivateTransport` wraps that transport and the ordinary network transport, and decides per
request with the mode (`off` | `auto` | `required`, from the provider's config, or a
conversation's own choice in the request's `MODE` extension):
- `off`, or a request that is not a chat request: straight to the network, as before.
- `auto` / `required`: through chutes-e2ee. Its discovery runs before anything is posted to
  /e2e/invoke; when it says no (the model is not a chute, the chute has no E2EE instance,
  no nonce), `auto` sends the request in plain text and `required` raises `E2EERefused`: one
  sentence, and nothing with the prompt in it has been sent. A listing that fails with a
  server error or a rate limit is no answer: either mode stops there (`ServerError`).
- A routing pool (`model="a,b:latency"`, tui_chat.core.routing) is answered by whichever
  model Chutes picks, and an encrypted request is sealed for one model's instance: `auto`
  sends a pool in plain text, `required` refuses it.
- Nonces: chutes-e2ee takes each once from a pool per chute and lists again when the pool is
  used up or expired; here a pool counts as expired some seconds early (the instance counts
  from when it issued them), and an invoke the instance refuses (a nonce or key it does not
  know: it restarted) drops the pools and is sent once more, encrypted, from a new listing.
- A response that went encrypted carries `SENT_AS` = "end-to-end" in its extensions; a chunk
  that fails to decrypt (changed on the way, the wrong key) ends the stream with one sentence
  (`ProtocolError`), and what arrived before it is kept.

What it is not: the TEE's attestation is not verified here. The `TEE` badge only repeats
`/v1/models`' `confidential_compute` flag.
"""

from __future__ import annotations

import contextlib
import weakref
from binascii import Error as _Base64Error
from binascii import a2b_base64 as _a2b_base64
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Literal, get_args

import httpx

from tui_chat.core.errors import ExitCode, ProtocolError, ProviderError, ServerError
from tui_chat.core.protection import END_TO_END, is_research_proxy, research_warning
from tui_chat.core.routing import is_pool

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    from tui_chat.core.client import ProviderClient
    from tui_chat.core.config import Timeouts
    from tui_chat.core.providers import Provider
    from tui_chat.core.transport import ProxyChoice

E2EEMode = Literal["off", "auto", "required"]
E2EE_MODES: tuple[str, ...] = get_args(E2EEMode)
MODE = "tui_chat.e2ee"
"""The request extension that carries a conversation's own mode (over the provider's)."""
SENT_AS = "tui_chat.sent_as"
"""The response extension that says how a reply came: "end-to-end", or absent (plain)."""
CHOSEN_MODEL = "tui_chat.chosen_model"
"""The response extension naming the model a routing pool chose (`x-chutes-chosen-model`)."""


class E2EERefused(ProviderError):
    """`required` and a model or instance that cannot take an encrypted request: nothing sent."""

    exit_code = ExitCode.REQUEST


def checked_mode(value: object) -> E2EEMode:
    """`value` as a mode, or ValueError with the sentence to show."""
    if value in E2EE_MODES:
        return value  # type: ignore[return-value]
    raise ValueError(f"e2ee must be one of {', '.join(E2EE_MODES)}, not {value!r}")


def api_base_for(base_url: str) -> str:
    """Where /e2e/… and the chute listing live: the chat base URL without its /v1."""
    base = base_url.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


def refusal(display_name: str, model: str, reason: str) -> E2EERefused:
    return E2EERefused(
        f"{model} on {display_name} cannot take an end-to-end encrypted request ({reason}), "
        "and e2ee is \"required\", so nothing was sent: pick a model whose chute supports "
        "E2EE, or set e2ee to \"auto\" to send this one in plain text.")


def private_transport(provider: Provider, api_key: str | None, timeouts: Timeouts, *,
                      proxy: ProxyChoice | None, transport: httpx.AsyncBaseTransport | None,
                      env: Mapping[str, str] | None) -> PrivateTransport | None:
    """The transport that encrypts `provider`'s chat requests: for Chutes (the built-in), or
    any provider whose config turns E2EE on; a conversation chooses per request. None for the
    others. `transport` (tests): the way there instead of the network."""
    if (provider.spec.e2ee == "off" and provider.name != "chutes") or not api_key:
        return None
    from tui_chat.core.transport import network_transport

    network = transport or network_transport(provider, proxy=proxy, env=env)
    timeout = {"connect": timeouts.connect, "read": timeouts.first_byte,
               "write": timeouts.connect, "pool": timeouts.connect}
    return PrivateTransport(display_name=provider.display_name, api_key=api_key,
                            base_url=provider.base_url, mode=checked_mode(provider.spec.e2ee),
                            network=network, timeout=timeout)


def e2ee_extensions(client: ProviderClient, model: str,
                    mode: E2EEMode | None) -> dict[str, Any] | None:
    """The request's extensions for a conversation's own `mode`. A provider without the
    transport (not Chutes, and its config leaves e2ee off): "required" is refused here,
    before anything is sent; "auto" goes plain."""
    if mode is None or mode == "off":
        return {MODE: "off"} if mode == "off" else None
    provider = client.provider
    if client.private is None:
        if mode == "required":
            raise refusal(provider.display_name, model, "only Chutes offers it; for a "
                          f"provider that does, set e2ee under [providers.{provider.name}]")
        return None
    return {MODE: mode}


def _reason(error: BaseException) -> str:
    if isinstance(error, httpx.HTTPStatusError):
        path = error.request.url.path
        if "/e2e/instances/" in path:
            if error.response.status_code == 404:
                return "no running instance of it offers E2EE: its instance list answered 404"
            return f"its instance list answered {error.response.status_code}"
        return f"{path} answered {error.response.status_code}"
    if isinstance(error, ValueError) and "resolve model" in str(error):
        return "it is not a chute in the provider's model list"
    if isinstance(error, RuntimeError) and "nonces" in str(error):
        return "no running instance offers E2EE"
    return f"the instance's key or nonce could not be used: {type(error).__name__}"


def _busy(error: BaseException) -> bool:
    """A server error or rate limit while listing: it says nothing about E2EE support."""
    return isinstance(error, httpx.HTTPStatusError) and (
        error.response.status_code >= 500 or error.response.status_code == 429)


def _is_chat(request: httpx.Request) -> bool:
    return request.method == "POST" and request.url.path.rstrip("/").endswith(
        "/chat/completions")


class PrivateTransport(httpx.AsyncBaseTransport):
    """An httpx async transport (see the module docstring). `network`: the ordinary way to the
    provider (proxy and TLS settings applied); `timeout`: httpx's timeout extension for the
    requests chutes-e2ee makes itself (it sets none on /e2e/invoke)."""

    def __init__(self, *, display_name: str, api_key: str, base_url: str, mode: E2EEMode,
                 network: httpx.AsyncBaseTransport, timeout: dict[str, float]) -> None:
        from chutes_e2ee import AsyncChutesE2EETransport

        self.display_name = display_name
        self.mode = mode
        self._key = api_key  # only to keep it out of an error's text
        self._research = (research_warning(display_name, base_url)
                          if is_research_proxy(base_url) else None)
        self.network = self._network = network
        self._timed = _Timed(network, timeout)
        self._private = AsyncChutesE2EETransport(
            api_key=api_key, api_base=api_base_for(base_url), inner=self._timed)
        # chutes-e2ee 0.1.0 keeps its nonce pools in `_discovery` (as pinned): one that stops
        # using a pool some seconds before it expires (`_EarlyExpiry`).
        self._private._discovery = _early_expiry(api_base_for(base_url), api_key)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        mode = request.extensions.get(MODE) or self.mode
        if mode == "off" or not _is_chat(request):
            return _with_chosen_model(await self._network.handle_async_request(request))
        if mode == "required" and self._research is not None:
            raise E2EERefused(f"{self._research} With e2ee \"required\", nothing was sent.")
        if is_pool(model := _model_of(request)):
            if mode == "required":
                raise refusal(self.display_name, model, "it is a routing pool: Chutes picks the "
                              "model that answers, and an encrypted request is sealed for one "
                              "model's instance")
            return _with_chosen_model(await self._network.handle_async_request(request))
        response, encrypted = await self._encrypted(request, mode)
        if encrypted and response.status_code in _STALE_POOL:
            # The instance refused the nonce or its key (it restarted, the nonce expired on
            # the way): nothing ran. Once more, with a nonce from a new listing.
            await response.aclose()
            self._forget_pools()
            response, encrypted = await self._encrypted(request, mode)
            if encrypted and response.status_code in _REFUSED:
                raise await self._refused_twice(request, response)
            # A 400 again is the request's own (a parameter refused): the client's to handle.
        if encrypted and response.status_code == 200:
            self._timed.restore_headers(response)
            response.stream = _Decrypting(response.stream, self.display_name)
            response.extensions = {**response.extensions, SENT_AS: END_TO_END}
        return _with_chosen_model(response)

    async def _refused_twice(self, request: httpx.Request,
                             response: httpx.Response) -> ServerError:
        from tui_chat.core.chunks import provider_message
        from tui_chat.core.text import one_line

        try:
            body = (await response.aread())[:4096].decode("utf-8", errors="replace")
        except httpx.HTTPError:
            body = ""
        finally:
            await response.aclose()
        detail = one_line((provider_message(body) or "").replace(self._key, "…"), 120)
        said = f"{response.status_code}: {detail}" if detail else str(response.status_code)
        return ServerError(
            f"The instance running {_model_of(request)} on {self.display_name} refused the "
            f"encrypted request twice ({said}), so nothing ran: try again in a moment.")

    def _forget_pools(self) -> None:
        cache = getattr(getattr(self._private, "_discovery", None), "_nonce_cache", None)
        if isinstance(cache, dict):
            cache.clear()

    async def _encrypted(self, request: httpx.Request,
                         mode: E2EEMode) -> tuple[httpx.Response, bool]:
        """The request through chutes-e2ee, and True; or, when `mode` is auto and the model
        cannot take it, sent in plain text, and False."""
        try:
            return await self._private.handle_async_request(request), True
        except httpx.TransportError:
            raise
        except (httpx.HTTPStatusError, ValueError, RuntimeError, KeyError, TypeError) as error:
            # Discovery or the request's encryption failed: nothing was posted to /e2e/invoke.
            if _busy(error):  # not an answer about E2EE: never a reason to send in plain text
                raise ServerError(
                    f"{self.display_name} could not list the model's encrypted instances "
                    f"({_reason(error)}), so nothing was sent. Try again shortly.") from None
            if mode == "required":
                model = _model_of(request)
                raise refusal(self.display_name, model, _reason(error)) from None
        return await self._network.handle_async_request(request), False

    async def aclose(self) -> None:
        await self._private.aclose()  # closes the network transport too


_STALE_POOL = frozenset({400, 403, 404, 410})
"""What /e2e/invoke answers when the instance does not take the nonce or the key it was
sent with: the pool may be stale (tui_chat.core.e2ee.PrivateTransport). A 400 may also be
the request's own fault (a parameter refused), so a second one goes to the client."""
_REFUSED = _STALE_POOL - {400}
"""Answered again after a new listing: the instance refuses the request, one sentence."""
_EXPIRY_MARGIN = 10.0
"""Seconds before a nonce pool's expiry when it is no longer used (`_EarlyExpiry`)."""


def _early_expiry(api_base: str, api_key: str) -> Any:
    """chutes-e2ee's DiscoveryManager, counting a pool expired `_EXPIRY_MARGIN` seconds
    early: its expiry is counted from when the listing arrived, the instance's from when it
    issued the nonces, and a nonce still has to travel to the instance."""
    from chutes_e2ee.discovery import DiscoveryManager, DiscoveryResult

    class _EarlyExpiry(DiscoveryManager):
        async def _fetch_instances_async(self, chute_id: str,
                                         client: httpx.AsyncClient) -> DiscoveryResult:
            found = await super()._fetch_instances_async(chute_id, client)
            return DiscoveryResult(instances=found.instances,
                                   nonce_expires_at=found.nonce_expires_at - _EXPIRY_MARGIN)

    return _EarlyExpiry(api_base=api_base, api_key=api_key)


def _with_chosen_model(response: httpx.Response) -> httpx.Response:
    """A routing pool's choice, from its header, as a one-line name (an untrusted value)."""
    from tui_chat.core.text import one_line

    chosen = response.headers.get("x-chutes-chosen-model")
    if chosen and (name := one_line(chosen, 200)):
        response.extensions = {**response.extensions, CHOSEN_MODEL: name}
    return response


def _model_of(request: httpx.Request) -> str:
    import json

    try:
        model = json.loads(request.content).get("model")
    except (ValueError, AttributeError):
        model = None
    return str(model) if model else "The model"


_CHUTES_HEADERS = "x-chutes-"
"""The start of the headers of an /e2e/invoke answer that are kept for the reply."""


class _Timed(httpx.AsyncBaseTransport):
    """The network transport, with `timeout` on requests that carry no timeout of their own.

    It also keeps Chutes' own headers of each /e2e/invoke answer (`x-chutes-quota-…`,
    `x-chutes-chosen-model`): chutes-e2ee 0.1.0 hands back a response of its own carrying
    only a content type, so `restore_headers` puts them back on it. Kept by the answer's body
    stream (which chutes-e2ee's response wraps as `_raw_stream`), so that replies streaming
    side by side (a comparison) each get their own."""

    def __init__(self, inner: httpx.AsyncBaseTransport, timeout: dict[str, float]) -> None:
        self._inner = inner
        self._timeout = timeout
        self._headers: weakref.WeakKeyDictionary[object, list[tuple[str, str]]] = (
            weakref.WeakKeyDictionary())

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.extensions = {"timeout": self._timeout, **request.extensions}
        response = await self._inner.handle_async_request(request)
        if response.status_code == 200 and request.url.path.endswith("/e2e/invoke"):
            kept = [(name, value) for name, value in response.headers.items()
                    if name.lower().startswith(_CHUTES_HEADERS)]
            if kept:
                with contextlib.suppress(TypeError):  # a stream that takes no weak reference
                    self._headers[response.stream] = kept
        return response

    def restore_headers(self, response: httpx.Response) -> None:
        """Put the invoke answer's Chutes headers back on chutes-e2ee's `response`."""
        raw = getattr(response.stream, "_raw_stream", None)
        if raw is None:
            return
        try:
            kept = self._headers.pop(raw, None)
        except TypeError:
            return
        for name, value in kept or ():
            if name not in response.headers:
                response.headers[name] = value

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Decrypting(httpx.AsyncByteStream):
    """The reply, decrypted with chutes-e2ee's key (`decrypt_stream_init`), framed by network
    read rather than by line. chutes-e2ee 0.1.0's stream parses each event with json, makes a
    new cipher object for each chunk, yields each decrypted event apart and splits its buffer
    once per line (a copy of the rest each time): a 20,000-chunk reply cost the client twice
    the CPU of the plain one (benchmarks/bench_e2ee.py). Here each read's complete lines are
    decrypted together and handed on as one piece (`_decrypted`), with the same rules as
    chutes-e2ee's `_process_sse_line`: `data:` lines only; `e2e_init` sets the key, `e2e` is
    decrypted, `usage` passes as it came, `e2e_error` becomes `{"error": …}`, `[DONE]`
    passes; other lines are dropped.

    A chunk that fails to decrypt (changed on the way, the wrong key) ends the stream with
    one sentence; what arrived before it has been handed on."""

    def __init__(self, stream: Any, display_name: str) -> None:
        self._stream = stream
        self._name = display_name
        # chutes-e2ee's stream keeps the encrypted body and the reply's key here (0.1.0, as
        # pinned); another shape is read through its own iterator.
        raw, secret = getattr(stream, "_raw_stream", None), getattr(stream, "_response_sk", None)
        self._source = (_decrypted(raw, secret, display_name)
                        if raw is not None and isinstance(secret, bytes)
                        else _checked(stream, display_name))

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._source  # no generator of its own: one hop less for each piece

    async def aclose(self) -> None:
        await self._stream.aclose()


def _binascii_strict(text: bytes, altchars: None = None, validate: bool = True) -> bytes:
    return _a2b_base64(text, strict_mode=True)


_Decode = Callable[[bytes, None, bool], bytes]
"""A strict base64 decoder called as (text, None, True): binascii.Error for anything but
the alphabet with its padding at the end."""


def _strict_decoder() -> _Decode:
    """pybase64's (SIMD), imported when a reply first needs it; binascii's where it is
    missing (a dependency: the same result, slower)."""
    try:
        from pybase64 import b64decode
    except ImportError:  # pragma: no cover
        return _binascii_strict
    return b64decode

_SEALED_HEAD, _SEALED_TAIL = b'data: {"e2e": "', b'"}'
_SEALED_END = _SEALED_TAIL + b"\n\n"


def _unreadable(display_name: str, error: BaseException) -> ProtocolError:
    from cryptography.exceptions import InvalidTag

    what = ("failed to decrypt (changed on the way, or the wrong key)"
            if isinstance(error, InvalidTag) else "could not be read")
    return ProtocolError(
        f"A piece of the encrypted reply from {display_name} {what}, so the reply stops "
        "there; what arrived before it is kept. Try again.")


async def _checked(stream: AsyncIterator[bytes], display_name: str) -> AsyncIterator[bytes]:
    """Another chutes-e2ee's own decrypted stream, its failures as one sentence."""
    from cryptography.exceptions import InvalidTag

    try:
        async for piece in stream:
            yield piece
    except (InvalidTag, ValueError, RuntimeError, KeyError, TypeError) as error:
        raise _unreadable(display_name, error) from None


async def _decrypted(raw: AsyncIterator[bytes], secret: bytes,
                     display_name: str) -> AsyncIterator[bytes]:
    """See `_Decrypting`. The key comes from chutes-e2ee's `decrypt_stream_init`; each chunk
    is opened as its `decrypt_stream_chunk` does (base64 of nonce(12) | ciphertext | tag), with
    one ChaCha20Poly1305 for the whole reply rather than one a chunk. A chunk event in the
    shape Chutes sends, `data: {"e2e": "…"}` with nothing but strict base64 between the
    quotes, is read without a JSON parser: strict base64 holds no quote, backslash or line
    break, so that string is the one JSON would give, and one C pass checks it (three
    searches and a count of the line breaks cost more than the decoding). Anything else goes
    through JSON and the package's own lenient base64 (`_other_event`). The base64 is
    pybase64's (SIMD): in the benchmark binascii's took about as long as the decryption."""
    from cryptography.exceptions import InvalidTag

    aead: ChaCha20Poly1305 | None = None
    # Names the loop uses once a chunk, as locals (it runs once per token).
    b64decode, base64_error, head, end = _strict_decoder(), _Base64Error, _SEALED_HEAD, _SEALED_END
    start, stop = len(head), -len(end)
    rest = b""
    try:
        async for data in raw:
            # The common read: one whole chunk event in Chutes' shape, nothing else.
            if aead is not None and not rest and data.startswith(head) and data.endswith(end):
                try:
                    box = b64decode(data[start:stop], None, True)
                except base64_error:
                    pass  # not Chutes' shape after all: read line by line below
                else:
                    yield aead.decrypt(box[:12], box[12:], None) + b"\n\n"
                    continue
            lines = (rest + data).split(b"\n") if rest else data.split(b"\n")
            rest = lines.pop()
            out: list[bytes] = []
            for line in lines:
                line = line.rstrip(b"\r")
                if (aead is not None and line.startswith(_SEALED_HEAD)
                        and line.endswith(_SEALED_TAIL)):
                    opened = _strict_base64(line[len(_SEALED_HEAD):-len(_SEALED_TAIL)],
                                            b64decode)
                    if opened is not None:
                        out.append(aead.decrypt(opened[:12], opened[12:], None) + b"\n\n")
                        continue
                if line.startswith(b"data: "):
                    piece, aead = _other_event(line, secret, aead)
                    if piece:
                        out.append(piece)
            if out:
                yield b"".join(out)
    except (InvalidTag, ValueError, RuntimeError, KeyError, TypeError) as error:
        raise _unreadable(display_name, error) from None


def _strict_base64(text: bytes, b64decode: _Decode) -> bytes | None:
    """`text` decoded when it is strict base64 (the alphabet, padding only at the end), else
    None."""
    try:
        return b64decode(text, None, True)
    except _Base64Error:
        return None


def _other_event(line: bytes, secret: bytes, aead: ChaCha20Poly1305 | None
                 ) -> tuple[bytes, ChaCha20Poly1305 | None]:
    """A `data:` line other than a chunk in Chutes' own shape: what to hand on ("" for
    nothing), and the cipher (made by `e2e_init`)."""
    import base64
    import json

    from chutes_e2ee.crypto import decrypt_stream_init
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    body = line[6:].strip()
    if body == b"[DONE]":
        return b"data: [DONE]\n\n", aead
    try:
        event = json.loads(body) if body else None
    except ValueError:
        return b"", aead
    if not isinstance(event, dict):
        return b"", aead
    if "e2e_init" in event:
        return b"", ChaCha20Poly1305(decrypt_stream_init(secret, event["e2e_init"]))
    if "e2e" in event:
        if aead is None:
            raise RuntimeError("Received e2e chunk before e2e_init")
        box = base64.b64decode(event["e2e"])
        return aead.decrypt(box[:12], box[12:], None) + b"\n\n", aead
    if "usage" in event:  # in plain text, as it came
        return line + b"\n\n", aead
    if "e2e_error" in event:
        return b"data: " + json.dumps({"error": event["e2e_error"]}).encode() + b"\n\n", aead
    return b"", aead
