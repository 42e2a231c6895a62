"""The streaming client against a real loopback server speaking both providers' SSE."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest

from tests.fakeprovider import (
    DONE,
    FakeProvider,
    Reply,
    chunk,
    sse,
    stream_of,
    usage_chunk,
    whole_completion,
)
from tui_chat.core import errors
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings, Timeouts
from tui_chat.core.events import (
    ContentDelta,
    FinishReason,
    ReasoningDelta,
    RetryScheduled,
    StreamDone,
    StreamEvent,
    ToolCallDelta,
    UsageReported,
)
from tui_chat.core.models import ChatMessage, Parameters, Role, Usage

KEY = "cpk_test_key_0123456789abcdef"
HELLO = [ChatMessage(role=Role.USER, content="hello")]


def make_client(server: FakeProvider, name: str = "chutes", key: str = KEY,
                **kwargs: object) -> ProviderClient:
    env = {f"{name.upper()}_BASE_URL": server.url}
    provider = Settings().resolve_provider(name, env=env)
    sleeps: list[float] = []

    async def no_sleep(delay: float) -> None:
        sleeps.append(delay)

    client = ProviderClient(provider, key, sleep=no_sleep, **kwargs)  # type: ignore[arg-type]
    client.sleeps = sleeps  # type: ignore[attr-defined]
    return client


async def collect(client: ProviderClient, model: str = "m",
                  messages: list[ChatMessage] = HELLO, **kw: object) -> list[StreamEvent]:
    return [event async for event in client.stream_chat(model, messages, **kw)]  # type: ignore[arg-type]


def text_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ContentDelta))


async def consume_into(client: ProviderClient, sink: list[StreamEvent], model: str = "m") -> None:
    async for event in client.stream_chat(model, HELLO):
        sink.append(event)


@pytest.mark.parametrize("flavour", ["chutes", "sutra"])
async def test_streams_the_documented_example(flavour: str) -> None:
    prefix = "/v1" if flavour == "chutes" else "/v2"
    with FakeProvider(flavour, prefix=prefix) as server:
        server.script(Reply(stream_of(["Hello", " नमस्ते", " 👋"], flavour=flavour)))
        async with make_client(server, flavour) as client:
            events = await collect(client, "sutra-v2" if flavour == "sutra" else "m")
    assert text_of(events) == "Hello नमस्ते 👋"
    assert FinishReason("stop") in events
    assert isinstance(events[-1], StreamDone)
    assert any(isinstance(e, UsageReported) for e in events) == (flavour == "chutes")


async def test_request_has_documented_headers_and_body(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["ok"])))
    messages = [ChatMessage(role=Role.SYSTEM, content="Be brief."),
                ChatMessage(role=Role.USER, content="hi")]
    params = Parameters(temperature=0.3, max_tokens=50, top_p=0.9, presence_penalty=0.1,
                        frequency_penalty=0.2, stop=["END"])
    async with make_client(chutes_server) as client:
        await collect(client, "deepseek-ai/DeepSeek-V3-0324", messages, parameters=params)
    request = chutes_server.requests[-1]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["accept"] == "text/event-stream"
    assert request.body == {
        "model": "deepseek-ai/DeepSeek-V3-0324",
        "messages": [{"role": "system", "content": "Be brief."},
                     {"role": "user", "content": "hi"}],
        "stream": True, "temperature": 0.3, "max_tokens": 50, "top_p": 0.9,
        "presence_penalty": 0.1, "frequency_penalty": 0.2, "stop": ["END"],
        "stream_options": {"include_usage": True},  # Chutes sends usage only when asked
    }


async def test_usage_chunk_with_empty_choices(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["a"])))
    async with make_client(chutes_server) as client:
        events = await collect(client)
    usage = [e.usage for e in events if isinstance(e, UsageReported)]
    assert usage and usage[0].total_tokens == 46


async def test_reasoning_fields_and_inline_tags(chutes_server: FakeProvider) -> None:
    chutes_server.script(
        Reply([sse(chunk(reasoning_content="deep ")), sse(chunk(reasoning="thought")),
               sse(chunk("answer")), sse(chunk(finish_reason="stop")), DONE]),
        Reply(stream_of(["<thi", "nking>hmm</thin", "king>\n\nउत्तर"])),
    )
    async with make_client(chutes_server) as client:
        first = await collect(client)
        second = await collect(client)
    for events, reasoning, content in ((first, "deep thought", "answer"), (second, "hmm", "उत्तर")):
        assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == reasoning
        assert text_of(events) == content


async def test_one_chunk_carrying_everything_at_once(chutes_server: FakeProvider) -> None:
    """Some servers put the last piece of text, the finish reason and the usage in one chunk,
    or reasoning beside the answer: none of it is lost to the one-piece-of-text fast path."""
    last = chunk("end.", finish_reason="stop")
    last["usage"] = usage_chunk(5, 7)["usage"]
    chutes_server.script(Reply([sse(chunk("one ")), sse(chunk("two ", reasoning_content="why ")),
                                sse(last), DONE]))
    async with make_client(chutes_server) as client:
        events = await collect(client)
    assert text_of(events) == "one two end."
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == ["why "]
    assert FinishReason("stop") in events
    assert [e.usage.total_tokens for e in events if isinstance(e, UsageReported)] == [12]


async def test_tool_call_fragments(chutes_server: FakeProvider) -> None:
    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "lookup", "arguments": '{"q":'}}
    chutes_server.script(Reply([sse(chunk(tool_calls=[call])),
                                sse(chunk(finish_reason="tool_calls")), DONE]))
    async with make_client(chutes_server) as client:
        events = await collect(client)
    assert ToolCallDelta(0, "call_1", "lookup", '{"q":') in events
    assert FinishReason("tool_calls") in events


async def test_end_after_finish_reason_without_done_is_complete(
    chutes_server: FakeProvider,
) -> None:
    chutes_server.script(Reply(stream_of(["a", "b"], done=False)))
    async with make_client(chutes_server) as client:
        events = await collect(client)
    assert text_of(events) == "ab" and isinstance(events[-1], StreamDone)


async def test_text_after_done_is_ignored(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply([*stream_of(["a"]), sse(chunk("LATE")), b"garbage\n\n"]))
    async with make_client(chutes_server) as client:
        events = await collect(client)
    assert text_of(events) == "a"


async def test_end_without_finish_or_done_is_an_interruption(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["partial ", "text"], finish_reason=None, done=False,
                                         usage=False)))
    seen: list[StreamEvent] = []
    async with make_client(chutes_server) as client:
        with pytest.raises(errors.StreamInterruptedError) as caught:
            await consume_into(client, seen)
    assert text_of(seen) == "partial text"
    assert "kept" in caught.value.message


async def test_dropped_connection_keeps_partial_text(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["one ", "two ", "three"]), drop_after=3))
    seen: list[StreamEvent] = []
    async with make_client(chutes_server) as client:
        with pytest.raises(errors.StreamInterruptedError):
            await consume_into(client, seen)
    assert text_of(seen) == "one two "


async def test_stalled_stream_times_out_with_partial_text(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["one ", "two"]), stall_after=2))
    seen: list[StreamEvent] = []
    async with make_client(chutes_server, timeouts=Timeouts(read=0.3)) as client:
        with pytest.raises(errors.StreamTimeoutError) as caught:
            await consume_into(client, seen)
    assert text_of(seen) == "one "
    assert "0.3 seconds" in caught.value.message


async def test_slow_first_byte_within_limit_is_fine(chutes_server: FakeProvider) -> None:
    """The gap timeout does not apply before the response starts (cold starts)."""
    chutes_server.script(Reply(stream_of(["warm"]), first_byte_delay=0.5))
    async with make_client(chutes_server, timeouts=Timeouts(read=0.2, first_byte=5)) as client:
        assert text_of(await collect(client)) == "warm"


async def test_first_byte_timeout(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["late"]), first_byte_delay=1.0))
    async with make_client(chutes_server, timeouts=Timeouts(first_byte=0.2),
                           max_retries=0) as client:
        with pytest.raises(errors.StreamTimeoutError) as caught:
            await collect(client)
    assert "did not answer within 0.2 seconds" in caught.value.message


ERROR_CASES = [
    (401, {"detail": "Invalid token."}, errors.AuthenticationError, "Invalid token"),
    (403, {"error": {"message": "Forbidden for this key"}}, errors.AuthenticationError,
     "Forbidden"),
    (402, {"detail": {"message": "Quota exceeded."}}, errors.QuotaError, "Quota exceeded"),
    (404, {"detail": "model not found"}, errors.ModelNotFoundError, "'no/such-model'"),
    (400, {"error": {"message": "messages must not be empty"}}, errors.InvalidRequestError,
     "must not be empty"),
    (422, {"detail": [{"msg": "temperature too high"}]}, errors.InvalidRequestError,
     "temperature too high"),
]


@pytest.mark.parametrize(("status", "body", "kind", "expected"), ERROR_CASES)
async def test_http_errors_are_typed_sentences(
    chutes_server: FakeProvider, status: int, body: dict[str, object],
    kind: type[errors.ProviderError], expected: str,
) -> None:
    chutes_server.script(Reply.error(status, body), Reply.error(status, body))
    async with make_client(chutes_server) as client:
        with pytest.raises(kind) as caught:
            await collect(client, "no/such-model")
    message = caught.value.message
    assert expected in message and f"({status})" in message
    assert "\n" not in message and "Traceback" not in message
    # Not retried; a 400 or 422 is asked once more without `stream_options` (it may be what
    # the server refused), and the same answer then is the error.
    asked = [("stream_options" in r.body) for r in chutes_server.requests]
    assert asked == ([True, False] if status in (400, 422) else [True])


async def test_auth_error_names_the_key_variable(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply.error(401, {"detail": "bad"}))
    async with make_client(chutes_server) as client:
        with pytest.raises(errors.AuthenticationError) as caught:
            await collect(client)
    assert caught.value.hint is errors.Hint.KEY and caught.value.key_env == "CHUTES_API_KEY"
    assert caught.value.provider == "chutes"


async def test_429_is_retried_honouring_retry_after(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply.error(429, {"detail": "busy"}, **{"Retry-After": "7"}),
                         Reply(stream_of(["after retry"])))
    async with make_client(chutes_server) as client:
        events = await collect(client)
        assert client.sleeps == [7.0]  # type: ignore[attr-defined]
    assert text_of(events) == "after retry"
    assert RetryScheduled(1, 7.0, "Chutes is rate limiting or at capacity (429)") in events


async def test_5xx_retries_are_bounded_with_backoff(chutes_server: FakeProvider) -> None:
    chutes_server.script(*[Reply.error(502, "<html><h1>502 Bad Gateway</h1></html>")] * 4)
    async with make_client(chutes_server, max_retries=3, backoff_base=1.0) as client:
        with pytest.raises(errors.ServerError) as caught:
            await collect(client)
        sleeps = client.sleeps  # type: ignore[attr-defined]
    assert len(chutes_server.requests) == 4
    assert [0.5 <= sleeps[0] < 1.0, 1.0 <= sleeps[1] < 2.0, 2.0 <= sleeps[2] < 4.0] == [True] * 3
    assert caught.value.message == "Chutes had a server error (502). Try again shortly."


async def test_503_cold_start_is_retried_then_streams(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply.error(503, {"detail": "No instances available"}),
                         Reply(stream_of(["up"])))
    async with make_client(chutes_server) as client:
        assert text_of(await collect(client)) == "up"


async def test_connection_refused_is_retried_then_fails() -> None:
    with FakeProvider() as server:
        url = server.url
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": url})
    calls: list[float] = []

    async def record(delay: float) -> None:
        calls.append(delay)

    async with ProviderClient(provider, KEY, sleep=record, max_retries=2) as client:
        with pytest.raises(errors.ConnectionFailedError) as caught:
            await collect(client)
    assert len(calls) == 2
    assert url in caught.value.message and KEY not in caught.value.message


async def test_no_retry_after_first_token(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["a", "b", "c"]), drop_after=2),
                         Reply(stream_of(["SHOULD NOT BE SENT"])))
    seen: list[StreamEvent] = []
    async with make_client(chutes_server) as client:
        with pytest.raises(errors.StreamInterruptedError):
            await consume_into(client, seen)
    assert len(chutes_server.requests) == 1
    assert text_of(seen) == "a"


async def test_json_body_instead_of_stream(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(status=200, content_type="application/json",
                               body=json.dumps({"id": "x", "choices": []}).encode()))
    async with make_client(chutes_server) as client:
        with pytest.raises(errors.ProtocolError) as caught:
            await collect(client)
    assert "JSON body that holds no reply" in caught.value.message


async def test_a_whole_json_answer_to_a_streaming_request_is_the_reply(
        chutes_server: FakeProvider) -> None:
    chutes_server.script(whole_completion("The answer.", reasoning="pondered",
                                          finish_reason="stop", tokens=(9, 7)))
    async with make_client(chutes_server) as client:
        events = await collect(client)
    assert events == [ReasoningDelta("pondered"), ContentDelta("The answer."),
                      FinishReason("stop"),
                      UsageReported(Usage(prompt_tokens=9, completion_tokens=7, total_tokens=16)),
                      StreamDone(whole=True)]


@pytest.mark.parametrize("error_event", [
    {"error": {"message": "upstream overloaded", "code": 502}},  # OpenAI / OpenRouter
    {"object": "error", "message": "context too long", "type": "BadRequestError", "code": 400},
])
async def test_error_object_inside_the_stream(chutes_server: FakeProvider,
                                              error_event: dict[str, object]) -> None:
    chutes_server.script(Reply([sse(chunk("kept ")), sse(error_event), DONE]))
    seen: list[StreamEvent] = []
    async with make_client(chutes_server) as client:
        with pytest.raises(errors.ProviderError) as caught:
            await consume_into(client, seen)
    assert text_of(seen) == "kept "
    assert str(error_event.get("message") or "upstream overloaded") in caught.value.message


async def test_bare_json_failure_line_from_chutes(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply([sse(chunk("so far")),
                                b'{"detail": "Chute unavailable: instance died"}\n']))
    seen: list[StreamEvent] = []
    async with make_client(chutes_server) as client:
        with pytest.raises(errors.ServerError) as caught:
            await consume_into(client, seen)
    assert text_of(seen) == "so far"
    assert "instance died" in caught.value.message and "kept" in caught.value.message


async def test_data_that_is_not_json_is_a_protocol_error(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply([sse(chunk("ok ")), b"data: {not json\n\n", DONE]))
    seen: list[StreamEvent] = []
    async with make_client(chutes_server) as client:
        with pytest.raises(errors.ProtocolError):
            await consume_into(client, seen)
    assert text_of(seen) == "ok "


async def test_key_echoed_by_provider_is_hidden(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply.error(401, {"detail": f"Invalid key {KEY}"}))
    async with make_client(chutes_server) as client:
        with pytest.raises(errors.AuthenticationError) as caught:
            await collect(client)
    assert KEY not in caught.value.message and "[key hidden]" in caught.value.message


async def test_cancelling_closes_the_connection(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of([f"t{i} " for i in range(2000)]), delay=0.01))
    seen: list[StreamEvent] = []
    async with make_client(chutes_server) as client:
        started = asyncio.Event()

        async def consume() -> None:
            async for event in client.stream_chat("m", HELLO):
                seen.append(event)
                if isinstance(event, ContentDelta):
                    started.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(started.wait(), 60)  # a bound for a broken build only
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The server notices the closed socket on its next write and stops serving.
        assert await asyncio.to_thread(chutes_server.wait_for_idle)
    assert len(seen) < 500


async def test_keep_alive_reuses_one_connection(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["a"])), Reply(stream_of(["b"])))
    async with make_client(chutes_server) as client:
        assert text_of(await collect(client)) == "a"
        assert text_of(await collect(client)) == "b"
        transport = client._http._transport
        transport = getattr(transport, "network", transport)  # under Chutes' E2EE wrapper
        pool = transport._pool  # type: ignore[attr-defined]
        assert len(pool.connections) == 1


async def test_keys_only_go_to_their_own_provider() -> None:
    """Two providers on one host: each request carries only its own provider's key."""
    with FakeProvider("chutes", prefix="/a") as server:
        settings = Settings.model_validate({"providers": {
            "one": {"base_url": server.url, "api_key": "key-one"},
            "two": {"base_url": server.url.replace("/a", "/a/../a"), "api_key": "key-two"},
        }})
        for name in ("one", "two"):
            provider = settings.resolve_provider(name, env={})
            async with ProviderClient(provider, settings.require_key(provider)) as client:
                await collect(client)
        sent = [r.headers["authorization"] for r in server.requests]
    assert sent == ["Bearer key-one", "Bearer key-two"]


async def test_redirects_are_not_followed_with_the_key(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(status=307, content_type="text/plain", body=b"",
                               headers={"Location": "http://127.0.0.2:1/steal"}))
    async with make_client(chutes_server, max_retries=0) as client:
        with pytest.raises(errors.ProviderError) as caught:
            await collect(client)
    assert "307" in caught.value.message
    assert len(chutes_server.requests) == 1


async def test_list_models_tolerates_missing_and_string_fields(
    chutes_server: FakeProvider,
) -> None:
    async with make_client(chutes_server) as client:
        models = await client.list_models()
    assert [m.id for m in models] == ["deepseek-ai/DeepSeek-V3-0324", "deepseek-ai/DeepSeek-R1",
                                      "Qwen/Qwen3-235B-A22B"]
    assert models[1].context_length == 163840 and models[2].context_length is None
    assert models[0].price == "in 0.27 / out 1.1"


async def test_list_models_missing_endpoint_raises(sutra_server: FakeProvider) -> None:
    async with make_client(sutra_server, "sutra") as client:
        with pytest.raises(errors.ModelNotFoundError):
            await client.list_models()


@pytest.mark.parametrize("usage_first", [False, True])
async def test_parse_stream_over_plain_bytes(usage_first: bool) -> None:
    frames = [sse(usage_chunk())] if usage_first else []
    frames += stream_of(["x", "y"])

    async def body() -> AsyncIterator[bytes]:
        for frame in frames:
            yield frame

    provider = Settings().resolve_provider("chutes", env={})
    async with ProviderClient(provider, None) as client:
        events = [e async for e in client.parse_stream(body())]
    assert text_of(events) == "xy"


class TrickleOnAClock:
    """A network that delivers one token every `gap` seconds of a clock the test owns.

    A read takes whatever tokens have arrived by now, all together (as one read of the
    socket does); with none there, time moves on to the next arrival: the read waited for
    the network. The client's pauses move time on too. So what is read together depends on
    the client's decisions alone, never on how fast the machine is."""

    def __init__(self, frames: list[bytes], gap: float) -> None:
        self.arrivals = [(index * gap, frame) for index, frame in enumerate(frames)]
        self.now = 0.0
        self.reads: list[int] = []  # how many frames each read took

    def time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds

    async def body(self) -> AsyncIterator[bytes]:
        while self.arrivals:
            self.now = max(self.now, self.arrivals[0][0])
            taken = [frame for at, frame in self.arrivals if at <= self.now]
            del self.arrivals[:len(taken)]
            self.reads.append(len(taken))
            yield b"".join(taken)


async def _reads_of_a_trickle(server: FakeProvider, coalesce: float) -> tuple[str, list[int]]:
    """(text, frames per read) of 40 tokens arriving 10 ms apart, read with `coalesce`."""
    network = TrickleOnAClock(stream_of([f"w{i} " for i in range(40)]), gap=0.01)
    async with make_client(server, coalesce=coalesce, pacing_clock=network) as client:
        events = [event async for event in client.parse_stream(network.body())]
    return text_of(events), network.reads


async def test_a_trickle_is_read_in_batches_when_coalescing(chutes_server: FakeProvider
                                                            ) -> None:
    """With `coalesce`, tokens that trickle in are read a batch at a time (fewer wakeups),
    all of them, in order; without it each token is taken as it comes."""
    words = "".join(f"w{i} " for i in range(40))
    text, reads = await _reads_of_a_trickle(chutes_server, coalesce=0.1)
    assert text == words
    # The trickle is told at the second waiting read; from then on a pause of 0.1 s gathers
    # the ten tokens that arrived meanwhile into one read.
    assert max(reads) >= 9
    assert len(reads) <= 12  # about 0.4 s / 0.1 s, two reads a pause
    text, reads = await _reads_of_a_trickle(chutes_server, coalesce=0.0)
    assert text == words
    assert max(reads) == 1  # never a pause: every token read as it comes


@pytest.mark.parametrize("coalesce", [0.0, 0.1])
async def test_a_trickle_over_the_network_arrives_whole_and_in_order(
        chutes_server: FakeProvider, coalesce: float) -> None:
    words = [f"w{i} " for i in range(40)]
    chutes_server.script(Reply(stream_of(words), delay=0.01))
    async with make_client(chutes_server, coalesce=coalesce) as client:
        assert text_of(await collect(client)) == "".join(words)
