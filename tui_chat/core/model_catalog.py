"""Each provider's models: from GET /models, cached in memory and on disk, known list as fallback.

`cached()` answers at once (memory, then the disk cache, then the provider's known list);
`refresh()` asks the provider and, on failure, keeps what it had with a note saying why.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import BaseModel, TypeAdapter, ValidationError

from tui_chat.core import paths
from tui_chat.core.config import Settings, write_private_file
from tui_chat.core.errors import TuiChatError
from tui_chat.core.files import read_bounded
from tui_chat.core.model_facts import merged
from tui_chat.core.models import ModelInfo
from tui_chat.core.providers import Provider
from tui_chat.core.text import one_line

Source = Literal["live", "cache", "known"]
Fetch = Callable[[Provider], Awaitable[list[ModelInfo]]]
_LIST_TIMEOUT = 20.0
FRESH_SECONDS = 600.0
_MAX_CACHE_BYTES = 64 * 1024 * 1024  # thousands of models each; a bigger file is no cache
"""A live list younger than this is not asked for again when the picker opens."""


class ProviderModels(BaseModel):
    """One provider's models and where they came from."""

    provider: str
    display_name: str
    models: list[ModelInfo]
    source: Source
    note: str | None = None
    """One sentence for the user when the list is not fresh (e.g. /models failed)."""
    has_key: bool = True
    fetched_at: float | None = None


_CACHE_ADAPTER = TypeAdapter(dict[str, ProviderModels])


def default_cache_file() -> Path:
    return Path(platformdirs.user_cache_dir(paths.APP_NAME, appauthor=False)) / "models.json"


class ModelCatalog:
    """Model lists of every configured provider. One per app: the memory cache lives here."""

    def __init__(self, settings: Settings, *, env: Mapping[str, str] | None = None,
                 cache_file: Path | None = None, fetch: Fetch | None = None) -> None:
        self.settings = settings
        self.env = env
        self.cache_file = default_cache_file() if cache_file is None else cache_file
        self._fetch = fetch or self._fetch_from_provider
        self._memory: dict[str, ProviderModels] = {}
        self._disk: dict[str, ProviderModels] | None = None
        self.problems: list[str] = []
        """Providers in config.toml that could not be resolved, one sentence each."""
        self.failures: dict[str, TuiChatError] = {}
        """Provider name -> why its last listing failed (cleared when one succeeds)."""

    def providers(self) -> list[Provider]:
        result: list[Provider] = []
        self.problems = []
        for name in self.settings.provider_names():
            try:
                result.append(self.settings.resolve_provider(name, self.env))
            except TuiChatError as error:
                self.problems.append(error.message)
        return result

    def cached(self, provider: Provider) -> ProviderModels:
        """What is known now, without any request."""
        if provider.name in self._memory:
            return self._memory[provider.name]
        on_disk = self._read_disk().get(provider.name)
        if on_disk is not None and on_disk.models:
            entry = on_disk.model_copy(update={"source": "cache", "note": None,
                                               "has_key": provider.ready})
        else:
            entry = self._known(provider, None)
        self._memory[provider.name] = entry
        return entry

    def facts(self, provider: Provider, model: str) -> ModelInfo:
        """What is known about `model` now, without any request: the provider's list (memory,
        disk cache), with the user's `[models."provider:model"]` settings over it."""
        listed = next((info for info in self.cached(provider).models if info.id == model), None)
        return merged(listed, provider.name, model,
                      self.settings.model_settings(provider.name, model))

    def knows_facts(self, provider: Provider) -> bool:
        """Whether the provider's list has been read (live or from the disk cache) or it has
        none to read: asking again would tell nothing new."""
        return (not provider.spec.has_models_endpoint
                or self.cached(provider).source in ("live", "cache"))

    def is_fresh(self, provider: Provider, max_age: float = FRESH_SECONDS) -> bool:
        """True when this catalog listed the provider's models live within `max_age` seconds
        (or the provider has no /models to ask)."""
        if not provider.spec.has_models_endpoint:
            return provider.name in self._memory
        entry = self._memory.get(provider.name)
        return (entry is not None and entry.source == "live" and entry.note is None
                and entry.fetched_at is not None and time.time() - entry.fetched_at < max_age)

    async def refresh(self, provider: Provider) -> ProviderModels:
        """Ask the provider; never raises for a provider failure (the note says what failed)."""
        if not provider.spec.has_models_endpoint:
            entry = self._known(provider, None)
            self._memory[provider.name] = entry
            return entry
        try:
            models = await self._fetch(provider)
        except TuiChatError as error:
            self.failures[provider.name] = error
            return self.mark_failed(provider, getattr(error, "summary", error.message))
        self.failures.pop(provider.name, None)
        if not models:
            return self.mark_failed(provider, f"{provider.display_name} listed no models")
        entry = ProviderModels(provider=provider.name, display_name=provider.display_name,
                               models=models, source="live", fetched_at=time.time(),
                               has_key=provider.ready)
        self._memory[provider.name] = entry
        await asyncio.to_thread(self._write_disk, provider.name, entry)
        return entry

    def mark_failed(self, provider: Provider, reason: str) -> ProviderModels:
        """Keep what is known for `provider`, with a note saying why it is not fresh."""
        previous = self.cached(provider)
        what = "the last list" if previous.source == "cache" else "the known ones"
        if previous.source == "live":
            what = "the list from earlier"
        note = (f"Could not list {provider.display_name}'s models: "
                f"{one_line(reason, 160).rstrip('.')}; showing {what}.")
        entry = previous.model_copy(update={"note": note})
        self._memory[provider.name] = entry
        return entry

    def _known(self, provider: Provider, note: str | None) -> ProviderModels:
        models = [ModelInfo(id=model, provider=provider.name) for model in provider.spec.models]
        return ProviderModels(provider=provider.name, display_name=provider.display_name,
                              models=models, source="known", note=note,
                              has_key=provider.ready)

    async def _fetch_from_provider(self, provider: Provider) -> list[ModelInfo]:
        from tui_chat.core.client import ProviderClient  # the HTTP stack: not at start-up

        key = provider.api_key.get_secret_value() if provider.api_key else None
        timeouts = self.settings.timeouts.model_copy(
            update={"first_byte": min(self.settings.timeouts.first_byte, _LIST_TIMEOUT)})
        async with ProviderClient(provider, key, timeouts=timeouts, max_retries=0,
                                  env=self.env) as client:
            return await client.list_models()

    def _read_disk(self) -> dict[str, ProviderModels]:
        if self._disk is None:
            try:
                self._disk = _CACHE_ADAPTER.validate_json(read_bounded(self.cache_file,
                                                                    _MAX_CACHE_BYTES))
            except (OSError, ValidationError, ValueError):
                self._disk = {}  # a missing or unreadable cache is only a cache
        return self._disk

    def _write_disk(self, name: str, entry: ProviderModels) -> None:
        data = dict(self._read_disk())
        data[name] = entry
        self._disk = data
        text = json.dumps({key: value.model_dump(mode="json") for key, value in data.items()})
        # On failure the memory cache still works; the next start asks again.
        with contextlib.suppress(OSError):
            write_private_file(self.cache_file, text)
