"""Fixtures shared by the unit tests (tests/conftest.py has the suite-wide ones: isolated
directories, the fake providers). A test file that needs a store or client made differently
defines its own fixture of the same name, which wins over these."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """An empty store of the test's own, closed after it."""
    with Store.open(tmp_path / "store.sqlite3") as opened:
        yield opened


@pytest.fixture
def source(tmp_path: Path) -> Iterator[Store]:
    """A store to export from (import tests)."""
    with Store.open(tmp_path / "source.db") as opened:
        yield opened


@pytest.fixture
def target(tmp_path: Path) -> Iterator[Store]:
    """A second store to import into (import tests)."""
    with Store.open(tmp_path / "target.db") as opened:
        yield opened


@pytest.fixture
async def client(chutes_server: FakeProvider) -> AsyncIterator[ProviderClient]:
    """A client of the loopback fake Chutes, no retries, a dummy key."""
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": chutes_server.url})
    async with ProviderClient(provider, "cpk_test", max_retries=0) as opened:
        yield opened
