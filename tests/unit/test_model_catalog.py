"""The model catalog: live lists cached on disk, known lists as fallback, a note on failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider
from tui_chat.core.config import ProviderConfig, Settings
from tui_chat.core.errors import ServerError
from tui_chat.core.model_catalog import ModelCatalog, default_cache_file
from tui_chat.core.models import ModelInfo
from tui_chat.core.providers import Provider


async def test_live_list_is_cached_on_disk_and_used_by_the_next_catalog(
        chutes_server: FakeProvider, tmp_path: Path) -> None:
    settings = Settings(providers={"chutes": ProviderConfig(base_url=chutes_server.url)})
    cache = tmp_path / "cache" / "models.json"
    catalog = ModelCatalog(settings, cache_file=cache)
    chutes = settings.resolve_provider("chutes")
    assert catalog.cached(chutes).source == "known"
    entry = await catalog.refresh(chutes)
    assert entry.source == "live" and entry.note is None
    assert [m.context_length for m in entry.models] == [163840, 163840, None]
    assert os.stat(cache).st_mode & 0o777 == 0o600
    again = ModelCatalog(settings, cache_file=cache).cached(chutes)
    assert again.source == "cache"
    assert [m.id for m in again.models] == [m.id for m in entry.models]
    assert again.models[0].price == "in 0.27 / out 1.1"


async def test_failure_keeps_the_cached_list_with_a_note(tmp_path: Path) -> None:
    calls: list[str] = []

    async def fetch(provider: Provider) -> list[ModelInfo]:
        calls.append(provider.name)
        if len(calls) > 1:
            raise ServerError("Chutes had a server error (500).")
        return [ModelInfo(id="only/model", provider=provider.name)]

    settings = Settings()
    chutes = settings.resolve_provider("chutes")
    catalog = ModelCatalog(settings, cache_file=tmp_path / "m.json", fetch=fetch)
    assert (await catalog.refresh(chutes)).source == "live"
    failed = await catalog.refresh(chutes)
    assert [m.id for m in failed.models] == ["only/model"]
    assert failed.note == ("Could not list Chutes's models: Chutes had a server error (500); "
                           "showing the list from earlier.")


async def test_provider_without_models_endpoint_is_not_asked(sutra_server: FakeProvider,
                                                             tmp_path: Path) -> None:
    settings = Settings(providers={"sutra": ProviderConfig(base_url=sutra_server.url)})
    catalog = ModelCatalog(settings, cache_file=tmp_path / "m.json")
    entry = await catalog.refresh(settings.resolve_provider("sutra"))
    assert [m.id for m in entry.models] == ["sutra-v2", "sutra-r0"]
    assert entry.source == "known" and entry.note is None
    assert sutra_server.requests == []


def test_broken_cache_file_is_only_a_cache(tmp_path: Path) -> None:
    cache = tmp_path / "m.json"
    cache.write_text("{not json", encoding="utf-8")
    settings = Settings()
    entry = ModelCatalog(settings, cache_file=cache).cached(settings.resolve_provider("sutra"))
    assert entry.source == "known"
    assert cache.read_text(encoding="utf-8") == "{not json"  # never overwritten by reading


def test_unknown_config_provider_is_reported_not_raised() -> None:
    settings = Settings(providers={"local": ProviderConfig(display_name="no url")})
    catalog = ModelCatalog(settings)
    assert [p.name for p in catalog.providers()] == ["chutes", "sutra"]
    assert len(catalog.problems) == 1 and "Unknown provider 'local'" in catalog.problems[0]
    assert default_cache_file().name == "models.json"


async def test_the_key_is_sent_to_models_but_never_cached(
        chutes_server: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUTES_API_KEY", "cpk_DISTINCTIVE_KEY_42")
    settings = Settings(providers={"chutes": ProviderConfig(base_url=chutes_server.url)})
    cache = tmp_path / "models.json"
    entry = await ModelCatalog(settings, cache_file=cache).refresh(
        settings.resolve_provider("chutes"))
    assert entry.has_key
    [request] = [r for r in chutes_server.requests if r.path == "/v1/models"]
    assert request.headers["authorization"] == "Bearer cpk_DISTINCTIVE_KEY_42"
    assert "DISTINCTIVE" not in cache.read_text(encoding="utf-8")
