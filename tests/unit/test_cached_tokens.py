"""Cached prompt tokens (`usage.prompt_tokens_details.cached_tokens`) priced at the model's
`input_cache_read` price, through the loopback fake provider."""

from __future__ import annotations

from tests.fakeprovider import DONE, FakeProvider, Reply, chunk, sse, usage_chunk
from tui_chat.core.chunks import model_info_from
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.costs import cache_saving, reply_cost
from tui_chat.core.events import UsageReported
from tui_chat.core.models import ChatMessage, Role

MODEL = "deepseek-ai/DeepSeek-V3-0324"


async def test_cached_prompt_tokens_cost_the_cache_price(chutes_server: FakeProvider) -> None:
    usage = usage_chunk(10_000, 1_000, model=MODEL)
    usage["usage"]["prompt_tokens_details"] = {"cached_tokens": 8_000}
    chutes_server.script(Reply([sse(chunk("hi", model=MODEL)),
                                sse(chunk(model=MODEL, finish_reason="stop")), sse(usage), DONE]))
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": chutes_server.url})
    async with ProviderClient(provider, "cpk_test_key_0123456789abcdef") as client:
        events = [e async for e in client.stream_chat(
            MODEL, [ChatMessage(role=Role.USER, content="hello")])]
    (reported,) = [e.usage for e in events if isinstance(e, UsageReported)]
    assert reported.cached_tokens == 8_000
    info = model_info_from("chutes", {"id": MODEL, "pricing": {
        "prompt": 0.5, "completion": 2.0, "input_cache_read": 0.25}})
    assert info is not None and info.cache_read_price == 0.25
    # 2,000 at 0.5, 8,000 at 0.25, 1,000 out at 2.0, per million tokens.
    assert reply_cost(reported, info) == (2_000 * 0.5 + 8_000 * 0.25 + 1_000 * 2.0) / 1e6
    assert cache_saving(reported, info) == 8_000 * 0.25 / 1e6
    # Without a cache price, cached tokens cost the input price, and nothing is "saved".
    plain = info.model_copy(update={"cache_read_price": None})
    assert reply_cost(reported, plain) == (10_000 * 0.5 + 1_000 * 2.0) / 1e6
    assert cache_saving(reported, plain) is None


def test_a_nonsense_cached_count_is_no_count() -> None:
    from tui_chat.core.models import Usage

    for odd in (-5, "many", True, None):
        usage = Usage.model_validate({"prompt_tokens": 10, "prompt_tokens_details": {
            "cached_tokens": odd}})
        assert usage.cached_tokens == 0
    assert Usage.model_validate({"prompt_tokens": 10, "prompt_tokens_details": {
        "cached_tokens": 99}}).cached_tokens == 10  # never more than the prompt
