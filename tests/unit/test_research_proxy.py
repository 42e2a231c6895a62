"""Chutes' research proxy (it records traffic for research): a base URL on it is warned about,
and under e2ee "required" nothing is sent to it (issue 27)."""

from __future__ import annotations

import httpx
import pytest

from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.e2ee import E2EERefused
from tui_chat.core.models import ChatMessage, Role
from tui_chat.core.protection import is_research_proxy, research_warnings

RESEARCH = "https://research.chutes.ai/v1"


def test_the_research_hosts_and_only_them() -> None:
    assert is_research_proxy(RESEARCH) and is_research_proxy("https://EU.research.chutes.ai/")
    assert not is_research_proxy("https://llm.chutes.ai/v1")
    assert not is_research_proxy("https://research.chutes.ai.example.com/v1")
    assert not is_research_proxy("http://[::1")  # not a URL: not the proxy


def test_a_provider_on_it_is_warned_about_once() -> None:
    warnings = research_warnings(Settings(), {"CHUTES_BASE_URL": RESEARCH})
    assert len(warnings) == 1 and "research proxy" in warnings[0]
    assert research_warnings(Settings(), {}) == []


async def test_required_sends_nothing_to_it() -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": RESEARCH})
    messages = [ChatMessage(role=Role.USER, content="a private prompt")]
    async with ProviderClient(provider, "cpk_test_key_0123456789abcdef", max_retries=0,
                              transport=httpx.MockTransport(answer)) as client:
        with pytest.raises(E2EERefused, match=r"research proxy.*nothing was sent"):
            [_ async for _ in client.stream_chat("m", messages, e2ee="required")]
    assert sent == []
