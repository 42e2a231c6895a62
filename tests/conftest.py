"""Shared fixtures. Every test runs with its own config and data dirs and no real keys."""

from __future__ import annotations

import gc
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.fakeprovider import FakeProvider

# Hypothesis times each example (a 200 ms deadline) and the generation of its data (the
# too_slow health check): on a loaded machine both fail a correct test. What a property test
# asserts must not depend on how fast the machine is; speed is measured in benchmarks/.
settings.register_profile("tui-chat", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("tui-chat")

# A suite started in the background by a shell without job control (`sh -c '… &'`) inherits
# SIGINT ignored, and so would every tui-chat it starts: a Ctrl+C test then waits for nothing.
# The tests send SIGINT as a terminal does to a foreground job, so the suite takes it back.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

_PROVIDER_ENV = ("CHUTES_API_KEY", "SUTRA_API_KEY", "CHUTES_BASE_URL", "SUTRA_BASE_URL",
                 "TUI_CHAT_CONFIG", "TUI_CHAT_DB", "TEXTUAL_THEME",
                 # A developer's proxy or CA settings must not reroute the loopback servers.
                 *(f"{name}_proxy" for name in ("http", "https", "all", "no")),
                 *(f"{name.upper()}_PROXY" for name in ("http", "https", "all", "no")),
                 "SSL_CERT_FILE", "SSL_CERT_DIR")


@pytest.fixture(autouse=True)
def unfrozen_after() -> Iterator[None]:
    """The app freezes what exists and tunes the collector (tui_chat/ui/gc_policy.py): in one
    test process that would keep every earlier test's apps out of the collector's reach."""
    threshold, callbacks = gc.get_threshold(), list(gc.callbacks)
    yield
    gc.callbacks[:] = callbacks
    gc.set_threshold(*threshold)
    gc.unfreeze()


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keep the developer's own config, data and keys out of every test."""
    for name in _PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    return home


@pytest.fixture
def chutes_server() -> Iterator[FakeProvider]:
    with FakeProvider("chutes") as server:
        yield server


@pytest.fixture
def sutra_server() -> Iterator[FakeProvider]:
    with FakeProvider("sutra", prefix="/v2") as server:
        yield server
