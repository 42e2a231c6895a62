"""An import accepts only what an export could have written, checked before anything is written;
our exports are strict JSON that every parser reads; conflicts with the store are counted."""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pydantic_core
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.test_export import conversation_dict, document, message_dict
from tui_chat.core import export
from tui_chat.core.errors import UsageError
from tui_chat.core.models import (
    Conversation,
    Message,
    MessageStatus,
    Parameters,
    Role,
    Usage,
    new_id,
)
from tui_chat.core.store import Store
from tui_chat.core.store_import import derived_id


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def one(**fields: Any) -> str:
    """A file of one conversation holding one message with `fields` changed."""
    return document(conversation_dict(messages=[message_dict(**fields)]))


def conv(**fields: Any) -> str:
    """A file of one conversation (no messages) with `fields` changed."""
    return document(conversation_dict(**fields))


def with_key_twice() -> str:
    text = conv()
    return text.replace('"title": "t"', '"title": "t", "title": "other"')


HOSTILE: list[tuple[str, Callable[[], str], str]] = [
    # not standard JSON
    ("deep-nesting", lambda: "[" * 100_000 + "]" * 100_000, "is nested too deeply"),
    ("deep-in-an-unknown-key", lambda: conv(x=0).replace('"x": 0', '"x": ' + "[" * 50_000
                                                         + "]" * 50_000),
     "is nested too deeply"),
    ("nan", lambda: one(tokens_per_second=math.nan), r"not standard JSON \(NaN is not"),
    ("infinity", lambda: one(time_to_first_token=math.inf), "Infinity is not a JSON number"),
    ("minus-infinity", lambda: one(tokens_per_second=-math.inf), "-Infinity is not a JSON"),
    ("key-twice", with_key_twice, "the key 'title' appears twice in one object"),
    ("lone-high-surrogate", lambda: one(content="x").replace('"content": "x"',
                                                             '"content": "a\\ud800b"'),
     r"lone surrogate escape .* on line 1"),
    ("lone-low-surrogate", lambda: one(content="x").replace('"content": "x"',
                                                            '"content": "\\udc00"'),
     "lone surrogate escape"),
    ("reversed-pair", lambda: one(content="x").replace('"content": "x"',
                                                       '"content": "\\ude00\\ud83d"'),
     "lone surrogate escape"),
    ("raw-control-character", lambda: one(content="x").replace('"content": "x"',
                                                               '"content": "a\x00b"'),
     "is not valid JSON .*control character"),
    ("bom", lambda: "\ufeff" + conv(), "is not valid JSON"),
    ("trailing-garbage", lambda: conv() + "x", "is not valid JSON .*Extra data"),
    ("huge-number", lambda: conv(x=0).replace('"x": 0', '"x": ' + "9" * 5000),
     "is not valid JSON"),
    # ids
    ("path-id", lambda: conv(id="/../../x"), r"'conversations.0.id': not an id tui-chat writes"),
    ("dots-id", lambda: conv(id=".."), r"'conversations.0.id': not an id"),
    ("dash-first-id", lambda: conv(id="-rf"), r"'conversations.0.id': not an id"),
    ("empty-id", lambda: conv(id=""), r"'conversations.0.id': not an id"),
    ("long-id", lambda: conv(id="a" * 65), r"'conversations.0.id': not an id"),
    ("nul-id", lambda: one(id="a\x00b"), r"'conversations.0.messages.0.id': not an id"),
    ("space-id", lambda: one(id="a b"), r"'conversations.0.messages.0.id': not an id"),
    ("backslash-id", lambda: one(id="a\\b"), r"'conversations.0.messages.0.id': not an id"),
    ("cyrillic-id", lambda: one(id="ид"), r"'conversations.0.messages.0.id': not an id"),
    ("number-id", lambda: one(id=5), r"'conversations.0.messages.0.id': must be a"),
    ("same-conversation-twice", lambda: document(conversation_dict(), conversation_dict()),
     r"holds the conversation id c twice \(at 'conversations.0.id' and 'conversations.1.id'\)"),
    ("same-message-twice", lambda: document(conversation_dict(
        messages=[message_dict(), message_dict()])),
     r"holds the message id m twice \(at 'conversations.0.messages.0.id' and "
     r"'conversations.0.messages.1.id'\)"),
    ("message-in-two-conversations", lambda: document(
        conversation_dict(id="c1", messages=[message_dict()]),
        conversation_dict(id="c2", messages=[message_dict()])),
     "holds the message id m twice"),
    # values no export writes
    ("unknown-role", lambda: one(role="robot"), r"messages.0.role'"),
    ("unknown-status", lambda: one(status="done"), r"messages.0.status'"),
    ("role-in-capitals", lambda: one(role="USER"), r"messages.0.role'"),
    ("content-number", lambda: one(content=5), r"messages.0.content': must be a valid"),
    ("created-missing", lambda: document(conversation_dict(messages=[
        {k: v for k, v in message_dict().items() if k != "created"}])),
     r"messages.0.created': Field required"),
    ("role-missing", lambda: document(conversation_dict(messages=[
        {k: v for k, v in message_dict().items() if k != "role"}])),
     r"messages.0.role': Field required"),
    ("title-null", lambda: conv(title=None), r"'conversations.0.title'"),
    ("pinned-string", lambda: conv(pinned="true"), r"'conversations.0.pinned'"),
    ("pinned-number", lambda: conv(archived=1), r"'conversations.0.archived'"),
    ("usage-string", lambda: one(usage={"prompt_tokens": "5", "completion_tokens": 1,
                                        "total_tokens": 6}), r"usage.prompt_tokens'"),
    ("usage-float", lambda: one(usage={"prompt_tokens": 1.5, "completion_tokens": 1,
                                       "total_tokens": 6}), r"usage.prompt_tokens'"),
    ("usage-bool", lambda: one(usage={"prompt_tokens": True, "completion_tokens": 1,
                                      "total_tokens": 6}), r"usage.prompt_tokens'"),
    ("usage-null-count", lambda: one(usage={"prompt_tokens": None}), r"usage.prompt_tokens'"),
    ("timing-string", lambda: one(time_to_first_token="0.5"), r"time_to_first_token'"),
    ("timing-bool", lambda: one(tokens_per_second=True), r"tokens_per_second'"),
    ("temperature-string", lambda: conv(parameters={"temperature": "0.7"}),
     r"parameters.temperature'"),
    ("max-tokens-float", lambda: conv(parameters={"max_tokens": 5.0}), r"parameters.max_tokens'"),
    ("stop-string", lambda: conv(parameters={"stop": "END"}), r"parameters.stop'"),
    ("unknown-parameter", lambda: conv(parameters={"seed": 1}), r"parameters.seed'"),
    ("no-offset", lambda: one(created="2026-01-01T00:00:00"), r"created': a timestamp needs its"),
    ("date-only", lambda: conv(updated="2026-01-01"), r"updated': a timestamp needs its UTC"),
    ("epoch-number", lambda: conv(created=1767225600), r"created': a timestamp must be an ISO"),
    ("not-a-time", lambda: one(created="yesterday"), r"created': not an ISO 8601 timestamp"),
    ("exported-number", lambda: json.dumps({"format": "tui-chat-conversations", "version": 1,
                                            "exported": 0, "conversations": []}),
     r"'exported': a timestamp must be an ISO"),
    ("version-string", lambda: conv().replace('"version": 1', '"version": "1"'),
     r"export format version '1', which no tui-chat writes"),
    ("version-true", lambda: conv().replace('"version": 1', '"version": true'),
     "export format version True, which no tui-chat writes"),
    ("version-zero", lambda: conv().replace('"version": 1', '"version": 0'),
     "export format version 0, which no tui-chat writes"),
    ("conversations-object", lambda: json.dumps({"format": "tui-chat-conversations",
                                                 "version": 1, "exported": "2026-01-01T00:00Z",
                                                 "conversations": {}}),
     r"'conversations': must be a valid list"),
]


@pytest.mark.parametrize(("build", "expected"), [(b, e) for _, b, e in HOSTILE],
                         ids=[name for name, _, _ in HOSTILE])
def test_a_hostile_file_is_one_sentence_and_nothing_is_written(
        target: Store, tmp_path: Path, build: Callable[[], str], expected: str) -> None:
    path = write(tmp_path / "hostile.json", build())
    with pytest.raises(UsageError, match=expected) as info:
        export.import_file(target, path)
    sentence = str(info.value)
    assert sentence.startswith(str(path)) and sentence.endswith(".")
    assert "\n" not in sentence and "\x00" not in sentence and len(sentence) < 400
    assert target.count_conversations() == 0
    assert target._conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 0


def test_a_problem_in_the_last_conversation_writes_none_of_the_others(
        target: Store, tmp_path: Path) -> None:
    good = [conversation_dict(id=f"ok{i}", messages=[message_dict(id=f"m{i}")])
            for i in range(5)]
    bad = conversation_dict(id="bad", messages=[message_dict(id="x", status="finished")])
    with pytest.raises(UsageError, match=r"conversations\.5\.messages\.0\.status"):
        export.import_file(target, write(tmp_path / "f.json", document(*good, bad)))
    assert target.count_conversations() == 0


@pytest.mark.parametrize("good_id", ["0123456789abcdef0123456789abcdef", "m1", "c", "A_b-9",
                                     "3f2a8b1c-0d4e-4f5a-9b6c-7d8e9f0a1b2c", "x" * 64])
def test_ids_an_export_could_hold_are_accepted(target: Store, tmp_path: Path,
                                               good_id: str) -> None:
    export.import_file(target, write(tmp_path / "f.json", document(
        conversation_dict(id=good_id, messages=[message_dict(id=good_id)]))))
    assert target.get_message(good_id).conversation_id == good_id


def test_surrogate_pairs_and_escaped_backslashes_are_text(target: Store, tmp_path: Path) -> None:
    text = one(content="x").replace('"content": "x"',
                                    '"content": "\\ud83d\\ude00 \\\\ud800 \\\\\\ud83d\\ude00"')
    export.import_file(target, write(tmp_path / "f.json", text))
    assert target.get_message("m").content == "\U0001f600 \\ud800 \\\U0001f600"


def test_a_message_id_another_conversation_uses_is_kept_under_a_new_id(
        target: Store, tmp_path: Path) -> None:
    """Import never drops a message (a follow-up without its question): it gets a new id,
    says so, and importing the file again adds nothing."""
    target.create_conversation(Conversation(id="mine", title="Mine"))
    target.add_message(Message(id="shared", conversation_id="mine", role=Role.USER,
                               content="my words"))
    text = document(conversation_dict(id="theirs", messages=[
        message_dict(id="shared", content="their words"), message_dict(id="own")]))
    result = export.import_file(target, write(tmp_path / "f.json", text))
    assert result == export.ImportResult(1, 0, 2, 0, messages_renamed=("shared",))
    assert result.describe() == (
        "Imported 1 conversation and 2 messages; gave 1 message a new id, as another "
        "conversation in the store already uses its old one (shared).")
    assert target.get_message("shared").content == "my words"
    new = derived_id("theirs", "shared", 0)
    assert [(m.id, m.content) for m in target.get_messages("theirs")] == [
        (new, "their words"), ("own", "")]
    assert target.get_message("own").parent_id == new
    again = export.import_file(target, tmp_path / "f.json")
    assert again.describe() == (
        "Imported 0 conversations and 0 messages; 1 conversation and 2 messages were already "
        "there.")


def test_many_renamed_ids_are_named_three_at_most(target: Store, tmp_path: Path) -> None:
    target.create_conversation(Conversation(id="mine"))
    for index in range(5):
        target.add_message(Message(id=f"s{index}", conversation_id="mine", role=Role.USER))
    text = document(conversation_dict(id="theirs", messages=[
        message_dict(id=f"s{index}") for index in range(5)]))
    described = export.import_file(target, write(tmp_path / "f.json", text)).describe()
    assert described.endswith("gave 5 messages new ids, as other conversations in the store "
                              "already use their old ones (s0, s1, s2, …).")


def test_a_file_made_to_collide_with_every_new_id_skips_only_then(
        target: Store, tmp_path: Path) -> None:
    target.create_conversation(Conversation(id="mine"))
    for attempt in ("shared", *(derived_id("theirs", "shared", n) for n in range(8))):
        target.add_message(Message(id=attempt, conversation_id="mine", role=Role.USER))
    text = document(conversation_dict(id="theirs", messages=[message_dict(id="shared")]))
    described = export.import_file(target, write(tmp_path / "f.json", text)).describe()
    assert described.endswith("skipped 1 message whose id another conversation in the store "
                              "already uses (shared).")


def test_imported_dates_never_lie_in_the_future(target: Store, tmp_path: Path) -> None:
    """A file dated 2999 does not become, for ever, the most recent conversation (`ask -c`
    continues it, the list shows it first)."""
    target.create_conversation(Conversation(id="mine", title="Mine"))
    text = document(conversation_dict(
        id="future", created="2999-01-01T00:00:00Z", updated="2999-01-01T00:00:00Z",
        messages=[message_dict(id="f1", created="2999-01-01T00:00:00Z")]))
    export.import_file(target, write(tmp_path / "f.json", text))
    target.add_message(Message(conversation_id="mine", role=Role.USER, content="later"))
    latest = target.latest_conversation()
    assert latest is not None and latest.id == "mine"
    assert [c.id for c in target.list_conversations()] == ["mine", "future"]
    assert target.get_message("f1").created.year < 2999


# -- our exports: strict JSON, and they always import back ----------------------------------

def strict_parse(text: str) -> Any:
    """Both a standard-only reading with Python's parser and pydantic's (jiter, which refuses
    NaN, Infinity and lone surrogates)."""
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in an export")
    value = json.loads(text, parse_constant=refuse)
    assert pydantic_core.from_json(text, allow_inf_nan=False) == value
    text.encode("utf-8")  # strict: no lone surrogates
    return value


def test_an_infinite_timing_is_exported_as_null(target: Store, tmp_path: Path) -> None:
    target.create_conversation(Conversation(id="c"))
    target.add_message(Message(id="inf", conversation_id="c", role=Role.ASSISTANT,
                               tokens_per_second=math.inf, time_to_first_token=-math.inf))
    text = export.export_json(target, ["c"])
    message = strict_parse(text)["conversations"][0]["messages"][0]
    assert (message["tokens_per_second"], message["time_to_first_token"]) == (None, None)


_ANY_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
_TIMING = st.one_of(st.sampled_from([None, math.inf, -math.inf, math.nan, 0.0, 1e308]),
                    st.floats(allow_nan=True, allow_infinity=True))


@pytest.fixture(scope="module")
def two_stores() -> Iterator[tuple[Store, Store, Path]]:
    """A source and a copy store shared by the examples of one property (each example uses
    new ids), so that an example costs an export and an import, not two new stores."""
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "a.db") as source, \
            Store.open(Path(folder) / "b.db") as copy:
        yield source, copy, Path(folder)


@settings(max_examples=60, deadline=None)
@given(title=_ANY_TEXT, content=_ANY_TEXT, reasoning=_ANY_TEXT, error=st.none() | _ANY_TEXT,
       stop=st.none() | st.lists(_ANY_TEXT, max_size=3), tps=_TIMING, ttft=_TIMING,
       tokens=st.integers(min_value=-(2**63), max_value=2**63 - 1),
       status=st.sampled_from(list(MessageStatus)), role=st.sampled_from(list(Role)))
def test_every_export_is_strict_json_and_imports_back_exactly(
        two_stores: tuple[Store, Store, Path], title: str, content: str, reasoning: str,
        error: str | None, stop: list[str] | None, tps: float | None, ttft: float | None,
        tokens: int, status: MessageStatus, role: Role) -> None:
    source, copy, folder = two_stores
    cid, mid = new_id(), new_id()
    source.create_conversation(Conversation(id=cid, title=title, system_prompt=content or None,
                                            parameters=Parameters(stop=stop)))
    source.add_message(Message(
        id=mid, conversation_id=cid, role=role, content=content, reasoning=reasoning,
        provider=title, model=content, status=status, error=error, finish_reason=error,
        tokens_per_second=tps, time_to_first_token=ttft,
        usage=Usage(prompt_tokens=tokens, completion_tokens=0, total_tokens=tokens)))
    text = export.export_json(source, [cid])
    strict_parse(text)
    assert export.import_file(copy, write(folder / "e.json", text)).messages_added == 1
    conversation, (message,) = source.get_conversation(cid), source.get_messages(cid)
    expected = message.model_copy(update={
        "status": MessageStatus.INTERRUPTED if status == MessageStatus.STREAMING else status,
        "tokens_per_second": _finite(message.tokens_per_second),
        "time_to_first_token": _finite(message.time_to_first_token)})
    assert (copy.get_conversation(cid), copy.get_messages(cid)) == (conversation, [expected])


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None
