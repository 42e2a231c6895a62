"""Schema 8: a complete reply's advisory note (usage that made no sense, dropped) is its own
field, `Message.note`, not an error. On a store written by tui-chat at 0f2f1c6
(tests/fixtures/store-v7.sqlite3, see make_store_v7.py.txt) the migration moves the note out
of `error`, and leaves a real error where it is; the fold writes new notes to the field; JSON
export and import carry it, and an export from before it imports the note as the field."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from tests.unit.test_export import conversation_dict, document, message_dict
from tui_chat.core import export
from tui_chat.core.chunks import usage_event
from tui_chat.core.events import ContentDelta, FinishReason
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.reply_fold import ReplyFold
from tui_chat.core.store import Store
from tui_chat.core.store_schema import SCHEMA_VERSION

FIXTURE_V7 = Path(__file__).parent.parent / "fixtures" / "store-v7.sqlite3"
NOTE = ('The provider\'s token usage ({"prompt_tokens": "twelve", "completion_tokens": -3}) '
        "made no sense, so this reply has no token counts or cost.")


def test_a_schema_7_store_moves_usage_notes_out_of_error(tmp_path: Path) -> None:
    path = tmp_path / "v7.sqlite3"
    shutil.copy(FIXTURE_V7, path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 7
        before = conn.execute("SELECT id, role, content, status, error FROM messages "
                              "ORDER BY seq").fetchall()
    assert before[1][4] == NOTE  # as today's code kept it
    with Store.open(path) as store:
        conversation = store.latest_conversation()
        assert conversation is not None
        messages = store.get_messages(conversation.id)
        assert [(m.id, m.role.value, m.content, m.status.value) for m in messages] == [
            row[:4] for row in before]
        noted, plain, failed = messages[1], messages[3], messages[5]
        assert (noted.error, noted.note, noted.status) == (None, NOTE, MessageStatus.COMPLETE)
        assert not noted.failed
        assert (plain.error, plain.note) == (None, None)
        assert failed.error == before[5][4] and failed.note is None  # a real error stays
        assert failed.status is MessageStatus.ERROR
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9


def test_the_fold_keeps_a_usage_note_apart_from_errors() -> None:
    message = Message(conversation_id="c", role=Role.ASSISTANT,
                      status=MessageStatus.STREAMING)
    fold = ReplyFold(message, clock=lambda: 0.0)
    for event in (ContentDelta("Hello"), FinishReason("stop"),
                  usage_event({"prompt_tokens": "twelve"})):
        fold.apply(event)
    fold.finish()
    assert message.status is MessageStatus.COMPLETE and message.error is None
    assert message.note is not None and "made no sense" in message.note


def test_json_carries_the_note_both_ways(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.db") as source, Store.open(tmp_path / "b.db") as target:
        conversation = source.create_conversation(Conversation(id="8" * 32, title="Noted"))
        source.add_message(Message(id="n1", conversation_id=conversation.id, role=Role.USER,
                                   content="q"))
        source.add_message(Message(id="n2", conversation_id=conversation.id,
                                   role=Role.ASSISTANT, content="a", note=NOTE))
        assert source.get_message("n2").note == NOTE
        text = export.export_json(source, [conversation.id])
        exported = json.loads(text)["conversations"][0]["messages"][1]
        assert (exported["note"], exported["error"]) == (NOTE, None)
        file = tmp_path / "e.json"
        file.write_text(text, encoding="utf-8")
        export.import_file(target, file)
        assert (target.get_message("n2").note, target.get_message("n2").error) == (NOTE, None)


def test_an_export_from_before_the_field_imports_its_note_as_the_field(tmp_path: Path) -> None:
    text = document(conversation_dict(messages=[
        message_dict(id="u", content="q"),
        message_dict(id="r", role="assistant", content="a", error=NOTE),
        message_dict(id="f", role="assistant", content="", status="error",
                     error="The provider refused the request.")]))
    file = tmp_path / "old.json"
    file.write_text(text, encoding="utf-8")
    with Store.open(tmp_path / "t.db") as target:
        export.import_file(target, file)
        assert (target.get_message("r").note, target.get_message("r").error) == (NOTE, None)
        assert target.get_message("f").error == "The provider refused the request."
        assert target.get_message("f").note is None
