"""API keys: refused when they cannot be sent, scrubbed from every error text."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tui_chat.core import secrets
from tui_chat.core.config import Settings
from tui_chat.core.errors import InvalidKeyError, InvalidURLError, ProviderError, TuiChatError
from tui_chat.core.models import Conversation, Message, MessageStatus, Role
from tui_chat.core.store import Store
from tui_chat.core.store_schema import message_row

SCRUB_KEY = "cpk_scrubtest0000.UNITSECRET"


@pytest.mark.parametrize(("key", "what"), [
    ("cpk_abcé123456", "a non-ASCII character (character 8 of 14)"),
    ("cpk_abc\n123456", "a line break (character 8 of 14)"),
    ("cpk_abc\r123456", "a line break"),
    ("cpk_abc\x01123456", "a control character"),
    ("cpk_abc\x7f123456", "a control character"),
    ("cpk_abc\x85123456", "a control character"),
    ("cpk_abc 123456", "a space"),
    ("cpk_abc\t123456", "a space"),
    ("नमस्तेcpk_123456", "a non-ASCII character (character 1 of"),
])
def test_keys_that_cannot_go_in_a_header_are_described_without_quoting(key: str,
                                                                         what: str) -> None:
    problem = secrets.key_problem(key)
    assert problem is not None and what in problem
    assert "123456" not in problem and "cpk" not in problem


def test_a_printable_ascii_key_is_fine() -> None:
    assert secrets.key_problem("cpk_abc.DEF-123_~+/=") is None


@pytest.mark.parametrize(("source", "env", "config"), [
    ("CHUTES_API_KEY", {"CHUTES_API_KEY": "cpk_envé000UNITSECRET"}, {}),
    ("api_key under [providers.chutes] in config.toml", {},
     {"providers": {"chutes": {"api_key": "cpk_file\n000UNITSECRET"}}}),
])
def test_resolving_refuses_the_key_and_names_where_it_came_from(
        source: str, env: dict[str, str], config: dict[str, object]) -> None:
    settings = Settings.model_validate(config)
    provider = settings.resolve_provider("chutes", env)
    assert provider.api_key is None and provider.key_error is not None
    with pytest.raises(InvalidKeyError) as raised:
        settings.require_key(provider)
    sentence = raised.value.message
    assert source in sentence and "cannot be sent in an HTTP header" in sentence
    assert "UNITSECRET" not in sentence and "000" not in sentence
    assert "UNITSECRET" not in repr(provider)


def test_a_broken_environment_key_does_not_fall_back_to_the_files() -> None:
    settings = Settings.model_validate({"providers": {"chutes": {"api_key": "cpk_good0000"}}})
    provider = settings.resolve_provider("chutes", {"CHUTES_API_KEY": "cpk_badé0000"})
    assert provider.api_key is None and "CHUTES_API_KEY" in (provider.key_error or "")


def test_an_unparsable_base_url_is_named_with_its_setting() -> None:
    provider = Settings().resolve_provider("chutes", {"CHUTES_BASE_URL": "http://127.0.0.1::1/v1",
                                                      "CHUTES_API_KEY": "cpk_good0000"})
    with pytest.raises(InvalidURLError) as raised:
        Settings().require_key(provider)
    assert "CHUTES_BASE_URL" in raised.value.message and "port" in raised.value.message
    with pytest.raises(ValueError, match="port"):
        Settings.model_validate({"providers": {"local": {"base_url": "http://127.0.0.1::1/v1"}}})


def test_every_remembered_form_of_a_key_is_scrubbed() -> None:
    key = "cpk_multi\nline0000.UNITSECRET"
    secrets.remember(key)
    for text in (f"Illegal header value b'Bearer {key!r}'", f"echo {key}",
                 f"{key.encode()!r}", "part line0000.UNITSECRET alone",
                 f"UnicodeEncodeError('ascii', {key!a})"):
        scrubbed = secrets.scrub(text)
        assert "UNITSECRET" not in scrubbed and secrets.KEY_HIDDEN in scrubbed, scrubbed


@pytest.mark.parametrize("text", [
    "Authorization: Bearer abc.def.ghi", "authorization=Basic dXNlcjpwYXNz",
    "header Bearer eyJhbGciOi.J9", "key cpk_0123456789abcdef", "sk-abcdefghijklmnop1234",
])
def test_credential_shapes_are_scrubbed_even_when_never_seen(text: str) -> None:
    scrubbed = secrets.scrub(text)
    assert secrets.KEY_HIDDEN in scrubbed
    assert not any(part in scrubbed for part in ("abc.def", "dXNlcj", "eyJhb", "0123456789ab",
                                                 "abcdefghijklmnop"))


def test_ordinary_text_is_left_alone() -> None:
    text = "The reply from Chutes ended early (cpk_…); bearer of good news. नमस्ते"
    assert secrets.scrub(text) == text


def test_every_typed_error_is_scrubbed_at_birth() -> None:
    secrets.remember(SCRUB_KEY)
    assert "UNITSECRET" not in TuiChatError(f"boom {SCRUB_KEY}").message
    error = ProviderError(f"Chutes rejected {SCRUB_KEY}; try again")
    assert "UNITSECRET" not in error.message + error.summary + str(error)


def test_the_stores_error_column_is_scrubbed() -> None:
    secrets.remember(SCRUB_KEY)
    message = Message(conversation_id="c", role=Role.ASSISTANT, status=MessageStatus.ERROR,
                      error=f"failed with {SCRUB_KEY}")
    assert not any("UNITSECRET" in str(value) for value in message_row(message).values())


def test_a_key_an_older_version_left_in_the_store_is_never_shown(tmp_path: Path) -> None:
    """An error written before every write was scrubbed, still on disk: reading it (the
    app, `show`, every export) gets the scrubbed text, and the row is left as it is."""
    from tui_chat.core.export import export_json, export_markdown

    path = tmp_path / "store.sqlite3"
    with Store.open(path) as store:
        conversation = store.create_conversation(Conversation())
        message = store.add_message(Message(
            conversation_id=conversation.id, role=Role.ASSISTANT, status=MessageStatus.ERROR,
            error="Chutes rejected the request."))
    with sqlite3.connect(path) as raw:  # what the older version wrote
        raw.execute("UPDATE messages SET error = ? WHERE id = ?",
                    (f"Chutes rejected {SCRUB_KEY}", message.id))
    with Store.open(path) as store:
        read = store.get_messages(conversation.id)
        exported = (export_json(store, [conversation.id])
                    + export_markdown(store, [conversation.id]))
    assert read[0].error is not None and read[0].error.startswith("Chutes rejected")
    assert "UNITSECRET" not in read[0].error and secrets.KEY_HIDDEN in read[0].error
    assert "UNITSECRET" not in exported and "Chutes rejected" in exported
