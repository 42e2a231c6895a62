"""Where tui-chat keeps its files. platformdirs honours XDG_CONFIG_HOME / XDG_DATA_HOME."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

APP_NAME = "tui-chat"


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def state_dir() -> Path:
    """Crash reports (XDG_STATE_HOME on Linux)."""
    return Path(platformdirs.user_state_dir(APP_NAME, appauthor=False))


def config_file(env: Mapping[str, str] | None = None) -> Path:
    """TUI_CHAT_CONFIG points at another config file (handy for tests and profiles)."""
    override = (os.environ if env is None else env).get("TUI_CHAT_CONFIG")
    return Path(override) if override else config_dir() / "config.toml"


def store_file(env: Mapping[str, str] | None = None) -> Path:
    """TUI_CHAT_DB points at another store file."""
    override = (os.environ if env is None else env).get("TUI_CHAT_DB")
    return Path(override) if override else data_dir() / "conversations.sqlite3"


def user_themes_dir() -> Path:
    return config_dir() / "themes"
