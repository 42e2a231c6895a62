"""A provider that needs no key (a local server): `needs_key = false` in its section; then
requests go without an Authorization header, and a refusal is not called a rejected key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.config import Settings, load_settings
from tui_chat.core.errors import ConfigError
from tui_chat.core.model_catalog import ModelCatalog
from tui_chat.core.session import ReplyFinished
from tui_chat.core.store import Store
from tui_chat.core.workspace import Workspace


def keyless(server: FakeProvider, **extra: object) -> Settings:
    section = {"base_url": server.url, "needs_key": False, "models": ["llama-3.1-8b"]} | extra
    return Settings.model_validate({"default_provider": "local",
                                    "providers": {"local": section}})


async def test_a_keyless_provider_is_asked_without_an_authorization_header(
        tmp_path: Path, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["Hi there"], model="llama-3.1-8b")))
    with Store.open(tmp_path / "store.sqlite3") as store:
        workspace = Workspace(keyless(chutes_server), store, env={"LOCAL_KEY": "x"})
        events = [event async for event in workspace.send("hello")]
    assert any(isinstance(event, ReplyFinished) for event in events)
    request = chutes_server.requests[-1]
    assert request.method == "POST" and "authorization" not in request.headers


async def test_a_keyless_providers_refused_model_list_is_not_called_a_rejected_key(
        tmp_path: Path, chutes_server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = keyless(chutes_server)
    provider = settings.resolve_provider("local", env={})
    catalog = ModelCatalog(settings, cache_file=tmp_path / "models.json", env={})
    monkeypatch.setattr(chutes_server, "models_status", 401)
    entry = await catalog.refresh(provider)
    assert entry.has_key  # the picker does not say "no key" of it
    assert entry.note is not None and "401" in entry.note
    assert "rejected the API key" not in entry.note and "needs_key" in entry.note
    assert "authorization" not in chutes_server.requests[-1].headers


def test_needs_key_false_with_a_key_set_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[providers.local]\nbase_url = "http://127.0.0.1:8080/v1"\n'
                    'needs_key = false\napi_key = "local-key-0123456789"\n')
    with pytest.raises(ConfigError) as raised:
        load_settings(path)
    message = raised.value.message
    assert "providers.local" in message and "needs_key" in message and "api_key" in message
