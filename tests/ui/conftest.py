"""Fixtures for Pilot tests: an app factory over a tmp store and the loopback fake provider."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakeprovider import FakeProvider
from tui_chat.core.config import Settings
from tui_chat.core.store import Store
from tui_chat.ui.app import TuiChatApp
from tui_chat.ui.controller import Services

AppFactory = Callable[..., TuiChatApp]


class FixedClock:
    """A clock that only moves when a test says so (status line figures are stable)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 0.25
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "store.sqlite3") as opened:
        yield opened


@pytest.fixture
def make_app(store: Store, tmp_path: Path, chutes_server: FakeProvider) -> AppFactory:
    """`make_app(key=True, settings=None, **app_kwargs)`: a TuiChatApp on the fake Chutes."""

    def factory(*, key: bool = True, settings: Settings | None = None,
                clock: Callable[[], float] | None = None, **kwargs: Any) -> TuiChatApp:
        env = {"CHUTES_BASE_URL": chutes_server.url}
        if key:
            env["CHUTES_API_KEY"] = "test-key-123456789"
        services = Services(settings=settings or Settings(), store=store,
                            config_path=tmp_path / "config.toml", env=env,
                            clock=clock or FixedClock())
        return TuiChatApp(services, **kwargs)

    return factory
