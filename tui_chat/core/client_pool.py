"""The workspace's clients: one per provider, leased to each exchange. A client still
streaming when it is replaced (new settings) is closed only when its last exchange ends."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from tui_chat.core.providers import Provider

if TYPE_CHECKING:  # imported on first use: the app's start-up path has no HTTP stack
    from tui_chat.core.client import ProviderClient


class ClientPool:
    """One client per provider; a client still streaming when it is replaced is closed only
    when its last exchange ends."""

    def __init__(self, build: Callable[[Provider], ProviderClient]) -> None:
        self._build = build
        self._current: dict[str, ProviderClient] = {}
        self._leases: dict[int, int] = {}
        self._retired: list[ProviderClient] = []

    def get(self, provider: Provider) -> ProviderClient:
        client = self._current.get(provider.name)
        if client is None:
            client = self._current[provider.name] = self._build(provider)
        return client

    @contextlib.asynccontextmanager
    async def lease(self, client: ProviderClient) -> AsyncIterator[ProviderClient]:
        self._leases[id(client)] = self._leases.get(id(client), 0) + 1
        try:
            yield client
        finally:
            self._leases[id(client)] -= 1
            if not self._leases[id(client)]:
                del self._leases[id(client)]
                if client in self._retired:
                    self._retired.remove(client)
                    await client.aclose()

    def in_use(self, client: ProviderClient) -> bool:
        return id(client) in self._leases

    async def retire_all(self) -> None:
        """New clients from now on; idle ones close now, busy ones when their stream ends."""
        clients, self._current = list(self._current.values()), {}
        for client in clients:
            if self.in_use(client):
                self._retired.append(client)
            else:
                await client.aclose()

    async def aclose(self) -> None:
        clients = [*self._current.values(), *self._retired]
        self._current, self._retired = {}, []
        for client in clients:
            await client.aclose()
