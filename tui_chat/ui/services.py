"""What the app is built from: the core workspace, and what only the app needs (where to save
Settings, the notice about a broken config file). Tests build it with a tmp store and a
loopback URL; `tui_chat.commands.app` builds it as `tui-chat` finds things."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path

from msgspec import Struct

from tui_chat.core.config import Settings
from tui_chat.core.errors import TuiChatError
from tui_chat.core.store import Store
from tui_chat.core.workspace import Workspace

READ_COALESCE = 0.1
"""Seconds between two reads of a trickling stream. The live reply is drawn 2-20 times a
second (reply_view's CPU governor), and each read costs as much CPU as drawing a few tokens
(ProviderClient.coalesce); benchmarks/bench_ui_stream.py measures the app's CPU share."""


class AppServices(Struct):
    workspace: Workspace
    config_path: Path
    config_notice: str | None = None
    """Why config.toml could not be used (the app then runs on the defaults), else None."""
    list_models_at_start: bool = False
    """When the current provider's models have never been listed (no cache), list them once
    after start-up, for their windows and prices (tui-chat does; tests choose)."""

    @classmethod
    def create(cls, settings: Settings, store: Store, *, config_path: Path,
               env: Mapping[str, str] | None = None, config_notice: str | None = None,
               provider: str | None = None, model: str | None = None,
               clock: Callable[[], float] = time.monotonic,
               list_models_at_start: bool = False) -> AppServices:
        """Raises UnknownProviderError for an unknown -p."""
        workspace = Workspace(settings, store, env=env, provider=provider, model=model,
                              clock=clock, read_coalesce=READ_COALESCE)
        return cls(workspace, config_path, config_notice, list_models_at_start)

    @property
    def settings(self) -> Settings:
        return self.workspace.settings

    @property
    def store(self) -> Store:
        return self.workspace.store

    @property
    def clock(self) -> Callable[[], float]:
        return self.workspace.clock


def no_key_sentence(workspace: Workspace) -> str | None:
    """The first-run hint when no provider has a usable key, else None."""
    settings, refused = workspace.settings, None
    for name in settings.provider_names():
        try:
            provider = settings.resolve_provider(name, workspace.env)
        except TuiChatError:
            continue
        if provider.ready:
            return None
        refused = refused or provider.key_error
    if refused is not None:
        return refused
    return ("No API key is set yet: export CHUTES_API_KEY or SUTRA_API_KEY before starting "
            "tui-chat, or press F3 (Settings) and paste a key.")
