"""Export to JSON and Markdown, and import of JSON: exact round trip, idempotent, bad files."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core import export
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.errors import UsageError
from tui_chat.core.models import (
    Conversation,
    Message,
    MessageStatus,
    Parameters,
    Role,
    Usage,
)
from tui_chat.core.session import ChatSession
from tui_chat.core.store import Store

T0 = datetime(2026, 3, 4, 5, 6, 7, 890123, tzinfo=UTC)


def fill(store: Store) -> list[str]:
    """Two conversations using every field, with unusual text."""
    first = store.create_conversation(Conversation(
        id="1" * 32, title="Ünïcode «title» नमस्ते", created=T0, updated=T0 + timedelta(hours=1),
        provider="sutra", model="sutra-r0", system_prompt="Answer in Tamil.\nBe brief.",
        parameters=Parameters(temperature=0.3, max_tokens=99, top_p=0.9, presence_penalty=0.5,
                              frequency_penalty=-0.5, stop=["END", "\n\n"]),
        pinned=True, archived=True))
    store.add_message(Message(id="m1", conversation_id=first.id, role=Role.USER,
                              content="வணக்கம்\r\n\ttabbed \x1b[31mred\x1b[0m", created=T0))
    store.add_message(Message(
        id="m2", conversation_id=first.id, role=Role.ASSISTANT, content="你好世界 **bold**",
        reasoning="Thinking…\nstep 2", provider="sutra", model="sutra-r0",
        status=MessageStatus.INTERRUPTED, error="SUTRA cut the reply off.", finish_reason=None,
        usage=Usage(prompt_tokens=10, completion_tokens=20, total_tokens=30),
        time_to_first_token=1.234567, tokens_per_second=55.5, streamed=False,
        reasoning_sent="low", created=T0 + timedelta(seconds=1)))
    store.add_message(Message(
        id="m3", conversation_id=first.id, role=Role.ASSISTANT, content="", provider="chutes",
        model="deepseek-ai/DeepSeek-R1", status=MessageStatus.ERROR, error="No quota (402).",
        created=T0 + timedelta(seconds=2)))
    second = store.create_conversation(Conversation(id="2" * 32, title="Plain"))
    store.add_message(Message(id="m4", conversation_id=second.id, role=Role.USER, content="hi",
                              finish_reason="stop"))
    return [first.id, second.id]


def everything(store: Store) -> list[tuple[Conversation, list[Message]]]:
    ids = sorted(s.id for s in store.list_conversations(limit=-1))
    return [(store.get_conversation(cid), store.get_messages(cid)) for cid in ids]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_json_round_trip_restores_every_field(source: Store, target: Store,
                                              tmp_path: Path) -> None:
    ids = fill(source)
    path = write(tmp_path / "export.json", export.export_json(source, ids))
    result = export.import_file(target, path)
    assert result == export.ImportResult(conversations_added=2, conversations_present=0,
                                         messages_added=4)
    assert everything(target) == everything(source)
    # Every model field is compared above; make sure none is silently left at its default.
    message = target.get_message("m2")
    assert message.usage == Usage(prompt_tokens=10, completion_tokens=20, total_tokens=30)
    assert message.time_to_first_token == 1.234567 and message.created.microsecond == 890123
    assert (message.streamed, message.reasoning_sent) == (False, "low")


def test_json_document_is_the_documented_format(source: Store) -> None:
    ids = fill(source)
    document = json.loads(export.export_json(source, ids))
    assert document["format"] == "tui-chat-conversations" and document["version"] == 2
    first = document["conversations"][0]
    assert set(first) == {"id", "title", "created", "updated", "provider", "model",
                          "system_prompt", "parameters", "pinned", "archived", "messages",
                          "forked_from", "forked_from_message", "active_root_id",
                          "context_from"}
    assert set(first["messages"][0]) == {
        "id", "role", "content", "reasoning", "provider", "model", "status", "error",
        "finish_reason", "usage", "time_to_first_token", "tokens_per_second", "created",
        "parent_id", "partial_in_context", "active_child_id", "attachments", "tool_calls",
        "tool_call_id", "sent_as", "tool_run", "note", "streamed", "reasoning_sent"}
    assert first["parameters"]["stop"] == ["END", "\n\n"]
    assert "temperature" in first["parameters"]
    assert "temperature" not in document["conversations"][1]["parameters"]


def test_importing_twice_adds_nothing(source: Store, target: Store, tmp_path: Path) -> None:
    path = write(tmp_path / "export.json", export.export_json(source, fill(source)))
    export.import_file(target, path)
    again = export.import_file(target, path)
    assert again == export.ImportResult(0, 2, 0, 4)
    assert again.describe() == ("Imported 0 conversations and 0 messages; 2 conversations and "
                                "4 messages were already there.")
    assert target.count_conversations() == 2
    assert sum(target.count_messages(c.id) for c, _ in everything(target)) == 4


def test_import_adds_messages_missing_from_a_known_conversation(
        source: Store, target: Store, tmp_path: Path) -> None:
    ids = fill(source)
    export.import_file(target, write(tmp_path / "a.json", export.export_json(source, ids)))
    source.add_message(Message(id="m5", conversation_id=ids[0], role=Role.USER, content="more"))
    result = export.import_file(target, write(tmp_path / "b.json",
                                              export.export_json(source, ids)))
    assert result == export.ImportResult(0, 2, 1, 4)
    assert target.get_messages(ids[0])[-1].content == "more"


def message_dict(**fields: object) -> dict[str, object]:
    """A message as an export writes it (every key)."""
    return {"id": "m", "role": "user", "content": "", "reasoning": "", "provider": None,
            "model": None, "status": "complete", "error": None, "finish_reason": None,
            "usage": None, "time_to_first_token": None, "tokens_per_second": None,
            "created": "2026-01-01T00:00:00Z", **fields}


def conversation_dict(**fields: object) -> dict[str, object]:
    """A conversation as an export writes it (every key)."""
    return {"id": "c", "title": "t", "created": "2026-01-01T00:00:00Z",
            "updated": "2026-01-01T00:00:00Z", "provider": None, "model": None,
            "system_prompt": None, "parameters": {}, "pinned": False, "archived": False,
            "messages": [], **fields}


def document(*conversations: dict[str, object], **fields: object) -> str:
    return json.dumps({"format": "tui-chat-conversations", "version": 1,
                       "exported": "2026-01-01T00:00:00+00:00",
                       "conversations": list(conversations), **fields})


def test_a_streaming_message_is_imported_as_interrupted(target: Store, tmp_path: Path) -> None:
    text = document(conversation_dict(future_key="ignored", messages=[message_dict(
        id="x", role="assistant", content="half", status="streaming",
        created="2026-01-01T00:00:00+05:30")]))
    export.import_file(target, write(tmp_path / "s.json", text))
    message = target.get_message("x")
    assert message.status == MessageStatus.INTERRUPTED
    assert message.created == datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=5.5)))


@pytest.mark.parametrize(("content", "expected"), [
    ("{not json", r"is not valid JSON .*tui-chat export --format json"),
    ('["a list"]', "is not a tui-chat export"),
    ('{"format": "something-else", "version": 1}', "is not a tui-chat export"),
    ('{"format": "tui-chat-conversations", "version": 7, "conversations": []}',
     "version 7, newer than this tui-chat understands .*upgrade"),
    ('{"format": "tui-chat-conversations", "version": 1, '
     '"exported": "2026-01-01T00:00:00Z"}',
     "has a problem at 'conversations': Field required; nothing was imported"),
    (document(conversation_dict(messages=[message_dict(role="robot")])),
     r"has a problem at 'conversations.0.messages.0.role'"),
    (document(conversation_dict(parameters={"temperature": 9})),
     "has a problem at 'conversations.0.parameters.temperature'"),
])
def test_a_bad_file_is_one_sentence_and_imports_nothing(
        target: Store, tmp_path: Path, content: str, expected: str) -> None:
    with pytest.raises(UsageError, match=expected) as info:
        export.import_file(target, write(tmp_path / "bad.json", content))
    assert str(tmp_path / "bad.json") in str(info.value)
    assert "\n" not in str(info.value)
    assert target.count_conversations() == 0


def test_a_huge_file_is_refused_before_reading(target: Store, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(export, "MAX_IMPORT_BYTES", 1024 * 1024)
    path = tmp_path / "huge.json"
    path.write_bytes(b" " * (3 * 1024 * 1024))
    with pytest.raises(UsageError, match=r"is 3 MB, more than the 1 MB an import may be"):
        export.import_file(target, path)


def test_missing_and_binary_files_are_one_sentence(target: Store, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="There is no file"):
        export.import_file(target, tmp_path / "nope.json")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(UsageError, match="is not UTF-8 text"):
        export.import_file(target, binary)


def test_markdown_is_readable_and_safe(source: Store) -> None:
    ids = fill(source)
    text = export.export_markdown(source, ids)
    assert text.startswith("# Ünïcode «title» नमस्ते\n")
    assert "- Last model: chutes/deepseek-ai/DeepSeek-R1" in text  # the last reply's
    assert "> Answer in Tamil.\n> Be brief." in text
    assert "## You · 2026-03-04 05:06:07 UTC" in text
    assert "## Assistant · sutra/sutra-r0 · 2026-03-04 05:06:08 UTC" in text
    assert "<details>\n<summary>Reasoning</summary>\n\nThinking…\nstep 2\n\n</details>" in text
    assert "*[interrupted] SUTRA cut the reply off.*" in text
    assert "*(no text)*" in text and "*[error] No quota (402).*" in text
    assert "\x1b" not in text and "\r" not in text
    assert "வணக்கம்\n\ttabbed [31mred[0m" in text
    assert "\n\n---\n\n# Plain\n" in text


async def test_exports_never_hold_the_api_key(source: Store,
                                              chutes_server: FakeProvider) -> None:
    key = "cpk_secret_0123456789"
    chutes_server.script(Reply(stream_of(["fine"])))
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": chutes_server.url})
    session = ChatSession.start(source)
    async with ProviderClient(provider, key, max_retries=0) as client:
        async for _ in session.send("hello", client=client, model="m"):
            pass
    ids = [session.conversation.id]
    assert chutes_server.requests[-1].headers["authorization"] == f"Bearer {key}"
    for text in (export.export_json(source, ids), export.export_markdown(source, ids)):
        assert "fine" in text and key not in text and "cpk_" not in text
