"""The streaming client for OpenAI-compatible providers: POST /chat/completions, stream: true.

One `ProviderClient` per provider keeps one `httpx.AsyncClient` (a keep-alive pool). Retries
happen only before the first event is yielded, so text is never duplicated.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Mapping,
    Sequence,
)
from typing import Any

import httpx

from tui_chat import __version__
from tui_chat.core import dialect, network_errors, secrets
from tui_chat.core.attachments import wire_content
from tui_chat.core.chunks import (
    ChatCompletion,
    ChatCompletionChunk,
    ChunkDelta,
    NotAChunk,
    message_from_json,
    model_info_from,
    parse_chunk,
    parse_completion,
    provider_message,
    usage_event,
)
from tui_chat.core.config import Timeouts
from tui_chat.core.e2ee import (
    CHOSEN_MODEL,
    SENT_AS,
    E2EEMode,
    e2ee_extensions,
    private_transport,
)
from tui_chat.core.errors import (
    Hint,
    InvalidKeyError,
    InvalidURLError,
    ProtocolError,
    ProviderError,
    ServerError,
    StreamInterruptedError,
    StreamTimeoutError,
)
from tui_chat.core.events import (
    ContentDelta,
    FinishReason,
    ModelChosen,
    ReasoningDelta,
    RetryScheduled,
    SentAs,
    StreamDone,
    StreamEvent,
    ToolCallDelta,
)
from tui_chat.core.models import ChatMessage, ModelInfo, Parameters
from tui_chat.core.provider_errors import (
    classify_status,
    describe,
    preview,
    retry_after_seconds,
    with_detail,
)
from tui_chat.core.providers import Provider
from tui_chat.core.quota import Quota, QuotaBook, quota_from
from tui_chat.core.read_pacing import PacingClock, ReadPacing
from tui_chat.core.reasoning import ReasoningSplitter
from tui_chat.core.routing import is_pool
from tui_chat.core.sse import SSEEvent, SSEParser, StrayLine
from tui_chat.core.transport import build_http_client, proxy_for
from tui_chat.core.watchdog import IdleWatchdog, WatchdogClock

Sleep = Callable[[float], Awaitable[None]]
_MAX_ERROR_BODY = 64 * 1024
_MAX_WHOLE_BODY = 16 * 2**20
"""A 200 JSON body (a whole reply, from a provider that does not stream) is read up to this."""
_MAX_RETRY_AFTER = 120.0
_DRAIN_SECONDS = 0.25
_REJECTED_PARAMETERS = (400, 422)


def wire_message(m: ChatMessage) -> dict[str, Any]:
    """One message as the request sends it: role and content, and an assistant message's
    calls or a `tool` message's call id."""
    wire: dict[str, Any] = {"role": m.role.value, "content": m.content if not m.attachments
                            else wire_content(m.text, m.attachments, takes_images=False)}
    if m.tool_calls:
        wire["content"] = m.content or None
        wire["tool_calls"] = [{"id": call.id, "type": "function",
                               "function": {"name": call.name, "arguments": call.arguments}}
                              for call in m.tool_calls]
    if m.tool_call_id is not None:
        wire["tool_call_id"] = m.tool_call_id
    return wire


class ProviderClient:
    """Talks to one provider. Use as an async context manager, or call `aclose()`."""

    def __init__(
        self,
        provider: Provider,
        api_key: str | None,
        *,
        timeouts: Timeouts | None = None,
        max_retries: int = 3,
        backoff_base: float = 1.0,
        sleep: Sleep = asyncio.sleep,
        transport: httpx.AsyncBaseTransport | None = None,
        coalesce: float = 0.0,
        env: Mapping[str, str] | None = None,
        pacing_clock: PacingClock | None = None,
        watchdog_clock: WatchdogClock | None = None,
        refusals: dialect.UsageRefusals | None = None,
        quota_book: QuotaBook | None = None,
    ) -> None:
        """`coalesce`: while tokens trickle in, wait until this many seconds have passed since
        the previous read before reading again, so the tokens that arrived meanwhile come in
        one read (see read_pacing: each read costs the same whatever its size, about 0.5 ms
        of CPU here through httpx, anyio and the event loop, so at 100 tokens a second this
        is most of a client's CPU). An app that draws a few times a second loses nothing by
        reading every 0.1 s; `ask`, which prints each token as it comes, keeps 0. A fast
        stream is not slowed: a pause it fills with more than a trickle ends the trickle.

        `env`: where the proxy variables and SSL_CERT_FILE / SSL_CERT_DIR are read (default
        os.environ; see tui_chat.core.transport).

        `pacing_clock`: the time that `coalesce` measures reads and pauses in (default the
        event loop's); a test gives a clock it controls, so that what is read together does
        not depend on how fast the machine is.

        `watchdog_clock`: the time the read timeout is measured and armed in (default the
        event loop's; see tui_chat.core.watchdog), for the same reason.

        `refusals`: where a refusal of `stream_options` is remembered (shared by a
        workspace's clients; default: this client's own).

        `quota_book`: where the quota a response reports is written (tui_chat.core.quota;
        default the state directory's); `self.quota` is the last one, None until then."""
        self.provider = provider
        self.quota: Quota | None = None
        self._quota_book = quota_book
        self._dialect = provider.spec.dialect
        self.refusals = refusals if refusals is not None else dialect.UsageRefusals()
        self.coalesce = coalesce
        self._pacing_clock = pacing_clock
        self._watchdog_clock = watchdog_clock
        secrets.remember(api_key)
        problem = secrets.key_problem(api_key) if api_key else None
        if problem is not None:  # config resolution refuses these first; never send one
            raise InvalidKeyError(f"The API key for {provider.display_name} {problem}; copy "
                                  "the key again from the provider's site.")
        self._api_key = api_key
        self.timeouts = timeouts or Timeouts()
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self._sleep = sleep
        headers = {"User-Agent": f"tui-chat/{__version__}", **provider.spec.headers}
        # Proxy, TLS and timeouts: tui_chat.core.transport (raises ConfigError for a proxy or
        # CA file that cannot be used).
        self.proxy = None if transport is not None else proxy_for(provider, env)
        # End-to-end encryption wraps the way there (tui_chat.core.e2ee); None: not for it.
        self.private = private_transport(provider, api_key, self.timeouts, proxy=self.proxy,
                                         transport=transport, env=env)
        transport = self.private or transport
        try:
            self._http = build_http_client(provider, self.timeouts, headers=headers,
                                           proxy=self.proxy, transport=transport, env=env,
                                           on_response=self._check_response)
        except httpx.InvalidURL as error:
            raise InvalidURLError(f"The base URL for {provider.display_name} is not a usable "
                                  f"URL ({describe(error)}); fix it in the settings.") from None

    async def __aenter__(self) -> ProviderClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    @property
    def _keyless(self) -> bool:
        return not self.provider.spec.needs_key

    def _auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    def build_payload(
        self,
        model: str,
        messages: Sequence[ChatMessage],
        parameters: Parameters | None = None,
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": model,
            "messages": [wire_message(m) for m in messages],
            "stream": True,
        }
        if parameters is not None:
            payload.update(parameters.to_request())
            # The caller sends `reasoning` only for a model known to take it (core.session).
            payload.update(self._dialect.reasoning_body(parameters.reasoning))
        if self.refusals.asks_for_usage(self.provider):
            payload["stream_options"] = {"include_usage": True}
        return payload

    async def stream_chat(
        self,
        model: str,
        messages: Sequence[ChatMessage],
        parameters: Parameters | None = None,
        *,
        e2ee: E2EEMode | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> AsyncGenerator[StreamEvent, None]:
        """Yield typed events until the reply is complete; raise a ProviderError otherwise.
        `e2ee`: a conversation's own choice over the provider's (tui_chat.core.e2ee).

        Closing the iterator (or cancelling the task consuming it) closes the response at once.
        `extra`: keys set over the request's body (`tools`; `messages` already in the wire
        format, for a conversation with tool calls: core.mcp.loop).
        """
        payload = self.build_payload(model, messages, parameters)
        if extra:
            payload.update(extra)
        extensions = e2ee_extensions(self, model, e2ee)
        attempt = 0
        without_options = False
        while True:
            outcome = await self._try_open(payload, model, extensions)
            if isinstance(outcome, httpx.Response):
                if without_options:  # it was stream_options that it refused: remember
                    self.refusals.refused(self.provider)
                break
            if "stream_options" in payload and outcome.status in _REJECTED_PARAMETERS:
                # Asked for usage where it is not taken: once more at once, without it.
                payload = {k: v for k, v in payload.items() if k != "stream_options"}
                without_options = True
                continue
            if not outcome.retryable or attempt >= self.max_retries:
                raise outcome
            attempt += 1
            delay = self._backoff(attempt, outcome.retry_after)
            yield RetryScheduled(attempt, delay, outcome.summary)
            await self._sleep(delay)
        self._note_quota(outcome.headers)
        if SENT_AS in outcome.extensions:
            yield SentAs(outcome.extensions[SENT_AS])
        named = CHOSEN_MODEL in outcome.extensions
        if named:
            yield ModelChosen(outcome.extensions[CHOSEN_MODEL])
        whole = await self._whole_answer(outcome)
        if whole is not None:  # the whole reply at once, not a stream
            for event in self._whole_events(whole):
                yield event
            return
        body = outcome.aiter_bytes()
        # A pool's choice not in a header: the chunks' `model` says it (tui_chat.core.routing).
        pooled = not named and "," in model and is_pool(model)
        try:
            async for event in self.parse_stream(body, pool=model if pooled else None):
                yield event
            await _drain(body)
        finally:
            await outcome.aclose()

    async def _try_open(
        self, payload: dict[str, Any], model: str, extensions: dict[str, Any] | None = None
    ) -> httpx.Response | ProviderError:
        """Send the request once: a 200 answer (an event stream, or a whole reply: see
        `_whole_answer`), or the error it failed with."""
        headers = {**self._auth_headers(), "Accept": "text/event-stream"}
        try:
            request = self._http.build_request(
                "POST", "chat/completions", json=payload, headers=headers,
                extensions=extensions,
            )
            response = await self._http.send(request, stream=True)
        except httpx.TimeoutException as error:
            return self._timeout_error(error)
        except httpx.HTTPError as error:
            return self._connect_error(error)
        if response.status_code == 200:
            return response
        return await self._status_error(response, model)

    def _note_quota(self, headers: httpx.Headers) -> None:
        """Keep and record the quota the response reports (Chutes' headers), if any."""
        quota = quota_from(headers)
        if quota is None:
            return
        self.quota = quota
        (self._quota_book or QuotaBook()).record(self.provider.name, quota)

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, _MAX_RETRY_AFTER)
        ceiling: float = min(self.backoff_base * 2.0 ** (attempt - 1), 30.0)
        return ceiling * (0.5 + random.random() / 2)  # jitter: [ceiling/2, ceiling)

    async def _whole_answer(self, response: httpx.Response) -> ChatCompletion | None:
        """None for an event stream; the completion of a 200 JSON body that holds a whole
        reply (the provider did not stream it); else the body's error, raised."""
        content_type = response.headers.get("content-type", "")
        if "json" not in content_type:
            return None
        body = await _read_bounded(response, _MAX_WHOLE_BODY)
        await response.aclose()
        completion = parse_completion(body)
        if completion is not None:
            return completion
        message = provider_message(body)
        if message:
            raise ServerError(with_detail(f"{self._name} returned an error", message)
                              + " Try again shortly.")
        raise ProtocolError(
            f"{self._name} answered with a JSON body that holds no reply instead of an event "
            "stream; the provider may not support streaming for this model. Try another "
            "model."
        )

    def _whole_events(self, completion: ChatCompletion) -> list[StreamEvent]:
        """The events of a reply that came whole: its reasoning and text, tool calls, finish
        reason and usage, as a stream would have brought them, then StreamDone(whole=True)."""
        choices = completion.get("choices") or []
        choice = choices[0]
        message: ChunkDelta = dict(choice.get("message") or {})  # type: ignore[assignment]
        calls = message.get("tool_calls")
        if calls:  # a message's calls carry no index: their order is it
            message["tool_calls"] = [{**call, "index": call.get("index", number)}
                                     for number, call in enumerate(calls)]
        splitter = ReasoningSplitter()
        events = [*self._delta_events(message, splitter), *_flush(splitter)]
        finish = choice.get("finish_reason")
        if finish:
            events.append(FinishReason(finish))
        usage = completion.get("usage")
        if usage is not None:
            events.append(usage_event(usage))
        events.append(StreamDone(whole=True))
        return events

    async def parse_stream(self, body: AsyncIterator[bytes], *, pool: str | None = None
                           ) -> AsyncGenerator[StreamEvent, None]:
        """Turn the bytes of an event-stream body, however split, into typed events.
        `pool`: the routing pool asked for, when no header named its choice: the first chunk
        that names another model gives a `ModelChosen`."""
        parser = SSEParser()
        splitter = ReasoningSplitter()
        finished = False
        watchdog = IdleWatchdog(self.timeouts.read, clock=self._watchdog_clock)
        # Bound methods hoisted out of the loop: it runs once per token.
        next_chunk, feed, chunk_events = aiter(body).__anext__, parser.feed, self._chunk_events
        wire_time, coalesce, read_at, trickle = watchdog.clock.time, self.coalesce, 0.0, False
        pause_after = ReadPacing().pause_after
        clock = self._pacing_clock
        loop = asyncio.get_running_loop()
        now, pause = (loop.time, asyncio.sleep) if clock is None else (clock.time, clock.sleep)
        try:
            while True:
                if trickle and (wait := read_at + coalesce - now()) > 0:
                    await pause(wait)  # the consumer's time: the watchdog ignores it
                watchdog.reading_since = wire_time()
                read_at = now()
                try:
                    data = await next_chunk()
                except StopAsyncIteration:
                    break
                items = feed(data)
                # Before the first yield (the consumer's time): did this read complete an event?
                # (The common case first: it ends with one.)
                if items and type(items[-1]) is SSEEvent:
                    watchdog.progressed()
                else:
                    watchdog.read_done(wire_time(), len(data),
                                       any(type(item) is SSEEvent for item in items))
                # Tokens trickling in: pause before the next read (see read_pacing).
                trickle = coalesce > 0 and pause_after(len(data), now() - read_at)
                for item in items:
                    if isinstance(item, StrayLine):
                        self._raise_stray(item.text)
                        continue
                    if item.data == "[DONE]":
                        for event in _flush(splitter):
                            yield event
                        yield StreamDone()
                        return
                    if pool is not None and (chosen := _chunk_model(item.data, pool)):
                        pool = None
                        yield ModelChosen(chosen)
                    for event in chunk_events(item, splitter):
                        if isinstance(event, FinishReason):
                            finished = True
                        yield event
            for item in parser.close():
                if isinstance(item, StrayLine):
                    self._raise_stray(item.text)
        except asyncio.CancelledError:
            if not watchdog.fired():
                raise
            what = ("sent only a trickle of bytes and no complete event" if watchdog.trickled
                    else "stopped sending")
            raise StreamTimeoutError(
                f"{self._name} {what} for {watchdog.gap:g} seconds, so the reply was cut off; "
                "what arrived is kept."
            ).hinted(Hint.TIMEOUT, self.provider.name) from None
        except httpx.TimeoutException as error:
            raise self._timeout_error(error) from None
        except httpx.HTTPError as error:
            raise StreamInterruptedError(
                f"The connection to {self._name} broke during the reply ({describe(error)}); "
                "what arrived is kept. Try again or regenerate."
            ) from None
        finally:
            watchdog.close()
        for event in _flush(splitter):
            yield event
        if not finished:
            raise StreamInterruptedError(
                f"The reply from {self._name} ended before it was complete; what arrived is "
                "kept. Try again or regenerate."
            )
        yield StreamDone()

    def _chunk_events(self, item: SSEEvent, splitter: ReasoningSplitter) -> list[StreamEvent]:
        try:
            chunk = parse_chunk(item.data)
        except NotAChunk:
            raise ProtocolError(
                f"{self._name} sent an event that is not a valid chunk "
                f"({preview(item.data)}); what arrived before it is kept. Try again."
            ) from None
        if chunk.get("error") is not None or chunk.get("object") == "error":
            raise self._stream_error(chunk)
        choices, usage = chunk.get("choices"), chunk.get("usage")
        if choices:
            choice = choices[0]
            delta, finish = choice.get("delta"), choice.get("finish_reason")
            if (delta and splitter.passthrough and not finish and usage is None
                    and self._dialect.plain(delta)):
                # The common case, once per token: one piece of the answer, nothing else.
                content = delta.get("content")
                return [ContentDelta(content)] if content else []
            events = self._delta_events(delta, splitter) if delta else []
            if finish:
                events.extend(_flush(splitter))
                events.append(FinishReason(finish))
        else:
            events = []
        if usage is not None:
            events.append(usage_event(usage))
        return events

    def _delta_events(self, delta: ChunkDelta, splitter: ReasoningSplitter) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        reasoning = self._dialect.reasoning(delta)
        if reasoning:
            events.append(ReasoningDelta(reasoning))
        content = delta.get("content")
        if content:
            if splitter.passthrough:
                events.append(ContentDelta(content))
            else:
                for is_reasoning, text in splitter.feed(content):
                    events.append(ReasoningDelta(text) if is_reasoning else ContentDelta(text))
        for call in delta.get("tool_calls") or ():
            function = call.get("function") or {}
            events.append(ToolCallDelta(call.get("index", 0), call.get("id"),
                                        function.get("name"), function.get("arguments")))
        return events

    def _stream_error(self, chunk: ChatCompletionChunk) -> ProviderError:
        source = chunk.get("error")
        if source is None:
            source = dict(chunk)
        message = message_from_json(source) or "no details"
        code = source.get("code") if isinstance(source, dict) else None
        status = code if isinstance(code, int) else None
        return classify_status(self._name, status, self._scrub(message), during_stream=True,
                               provider=self.provider.name, keyless=self._keyless)

    def _raise_stray(self, text: str) -> None:
        """A line outside the SSE fields. The spec says ignore it, and we do, unless it is the
        bare JSON error object some providers (Chutes) send before ending the body."""
        if not self._dialect.bare_json_errors or not text.lstrip().startswith("{"):
            return
        message = provider_message(text)
        if message is not None:
            raise classify_status(self._name, None, self._scrub(message), during_stream=True,
                                  provider=self.provider.name, keyless=self._keyless)

    def _connect_error(self, error: httpx.HTTPError) -> ProviderError:
        return network_errors.connect_error(self.provider, self.proxy, error)

    async def _check_response(self, response: httpx.Response) -> None:
        """Refuse a 3xx answer, and a proxy's 407, before anything else reads them. A 3xx is
        an error (redirects are not followed: the key stays with its base URL); raised from
        httpx's response hook, before httpx reads the Location header: an unusable one there
        was a protocol error, and retried as one."""
        if response.status_code == 407 and self.proxy is not None:
            raise network_errors.proxy_refused(self.provider, self.proxy, 407,
                                               response.reason_phrase)
        if 300 <= response.status_code < 400:
            raise network_errors.redirect_error(self.provider, response.status_code,
                                                response.headers.get("location"),
                                                str(response.request.url))

    async def _status_error(self, response: httpx.Response, model: str) -> ProviderError:
        try:
            body = await _read_bounded(response)
        except httpx.HTTPError:
            body = ""
        finally:
            await response.aclose()
        message = provider_message(body)
        retry_after = retry_after_seconds(response.headers.get("retry-after"))
        error = classify_status(
            self._name, response.status_code, self._scrub(message) if message else None,
            model=model, key_env=self.provider.spec.api_key_env, retry_after=retry_after,
            provider=self.provider.name, keyless=self._keyless,
        )
        error.retry_after = retry_after
        return error

    def _timeout_error(self, error: httpx.TimeoutException) -> ProviderError:
        if isinstance(error, httpx.ConnectTimeout | httpx.PoolTimeout):
            return network_errors.connect_timeout(self.provider, self.proxy)
        return StreamTimeoutError(
            f"{self._name} did not answer within {self.timeouts.first_byte:g} seconds; "
            "the model may be starting. Try again in a minute."
        )

    def _scrub(self, text: str) -> str:
        """Provider messages sometimes echo the key back: never show it."""
        if self._api_key and self._api_key in text:
            text = text.replace(self._api_key, "[key hidden]")
        return text

    @property
    def _name(self) -> str:
        return self.provider.display_name

    async def list_models(self) -> list[ModelInfo]:
        """GET /models; raises ProviderError when the endpoint fails or is absent."""
        try:
            response = await self._http.get("models", headers=self._auth_headers())
        except httpx.HTTPError as error:
            raise network_errors.listing_failed(self.provider, self.proxy, error) from None
        if response.status_code != 200:
            raise classify_status(self._name, response.status_code,
                                  provider_message(response.text), model=None,
                                  key_env=self.provider.spec.api_key_env,
                                  provider=self.provider.name, keyless=self._keyless)
        try:
            data = response.json()
        except ValueError:
            raise ProtocolError(f"{self._name}'s model list is not JSON.") from None
        entries = data.get("data") if isinstance(data, dict) else data
        if not isinstance(entries, list):
            raise ProtocolError(f"{self._name}'s model list has no 'data' array.")
        return [info for entry in entries if (info := model_info_from(self.provider.name, entry))]


async def _drain(body: AsyncIterator[bytes]) -> None:
    """Read what follows `[DONE]` (usually just the end of the chunked body), briefly and
    boundedly, so the connection goes back to the keep-alive pool instead of being closed."""
    received = 0
    try:
        async with asyncio.timeout(_DRAIN_SECONDS):
            async for piece in body:
                received += len(piece)
                if received > _MAX_ERROR_BODY:
                    return
    except (TimeoutError, httpx.HTTPError):
        return


def _chunk_model(data: str, asked: str) -> str | None:
    """The model a chunk names, when it is not the one `asked` for (a one-line name: it is
    untrusted)."""
    from tui_chat.core.text import one_line

    try:
        model = parse_chunk(data).get("model")
    except NotAChunk:
        return None
    if not isinstance(model, str) or model == asked:
        return None
    return one_line(model, 200) or None


def _flush(splitter: ReasoningSplitter) -> list[StreamEvent]:
    return [ReasoningDelta(t) if r else ContentDelta(t) for r, t in splitter.flush()]


async def _read_bounded(response: httpx.Response, limit: int = _MAX_ERROR_BODY) -> str:
    chunks: list[bytes] = []
    size = 0
    async for piece in response.aiter_bytes():
        chunks.append(piece)
        size += len(piece)
        if size >= limit:
            break
    return b"".join(chunks)[:limit].decode("utf-8", errors="replace")
