"""The composition root's parts: the environment, read once; the settings; the store.

Every command (and the app) is built from a `Context`: nothing else reads `os.environ` for
tui-chat's own variables, loads config.toml or opens the conversation store.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct, field

from tui_chat.core import paths
from tui_chat.core.config import Settings, load_settings, load_settings_or_defaults

if TYPE_CHECKING:
    from tui_chat.core.store import Store


class Context(Struct, frozen=True):
    """Where things are, as the environment says (TUI_CHAT_CONFIG, TUI_CHAT_DB, XDG_*)."""

    env: Mapping[str, str] = field(default_factory=lambda: os.environ)

    @property
    def config_path(self) -> Path:
        return paths.config_file(self.env)

    @property
    def store_path(self) -> Path:
        return paths.store_file(self.env)

    def settings(self) -> Settings:
        """config.toml, validated (ConfigError: the commands stop with its sentence)."""
        return load_settings(self.config_path)

    def settings_or_defaults(self) -> tuple[Settings, str | None]:
        """For the app, which starts anyway: the defaults and the sentence when the file
        cannot be used."""
        return load_settings_or_defaults(self.config_path)

    def open_store(self, settings: Settings | None = None) -> Store:
        """The conversation store (StoreError when it cannot be used); `settings`: those in
        force, whose keys a migration scrubs from an old store's texts."""
        from tui_chat.core.store import Store

        return Store.open(self.store_path, keys=self._keys(settings))

    def open_store_or_temporary(self, settings: Settings | None = None) -> Store:
        """For the app, which starts anyway: a temporary store that says so when the real one
        cannot be used."""
        from tui_chat.core.errors import StoreError
        from tui_chat.core.store import Store

        try:
            return Store.open(self.store_path, keys=self._keys(settings))
        except StoreError as error:
            return Store.open_temporary(error.message)

    def _keys(self, settings: Settings | None) -> list[str]:
        return settings.configured_keys(self.env) if settings is not None else []
