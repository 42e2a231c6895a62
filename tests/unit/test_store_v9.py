"""Schema 9: a reply keeps what it was sent with. `Message.streamed` (False: the provider sent
it whole, a JSON body) and `Message.reasoning_sent` (the reasoning setting the request
carried) are stored, so a reopened conversation's headers say what they said while it was
open (issue 25); JSON export and import carry them. A store written at schema 8
(tests/fixtures/store-v8.sqlite3, see make_store_v8.py.txt) migrates, its replies read back as
before (streamed, no setting known). `sent_as` (issue 27) has been stored since schema 6."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of, whole_completion
from tests.unit.test_export import conversation_dict, document, message_dict
from tui_chat.core import export
from tui_chat.core.config import Settings
from tui_chat.core.errors import UsageError
from tui_chat.core.model_facts import ModelSettings
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.core.store_schema import SCHEMA_VERSION
from tui_chat.core.workspace import Workspace
from tui_chat.ui.widgets.message_view import author_line

FIXTURE_V8 = Path(__file__).parent.parent / "fixtures" / "store-v8.sqlite3"
MODEL = "fake/thinker"
WHOLE = "sent whole, not streamed"


def facts(messages: list[Message]) -> list[tuple[str, bool, str | None]]:
    return [(m.content, m.streamed, m.reasoning_sent) for m in messages
            if m.role is Role.ASSISTANT]


def test_a_schema_8_store_migrates_and_its_replies_read_as_before(tmp_path: Path) -> None:
    path = tmp_path / "v8.sqlite3"
    shutil.copy(FIXTURE_V8, path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 8
        before = conn.execute("SELECT id, role, content, status FROM messages "
                              "ORDER BY seq").fetchall()
    with Store.open(path) as store:
        conversation = store.latest_conversation()
        assert conversation is not None
        messages = store.get_messages(conversation.id)
        assert [(m.id, m.role.value, m.content, m.status.value) for m in messages] == before
        # Schema 8 forgot both facts: read back as the code of schema 8 read them.
        assert facts(messages) == [("Quick answer.", True, None), ("Sent at once.", True, None),
                                   ("Plain answer.", True, None)]
        assert facts(store.get_tree(conversation.id).messages) == facts(messages)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
        columns = {row[1]: row[2] for row in conn.execute("PRAGMA table_info(messages)")}
        assert (columns["streamed"], columns["reasoning_sent"]) == ("INTEGER", "TEXT")
        assert conn.execute("SELECT count(*) FROM messages WHERE streamed IS NOT NULL "
                            "OR reasoning_sent IS NOT NULL").fetchone()[0] == 0


def test_the_store_keeps_both_facts_as_written_and_as_updated(store: Store) -> None:
    conversation = store.create_conversation(Conversation(id="9" * 32, title="Sent with"))
    store.add_message(Message(id="u", conversation_id=conversation.id, role=Role.USER,
                              content="q"))
    reply = Message(id="r", conversation_id=conversation.id, parent_id="u",
                    role=Role.ASSISTANT, reasoning_sent="off")
    store.add_message(reply)
    assert facts([store.get_message("r")]) == [("", True, "off")]
    reply.content, reply.streamed = "whole", False  # the fold learns it at the end
    store.update_message(reply)
    assert facts([store.get_message("r")]) == [("whole", False, "off")]
    assert facts(store.get_messages(conversation.id)) == [("whole", False, "off")]
    assert facts(store.get_tree(conversation.id).messages) == [("whole", False, "off")]
    user = store.get_message("u")
    assert (user.streamed, user.reasoning_sent) == (True, None)


async def test_replies_of_the_real_exchange_keep_their_facts_once_reopened(
        chutes_server: FakeProvider, tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    env = {"CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": "cpk_store9-test-key-01"}
    settings = Settings(default_model=MODEL,
                        models={f"chutes:{MODEL}": ModelSettings(reasoning=True)})
    with Store.open(path) as store:
        workspace = Workspace(settings, store, env=env)
        try:
            assert workspace.set_reasoning("off") is None
            chutes_server.script(Reply(stream_of(["Quick ", "answer."])))
            [e async for e in workspace.send("First?")]
            chutes_server.script(whole_completion("Sent at once."))
            [e async for e in workspace.send("Second?")]
        finally:
            await workspace.aclose()
        cid = workspace.session.conversation.id
    with Store.open(path) as reopened:
        assert facts(reopened.get_messages(cid)) == [("Quick answer.", True, "off"),
                                                     ("Sent at once.", False, "off")]


def test_json_carries_both_facts_both_ways(source: Store, target: Store,
                                           tmp_path: Path) -> None:
    conversation = source.create_conversation(Conversation(id="9" * 32, title="Sent with"))
    source.add_message(Message(id="u", conversation_id=conversation.id, role=Role.USER,
                               content="q"))
    source.add_message(Message(id="r", conversation_id=conversation.id, role=Role.ASSISTANT,
                               content="a", model="m", streamed=False, reasoning_sent="off"))
    text = export.export_json(source, [conversation.id])
    user, reply = json.loads(text)["conversations"][0]["messages"]
    assert (reply["streamed"], reply["reasoning_sent"]) == (False, "off")
    assert (user["streamed"], user["reasoning_sent"]) == (True, None)
    file = tmp_path / "e.json"
    file.write_text(text, encoding="utf-8")
    export.import_file(target, file)
    imported = target.get_message("r")
    assert facts([imported]) == [("a", False, "off")]
    header = author_line(imported).plain
    assert "· reasoning off" in header and WHOLE in header


def test_an_export_without_the_keys_imports_as_before(target: Store, tmp_path: Path) -> None:
    text = document(conversation_dict(messages=[
        message_dict(id="u", content="q"),
        message_dict(id="r", role="assistant", content="a", parent_id="u")]), version=2)
    file = tmp_path / "old.json"
    file.write_text(text, encoding="utf-8")
    export.import_file(target, file)
    assert facts([target.get_message("r")]) == [("a", True, None)]


@pytest.mark.parametrize(("fields", "where"), [
    ({"streamed": "no"}, "streamed"), ({"streamed": 0}, "streamed"),
    ({"reasoning_sent": "extreme"}, "reasoning_sent"),
    ({"reasoning_sent": "off\x1b]0;title\x07"}, "reasoning_sent"),
])
def test_an_import_takes_only_what_an_export_writes(target: Store, tmp_path: Path,
                                                     fields: dict[str, object],
                                                     where: str) -> None:
    text = document(conversation_dict(messages=[
        message_dict(id="r", role="assistant", content="a", **fields)]), version=2)
    file = tmp_path / "bad.json"
    file.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as error:
        export.import_file(target, file)
    assert f"conversations.0.messages.0.{where}" in error.value.message
    assert target.list_conversations() == []


def test_a_setting_a_later_version_stored_is_shown_plainly_and_exported_as_none(
        source: Store, target: Store, tmp_path: Path) -> None:
    """The store may hold a setting this version does not know (or, written by another
    program, control characters): the header draws it as text, an export leaves it out so
    that the file imports."""
    conversation = source.create_conversation(Conversation(id="9" * 32, title="Later"))
    source.add_message(Message(id="r", conversation_id=conversation.id, role=Role.ASSISTANT,
                               content="a", reasoning_sent="minimal\x1b]0;x\x07"))
    stored = source.get_message("r")
    assert stored.reasoning_sent == "minimal\x1b]0;x\x07"
    assert "\x1b" not in author_line(stored).plain and "reasoning minimal" in (
        author_line(stored).plain)
    text = export.export_json(source, [conversation.id])
    assert json.loads(text)["conversations"][0]["messages"][0]["reasoning_sent"] is None
    file = tmp_path / "e.json"
    file.write_text(text, encoding="utf-8")
    export.import_file(target, file)
    assert target.get_message("r").reasoning_sent is None
