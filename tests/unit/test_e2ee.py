"""End-to-end encryption to Chutes' instances through the loopback fake of its endpoints
(tests/fake_chutes_e2ee.py): what crosses the wire, the modes, nonces, failures."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from tests.fake_chutes_e2ee import E2EEReply, FakeChutesE2EE
from tui_chat.core import errors
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.e2ee import E2EERefused
from tui_chat.core.events import ContentDelta, SentAs, StreamEvent, UsageReported
from tui_chat.core.models import ChatMessage, Parameters, Role

KEY = "cpk_test_key_0123456789abcdef"
PRIVATE = "deepseek-ai/DeepSeek-V3-TEE"
PLAIN_ONLY = "chutesai/No-E2EE-Model"
SYSTEM = "You are the keeper of the orchard's ledger"
EARLIER = "My earlier question was about the heron's nest"
PROMPT = "The vault code is 7319-ultraviolet"
HISTORY = [ChatMessage(role=Role.SYSTEM, content=SYSTEM),
           ChatMessage(role=Role.USER, content=EARLIER),
           ChatMessage(role=Role.ASSISTANT, content="An earlier answer about storks"),
           ChatMessage(role=Role.USER, content=PROMPT)]


class Clock:
    """The time both ends read: moved by the test, never waited for."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    import chutes_e2ee.discovery

    moment = Clock()
    monkeypatch.setattr(chutes_e2ee.discovery, "time", moment)
    return moment


@pytest.fixture
def server(clock: Clock) -> Iterator[FakeChutesE2EE]:
    with FakeChutesE2EE(clock=clock.time) as fake:
        fake.add(PRIVATE, confidential_compute=True)
        fake.add(PLAIN_ONLY, e2ee=False)
        yield fake


def make_client(server: FakeChutesE2EE, mode: str = "auto",
                name: str = "chutes") -> ProviderClient:
    provider = Settings().resolve_provider(name, env={f"{name.upper()}_BASE_URL": server.url})
    provider = msgspec.structs.replace(provider, spec=msgspec.structs.replace(
        provider.spec, e2ee=mode))
    return ProviderClient(provider, KEY, max_retries=0)


async def collect(client: ProviderClient, model: str = PRIVATE,
                  messages: list[ChatMessage] = HISTORY, **kw: Any) -> list[StreamEvent]:
    return [event async for event in client.stream_chat(model, messages, **kw)]


def text_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ContentDelta))


async def test_nothing_of_the_conversation_crosses_in_plain_text(
        server: FakeChutesE2EE) -> None:
    async with make_client(server, "required") as client:
        events = await collect(client)
    assert text_of(events) == "Hello, world."
    assert SentAs("end-to-end") in events
    assert any(isinstance(e, UsageReported) for e in events)  # plain usage still counted
    # The instance saw the whole conversation…
    sent = server.invokes[0].payload["messages"]
    assert [m["content"] for m in sent] == [m.content for m in HISTORY]
    # …and the wire nothing of it: no prompt, no earlier message, no system prompt.
    wire = bytes(server.wire)
    assert b"/e2e/invoke" in wire and server.plain_requests == []
    for secret in (PROMPT, EARLIER, SYSTEM, "7319", "heron", "orchard", "storks"):
        assert secret.encode() not in wire, secret
        assert json.dumps(secret).encode() not in wire


async def test_required_with_a_model_without_e2ee_sends_nothing(
        server: FakeChutesE2EE) -> None:
    async with make_client(server, "required") as client:
        with pytest.raises(E2EERefused) as caught:
            await collect(client, PLAIN_ONLY)
    message = caught.value.message
    assert PLAIN_ONLY in message and "nothing was sent" in message
    assert "no running instance of it offers E2EE" in message  # words, not only a status
    assert message.count(". ") == 0  # one sentence
    assert server.plain_requests == [] and server.invokes == []
    assert b"7319" not in bytes(server.wire)
    assert b"POST" not in bytes(server.wire)  # only the listings were asked for


async def test_required_with_a_routing_pool_sends_nothing_and_says_why(
        server: FakeChutesE2EE) -> None:
    """A pool is answered by whichever model Chutes picks; an encrypted request is sealed for
    one model's instance: the sentence names the pool as the reason."""
    pool = f"{PRIVATE},{PLAIN_ONLY}:latency"
    async with make_client(server, "required") as client:
        with pytest.raises(E2EERefused) as caught:
            await collect(client, pool)
        plain = await collect(client, pool, e2ee="auto")
    assert "a routing pool" in caught.value.message
    assert "nothing was sent" in caught.value.message
    assert server.invokes == [] and len(server.plain_requests) == 1
    assert not any(isinstance(e, SentAs) for e in plain)


async def test_auto_sends_plain_where_the_chute_has_no_e2ee(server: FakeChutesE2EE) -> None:
    async with make_client(server, "auto") as client:
        events = await collect(client, PLAIN_ONLY)
        private = await collect(client, PRIVATE)
    assert text_of(events) == "Hello, world." and not any(
        isinstance(e, SentAs) for e in events)
    assert len(server.plain_requests) == 1
    assert SentAs("end-to-end") in private and len(server.invokes) == 1


async def test_auto_never_sends_plain_because_the_listing_is_busy(
        server: FakeChutesE2EE) -> None:
    server.instances_status = 503
    async with make_client(server, "auto") as client:
        with pytest.raises(errors.ServerError) as caught:
            await collect(client, PRIVATE)
    assert "nothing was sent" in caught.value.message and "503" in caught.value.message
    assert server.plain_requests == [] and server.invokes == []


async def test_a_conversation_can_ask_for_more_or_less_than_its_provider(
        server: FakeChutesE2EE) -> None:
    async with make_client(server, "auto") as client:
        with pytest.raises(E2EERefused):
            await collect(client, PLAIN_ONLY, e2ee="required")
        off = await collect(client, PRIVATE, e2ee="off")
    assert not any(isinstance(e, SentAs) for e in off)
    assert len(server.plain_requests) == 1 and server.invokes == []


async def test_chutes_with_e2ee_off_encrypts_a_conversation_that_asks(
        server: FakeChutesE2EE) -> None:
    async with make_client(server, "off") as client:
        plain = await collect(client, PRIVATE)
        private = await collect(client, PRIVATE, e2ee="required")
    assert SentAs("end-to-end") in private and SentAs("end-to-end") not in plain
    assert len(server.plain_requests) == 1 and len(server.invokes) == 1
    assert b"7319" in bytes(server.wire)  # the fake's listener does see plain text


async def test_another_provider_refuses_required_and_sends_auto_plain(
        server: FakeChutesE2EE) -> None:
    async with make_client(server, "off", name="sutra") as client:
        assert client.private is None
        with pytest.raises(E2EERefused) as caught:
            await collect(client, PRIVATE, e2ee="required")
        assert server.plain_requests == [] and "only Chutes offers it" in caught.value.message
        plain = await collect(client, PRIVATE, e2ee="auto")
    assert text_of(plain) == "Hello, world." and server.invokes == []


async def test_a_tampered_chunk_gives_one_sentence_and_keeps_what_arrived(
        server: FakeChutesE2EE) -> None:
    server.replies.append(E2EEReply(pieces=["Kept ", "part, ", "lost", " rest"], tamper_at=2))
    received: list[StreamEvent] = []
    async with make_client(server) as client:
        with pytest.raises(errors.ProtocolError) as caught:
            async for event in client.stream_chat(PRIVATE, HISTORY):
                received.append(event)
    assert text_of(received) == "Kept part, "
    assert "failed to decrypt" in caught.value.message
    assert "what arrived before it is kept" in caught.value.message


async def test_an_e2e_error_event_is_one_sentence(server: FakeChutesE2EE) -> None:
    server.replies.append(E2EEReply(pieces=["Begun", " and"], error_after=1))
    received: list[StreamEvent] = []
    async with make_client(server) as client:
        with pytest.raises(errors.ProviderError) as caught:
            async for event in client.stream_chat(PRIVATE, HISTORY):
                received.append(event)
    assert text_of(received) == "Begun"
    assert "The instance failed mid-reply" in caught.value.message


async def test_an_encrypted_reply_keeps_its_quota_and_chosen_model_headers(
        server: FakeChutesE2EE, tmp_path: Path) -> None:
    """chutes-e2ee hands back a response of its own with only a content type: the quota
    headers and the chosen model, sent with /e2e/invoke's answer, must not be
    lost on the way (the status line, `tui-chat usage` and the reply's header read them)."""
    from tui_chat.core.events import ModelChosen
    from tui_chat.core.quota import QuotaBook, quota_text

    server.replies.append(E2EEReply(headers={
        "x-chutes-quota-total": "5000", "x-chutes-quota-used": "3766",
        "x-chutes-quota-remaining": "1234", "x-chutes-chosen-model": PRIVATE}))
    book = QuotaBook(tmp_path / "quota.json")
    async with make_client(server, "required") as client:
        client._quota_book = book
        events = await collect(client)
        assert quota_text(client.quota) == "quota 1,234 of 5,000 left"
    assert SentAs("end-to-end") in events and ModelChosen(PRIVATE) in events
    assert book.read()["chutes"].remaining == 1234


@pytest.mark.parametrize(("reply", "kept", "said"), [
    (E2EEReply(pieces=["Kept ", "part, ", "lost"], tamper_at=2), "Kept part, ",
     "failed to decrypt"),
    (E2EEReply(pieces=["Begun", " and"], error_after=1), "Begun",
     "The instance failed mid-reply"),
])
async def test_a_broken_encrypted_reply_is_saved_as_far_as_it_came(
        server: FakeChutesE2EE, tmp_path: Path, reply: E2EEReply, kept: str,
        said: str) -> None:
    """What the app and `ask` keep: the text that arrived, marked interrupted, with the
    sentence, and still marked end-to-end (what arrived was decrypted and authenticated)."""
    from tui_chat.core.session import ChatSession, ReplyFailed
    from tui_chat.core.store import Store

    server.replies.append(reply)
    with Store.open(tmp_path / "s.db") as store:
        session = ChatSession.start(store)
        async with make_client(server) as client:
            events = [e async for e in session.send(PROMPT, client=client, model=PRIVATE)]
        assert isinstance(events[-1], ReplyFailed)
        saved = store.get_messages(session.conversation.id)[-1]
    assert (saved.content, saved.status, saved.sent_as) == (kept, "interrupted", "end-to-end")
    assert said in (saved.error or "") and "kept" in (saved.error or "")


async def test_nonces_are_never_reused_and_an_exhausted_or_expired_pool_is_refilled(
        server: FakeChutesE2EE, clock: Clock) -> None:
    server.nonces_per_instance = 2
    async with make_client(server) as client:
        for _ in range(3):  # two from the first pool, then it is exhausted: a second pool
            await collect(client)
        assert server.discoveries == [server.invokes[0].headers["x-chute-id"]] * 2
        clock.now += 56  # the second pool (one left) has expired: a third
        await collect(client)
    nonces = [invoke.headers["x-e2e-nonce"] for invoke in server.invokes]
    assert len(nonces) == 4 and len(set(nonces)) == 4
    assert len(server.discoveries) == 3
    assert server.rejected == []


async def test_a_pool_close_to_its_expiry_is_refilled_before_it_is_used(
        server: FakeChutesE2EE, clock: Clock) -> None:
    """A pool's expiry is counted from when its listing arrived, the instance's from when it
    issued the nonces: a nonce taken in the last seconds would reach the instance expired
    (the listing's and the invoke's time on the way), so those seconds are not used."""
    async with make_client(server) as client:
        await collect(client)
        clock.now += 50  # five seconds left of 55: too few to be sure of
        await collect(client)
    assert len(server.discoveries) == 2 and len(server.invokes) == 2
    assert server.rejected == []


async def test_a_nonce_the_instance_refuses_is_replaced_once_from_a_new_listing(
        server: FakeChutesE2EE) -> None:
    """An instance that restarted knows none of the pool's nonces: the invoke is refused
    before anything runs, the pool is dropped and the request is sent once more, encrypted,
    with a nonce from a new listing."""
    async with make_client(server, "required") as client:
        await collect(client)
        server.restart_instances()
        events = await collect(client)
    assert text_of(events) == "Hello, world." and SentAs("end-to-end") in events
    assert server.rejected == ["unknown nonce"]
    assert len(server.discoveries) == 2 and len(server.invokes) == 2
    assert server.plain_requests == []


async def test_an_instance_that_keeps_refusing_is_one_sentence(
        server: FakeChutesE2EE) -> None:
    async with make_client(server, "required") as client:
        await collect(client)
        server.nonces_per_instance = 1
        server.restart_instances()
        server.check_nonce = lambda instance_id, nonce: "unknown nonce"  # type: ignore[method-assign]
        with pytest.raises(errors.ServerError) as caught:
            await collect(client)
    assert caught.value.message == (
        f"The instance running {PRIVATE} on Chutes refused the encrypted request twice "
        "(403: E2EE unknown nonce), so nothing ran: try again in a moment.")
    assert server.rejected == ["unknown nonce"] * 2  # tried once more, not again
    assert server.plain_requests == []


async def test_a_bad_request_after_the_retry_is_the_clients_to_handle(
        server: FakeChutesE2EE) -> None:
    """A 400 may be the request itself (a parameter the model refuses), not the pool: after
    the one retry from a new listing it goes to the client as any 400 does, which, for
    `stream_options`, sends the request once more without it."""
    server.invoke_errors.extend([(400, "stream_options is not supported")] * 2)
    async with make_client(server, "required") as client:
        events = await collect(client)
    assert text_of(events) == "Hello, world." and SentAs("end-to-end") in events
    assert server.rejected == ["stream_options is not supported"] * 2
    assert "stream_options" not in server.invokes[-1].payload
    assert server.plain_requests == []


async def test_the_fake_refuses_a_reused_or_expired_nonce(server: FakeChutesE2EE,
                                                          clock: Clock) -> None:
    """The fake's own checks, so that the test above could fail."""
    status, listing = server.instances(next(iter(server.chutes)))
    assert status == 200
    instance = listing["instances"][0]
    first, second = instance["nonces"][:2]
    assert server.check_nonce(instance["instance_id"], first) is None
    assert server.check_nonce(instance["instance_id"], first) == "nonce reused"
    clock.now += 55
    assert server.check_nonce(instance["instance_id"], second) == "nonce expired"


async def test_a_reply_remembers_it_went_end_to_end_after_reopening(
        server: FakeChutesE2EE, tmp_path: Path) -> None:
    from tui_chat.core.session import ChatSession, ReplyFinished
    from tui_chat.core.store import Store

    with Store.open(tmp_path / "s.db") as store:
        session = ChatSession.start(store, system_prompt=SYSTEM)
        session.set_parameters(Parameters(e2ee="required"))
        session.in_tee = lambda provider, model: model == PRIVATE  # as its listing says
        async with make_client(server, "auto") as client:
            events = [e async for e in session.send(PROMPT, client=client, model=PRIVATE)]
            plain = [e async for e in session.send("and this one plain?", client=client,
                                                   model=PLAIN_ONLY)]
        assert isinstance(events[-1], ReplyFinished)
        assert events[-1].message.sent_as == "end-to-end TEE"
        assert type(plain[-1]).__name__ == "ReplyFailed"  # required: refused, nothing sent
        conversation_id = session.conversation.id
    assert server.plain_requests == [] and b"7319" not in bytes(server.wire)
    assert "e2ee" not in server.invokes[0].payload  # a choice, not a parameter to send
    with Store.open(tmp_path / "s.db") as reopened:
        messages = reopened.get_messages(conversation_id)
        assert reopened.get_conversation(conversation_id).parameters.e2ee == "required"
    replies = [m for m in messages if m.role == Role.ASSISTANT]
    assert replies[0].sent_as == "end-to-end TEE"
    assert replies[1].sent_as is None and replies[1].error is not None


def test_exports_say_how_each_reply_was_sent_and_an_import_keeps_it(tmp_path: Path) -> None:
    from tui_chat.core import export
    from tui_chat.core.models import Conversation, Message
    from tui_chat.core.store import Store

    with Store.open(tmp_path / "a.db") as store:
        conversation = store.create_conversation(Conversation(
            parameters=Parameters(e2ee="required")))
        prompt = Message(conversation_id=conversation.id, role=Role.USER, content="hi")
        private_id = ""
        store.add_message(prompt)
        for sent_as, content in (("end-to-end TEE", "private"), (None, "plain")):
            reply = Message(conversation_id=conversation.id, parent_id=prompt.id,
                            role=Role.ASSISTANT, content=content, model="m", sent_as=sent_as)
            store.add_message(reply)
            store.update_message(reply)
            private_id = reply.id if sent_as else private_id
        markdown = export.export_markdown(store, [conversation.id], all_branches=True)
        (tmp_path / "out.json").write_text(export.export_json(store, [conversation.id]))
    assert "🔒 end-to-end · TEE" in markdown
    assert markdown.count("🔒") == 1 and markdown.count("TEE") == 1  # nothing on the plain one
    with Store.open(tmp_path / "b.db") as other:
        export.import_file(other, tmp_path / "out.json")
        (imported,) = [c.id for c in other.list_conversations()]
        other.activate(private_id)
        path = other.get_messages(imported)
        assert other.get_conversation(imported).parameters.e2ee == "required"
    assert (path[-1].content, path[-1].sent_as) == ("private", "end-to-end TEE")


def test_badges_say_only_what_is_known() -> None:
    from tui_chat.core.chunks import model_info_from
    from tui_chat.core.protection import protection_badges, sent_as

    listed = model_info_from("chutes", {"id": "m", "confidential_compute": True})
    unlisted = model_info_from("chutes", {"id": "m", "confidential_compute": "yes"})
    assert listed is not None and listed.confidential_compute
    assert unlisted is not None and not unlisted.confidential_compute
    assert protection_badges(sent_as(end_to_end=True, tee=True)) == "🔒 end-to-end · TEE"
    assert protection_badges(sent_as(end_to_end=False, tee=True)) == "TEE"
    assert protection_badges(sent_as(end_to_end=False, tee=False)) == ""
    assert protection_badges("verified attestation") == ""  # nothing it does not know


class _OneRead(httpx.AsyncByteStream):
    def __init__(self, data: bytes) -> None:
        self.data = data

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.data

    async def aclose(self) -> None:
        pass


@pytest.mark.parametrize("reply", [E2EEReply(pieces=["w"] * 50),
                                   E2EEReply(pieces=["a", "b", "c"], error_after=2)])
async def test_the_reply_is_decrypted_as_chutes_e2ee_does_in_one_piece_a_read(
        server: FakeChutesE2EE, reply: E2EEReply) -> None:
    """Why tui-chat frames the decrypted stream itself: chutes-e2ee 0.1.0 hands on one piece
    per event (and parses each with json, with a new cipher each time), which made a
    20,000-chunk reply cost the client twice the CPU of the plain one. The text is the same
    byte for byte; only the pieces differ."""
    import base64

    from chutes_e2ee.transport import _AsyncDecryptedStream
    from pqcrypto.kem.ml_kem_768 import generate_keypair

    from tui_chat.core.e2ee import _Decrypting

    public, secret = generate_keypair()
    payload = {"model": "m", "e2e_response_pk": base64.b64encode(public).decode()}
    body = b"".join(server.frames(payload, reply))
    theirs = [p async for p in _AsyncDecryptedStream(_OneRead(body), secret)]
    ours = [p async for p in _Decrypting(_AsyncDecryptedStream(_OneRead(body), secret),
                                         "Chutes")]
    assert b"".join(ours) == b"".join(theirs)
    assert len(theirs) > 3 and len(ours) == 1


class _Reads(httpx.AsyncByteStream):
    """A body handed on in the given reads, as the network would."""

    def __init__(self, reads: list[bytes]) -> None:
        self.reads = reads

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.reads:
            yield piece

    async def aclose(self) -> None:
        pass


def _sealed_by_the_package(secret_holder: list[bytes]) -> list[bytes]:
    """A reply's events sealed with chutes-e2ee's own primitives (its `derive_key` for the
    stream and `chacha_encrypt`), in the shapes a server may send them: Chutes' own
    (`data: {"e2e": "…"}`, one line), and shapes that are the same JSON written otherwise, so
    that tui-chat's reader without a JSON parser must hand them to one."""
    import base64
    import os

    from chutes_e2ee import crypto
    from pqcrypto.kem.ml_kem_768 import encrypt, generate_keypair

    public, secret = generate_keypair()
    secret_holder.append(secret)
    mlkem_ct, shared = encrypt(public)
    key = crypto.derive_key(shared, mlkem_ct, crypto.INFO_STREAM)

    def seal(text: str) -> str:
        nonce = os.urandom(12)
        body, tag = crypto.chacha_encrypt(key, nonce, text.encode())
        return base64.b64encode(nonce + body + tag).decode()

    def piece(n: int) -> str:
        return "data: " + json.dumps({"choices": [{"delta": {"content": f"w{n} é"}}]},
                                     ensure_ascii=False)

    escaped = seal(piece(3))
    escaped = "\\u00" + format(ord(escaped[0]), "02x") + escaped[1:]  # JSON, not base64
    return [f'data: {{"e2e_init": "{base64.b64encode(mlkem_ct).decode()}"}}\n\n'.encode(),
            *[f'data: {{"e2e": "{seal(piece(n))}"}}\n\n'.encode() for n in range(3)],
            f'data: {{"e2e": "{escaped}"}}\n\n'.encode(),
            f'data: {{"e2e": "{seal(piece(4))}", "seq": 4}}\n\n'.encode(),
            f'data: {{"e2e":"{seal(piece(5))}"}}\r\n\r\n'.encode(),
            f'data: {{"e2e": "{seal(piece(6))}"}}\n\n'.encode(),
            b'data: {"usage": {"total_tokens": 7}}\n\n', b"data: [DONE]\n\n"]


@pytest.mark.parametrize("decoder", ["pybase64", "binascii"])
@pytest.mark.parametrize("reads", ["one event a read", "one read", "seven bytes a read"])
async def test_the_reply_reads_as_chutes_e2ee_reads_it_however_it_is_split(
        reads: str, decoder: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader that skips JSON for Chutes' own shape (`_decrypted`) against the package's
    own stream, on events sealed with the package's own encryption: the same bytes, whether
    each read holds one event (that reader's way), the whole body, or pieces of events, with
    pybase64's strict base64 or binascii's (where pybase64 is missing). A change of the
    package's format (nonce, tag, key derivation) breaks this test."""
    from chutes_e2ee.transport import _AsyncDecryptedStream

    from tui_chat.core import e2ee
    from tui_chat.core.e2ee import _Decrypting

    if decoder == "binascii":
        monkeypatch.setattr(e2ee, "_strict_decoder", lambda: e2ee._binascii_strict)

    holder: list[bytes] = []
    events = _sealed_by_the_package(holder)
    body = b"".join(events)
    split = {"one event a read": events, "one read": [body],
             "seven bytes a read": [body[i:i + 7] for i in range(0, len(body), 7)]}[reads]
    theirs = [p async for p in _AsyncDecryptedStream(_Reads(split), holder[0])]
    ours = [p async for p in _Decrypting(_AsyncDecryptedStream(_Reads(split), holder[0]),
                                         "Chutes")]
    assert b"".join(ours) == b"".join(theirs)
    assert b"".join(theirs).count("é".encode()) == 7  # every chunk came through
