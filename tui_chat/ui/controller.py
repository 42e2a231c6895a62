"""The conversation's state outside any widget: session, provider, model, clients.

The conversation screen asks it what to send and where; it asks the core (ChatSession,
Store, ProviderClient). It never touches a widget, so it is easy to test and to reason about.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncGenerator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tui_chat.core.config import Settings
from tui_chat.core.errors import TuiChatError, UsageError
from tui_chat.core.models import Message
from tui_chat.core.providers import Provider
from tui_chat.core.session import ChatSession, SessionEvent
from tui_chat.core.store import Store

if TYPE_CHECKING:  # imported on first use: the HTTP stack is not on the start-up path
    from tui_chat.core.client import ProviderClient
    from tui_chat.core.model_catalog import ModelCatalog

READ_COALESCE = 0.1
"""Seconds between two reads of a trickling stream. The live reply is drawn 2-20 times a
second (reply_view's CPU governor), and each read costs as much CPU as drawing a few tokens
(ProviderClient.coalesce): at 100 tokens/s, the app's CPU with the live view switched off
measured 11.8 % reading every token, 7-8 % every 0.05 s and 5.9 % every 0.1 s."""


@dataclass
class Services:
    """What the app is built from; tests build it with a tmp store and a loopback URL."""

    settings: Settings
    store: Store
    config_path: Path
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    clock: Callable[[], float] = time.monotonic
    config_notice: str | None = None
    """Why config.toml could not be used (the app then runs on the defaults), else None."""


def no_key_sentence(settings: Settings, env: Mapping[str, str]) -> str | None:
    """The first-run hint when no provider has a usable key, else None."""
    refused = None
    for name in settings.provider_names():
        try:
            provider = settings.resolve_provider(name, env)
        except TuiChatError:
            continue
        if provider.api_key is not None:
            return None
        refused = refused or provider.key_error
    if refused is not None:
        return refused
    return ("No API key is set yet: export CHUTES_API_KEY or SUTRA_API_KEY before starting "
            "tui-chat, or press F3 (Settings) and paste a key.")


class ChatController:
    """One conversation at a time, its provider and model, and a client per provider."""

    def __init__(self, services: Services, *, provider: str | None = None,
                 model: str | None = None) -> None:
        self.services = services
        self._clients: dict[str, ProviderClient] = {}
        self._catalog: ModelCatalog | None = None
        self.session = self._new_session()
        self.provider_name = provider or services.settings.default_provider
        self.provider: Provider = self.settings.resolve_provider(self.provider_name, self.env)
        self.model = model or self._default_model(self.provider)

    @property
    def settings(self) -> Settings:
        return self.services.settings

    @property
    def store(self) -> Store:
        return self.services.store

    @property
    def env(self) -> Mapping[str, str]:
        return self.services.env

    def _new_session(self) -> ChatSession:
        return ChatSession.start(self.store, system_prompt=self.settings.system_prompt,
                                 parameters=self.settings.parameters,
                                 clock=self.services.clock)

    def _default_model(self, provider: Provider) -> str:
        settings = self.settings
        if settings.default_model and provider.name == settings.default_provider:
            return settings.default_model
        return provider.default_model or "default"

    # --- which conversation ------------------------------------------------------------

    def new_conversation(self) -> None:
        self.session = self._new_session()

    def open_conversation(self, conversation_id: str) -> list[Message]:
        """Resume a stored conversation (an id prefix is fine); its messages, oldest first.

        The model last used in it becomes the current one when its provider still exists."""
        full_id = self.store.resolve_id(conversation_id)
        self.session = ChatSession.resume(self.store, full_id, clock=self.services.clock)
        conversation = self.session.conversation
        if conversation.provider and conversation.model:
            # A provider removed from config since: keep the current one.
            with contextlib.suppress(TuiChatError):
                self.choose(conversation.provider, conversation.model, persist=False)
        return self.session.messages()

    def open_latest(self) -> list[Message] | None:
        latest = self.store.latest_conversation()
        return self.open_conversation(latest.id) if latest else None

    @property
    def title(self) -> str:
        return self.session.conversation.title

    # --- provider and model ------------------------------------------------------------

    def choose(self, provider: str, model: str, *, persist: bool = True) -> None:
        """Use `model` of `provider` from the next message on (UnknownProviderError)."""
        self.provider = self.settings.resolve_provider(provider, self.env)
        self.provider_name, self.model = provider, model
        conversation = self.session.conversation
        if persist and self.session.is_saved:
            conversation.provider, conversation.model = provider, model
            self.store.update_conversation(conversation)

    @property
    def catalog(self) -> ModelCatalog:
        """Model lists of every provider (one per app: its memory cache lives on)."""
        if self._catalog is None:
            from tui_chat.core.model_catalog import ModelCatalog

            self._catalog = ModelCatalog(self.settings)
        return self._catalog

    def recent_models(self, limit: int = 5) -> list[tuple[str, str]]:
        """(provider, model) pairs of the most recently used conversations, newest first."""
        pairs: list[tuple[str, str]] = []
        for summary in self.store.list_conversations(limit=30):
            pair = (summary.provider or "", summary.model or "")
            if all(pair) and pair not in pairs:
                pairs.append(pair)
        return pairs[:limit]

    def override(self, provider: str | None, model: str | None) -> None:
        """Apply -p/-m given on the command line over the model a conversation last used."""
        name = provider or self.provider_name
        if model is None:
            if name == self.provider_name:
                return
            model = self._default_model(self.settings.resolve_provider(name, self.env))
        self.choose(name, model, persist=False)

    def client(self) -> ProviderClient:
        """The client of the current provider (MissingKeyError when it has no key)."""
        client = self._clients.get(self.provider_name)
        if client is None:
            from tui_chat.core.client import ProviderClient

            key = self.settings.require_key(self.provider)
            client = ProviderClient(self.provider, key, timeouts=self.settings.timeouts,
                                    max_retries=self.settings.max_retries,
                                    coalesce=READ_COALESCE)
            self._clients[self.provider_name] = client
        return client

    async def replace_settings(self, settings: Settings) -> None:
        """New settings (keys, URLs may have changed): drop the clients built from the old."""
        self.services.settings = settings
        self._catalog = None
        await self.aclose()
        try:
            self.provider = settings.resolve_provider(self.provider_name, self.env)
        except TuiChatError:
            self.provider_name = settings.default_provider
            self.provider = settings.resolve_provider(self.provider_name, self.env)
            self.model = self._default_model(self.provider)

    async def aclose(self) -> None:
        clients, self._clients = self._clients, {}
        for client in clients.values():
            await client.aclose()

    # --- exchanges ---------------------------------------------------------------------

    def send(self, prompt: str) -> AsyncGenerator[SessionEvent, None]:
        return self.session.send(prompt, client=self.client(), model=self.model)

    def regenerate(self) -> AsyncGenerator[SessionEvent, None]:
        return self.session.regenerate(client=self.client(), model=self.model)

    def edit_and_resend(self, message_id: str, text: str
                        ) -> AsyncGenerator[SessionEvent, None]:
        if not text.strip():
            raise UsageError("The message is empty: type some text to send.")
        return self.session.edit_and_resend(message_id, text, client=self.client(),
                                            model=self.model)
