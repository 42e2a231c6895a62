"""Chutes' quota headers (`x-chutes-quota-total/-used/-remaining`): read from a response, kept
per provider by the client and in the quota book, shown (dim) in the status line; and the cost
line's cache saving. Through the loopback fake provider."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings
from tui_chat.core.costs import cost_line
from tui_chat.core.models import ChatMessage, Role
from tui_chat.core.quota import Quota, QuotaBook, quota_from, quota_lines, quota_text
from tui_chat.ui.widgets.status_bar import StatusInfo, status_text

QUOTA = {"x-chutes-quota-total": "5000", "x-chutes-quota-used": "3766",
         "x-chutes-quota-remaining": "1234"}
SEEN = datetime(2026, 12, 5, 6, 0, tzinfo=UTC)


def test_the_headers_read_as_a_quota() -> None:
    quota = quota_from(QUOTA, SEEN)
    assert quota == Quota(total=5000, used=3766, remaining=1234, seen=SEEN)
    assert quota_text(quota) == "quota 1,234 of 5,000 left"
    # What is left, worked out when it is not said; odd values ignored, the rest kept.
    worked = quota_from({"x-chutes-quota-total": "100", "x-chutes-quota-used": "40.5",
                         "x-chutes-quota-remaining": "lots"}, SEEN)
    assert quota_text(worked) == "quota 59.50 of 100 left"
    assert quota_text(quota_from({"x-chutes-quota-used": "7"}, SEEN)) == "quota 7 used"
    assert quota_text(quota_from({"x-chutes-quota-remaining": "12"}, SEEN)) == "quota 12 left"
    assert quota_from({"x-chutes-quota-total": "nan", "x-chutes-quota-used": "-1"}) is None
    assert quota_from({"content-type": "text/event-stream"}) is None
    assert quota_text(None) == ""


def test_the_book_keeps_each_providers_last_quota(tmp_path: Path) -> None:
    book = QuotaBook(tmp_path / "state" / "quota.json")
    assert book.read() == {}
    book.record("chutes", Quota(total=10, remaining=4, seen=SEEN))
    book.record("other", Quota(remaining=1, seen=SEEN))
    book.record("chutes", Quota(total=10, remaining=3, seen=SEEN))
    assert QuotaBook(book.path).read()["chutes"].remaining == 3
    lines = quota_lines(book.read(), {"chutes": "Chutes"})
    assert lines[0].startswith("Chutes: quota 3 of 10 left (as of ")
    assert lines[1].startswith("other: quota 1 left")
    book.path.write_text("{not json")
    assert book.read() == {}  # advisory: a damaged book is an empty one
    book.record("chutes", Quota(remaining=2, seen=SEEN))
    assert book.read()["chutes"].remaining == 2


async def test_the_client_keeps_the_quota_a_reply_reports(chutes_server: FakeProvider,
                                                          tmp_path: Path) -> None:
    chutes_server.script(Reply(stream_of(["a"]), headers=QUOTA), Reply(stream_of(["b"])))
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": chutes_server.url})
    book = QuotaBook(tmp_path / "quota.json")
    messages = [ChatMessage(role=Role.USER, content="hi")]
    async with ProviderClient(provider, "cpk_test_key_0123456789abcdef", quota_book=book,
                              max_retries=0) as client:
        assert client.quota is None
        [_ async for _ in client.stream_chat("m", messages)]
        assert quota_text(client.quota) == "quota 1,234 of 5,000 left"
        [_ async for _ in client.stream_chat("m", messages)]  # no headers: the last one stays
        assert client.quota is not None and client.quota.remaining == 1234
    assert book.read()["chutes"].remaining == 1234


def test_the_status_line_shows_the_quota_dim() -> None:
    text = status_text(StatusInfo(provider="Chutes", model="m", quota="quota 12 left"))
    assert text.plain.endswith("│  quota 12 left")
    span = next(s for s in text.spans if text.plain[s.start:s.end].endswith("quota 12 left"))
    assert "dim" in str(span.style)
    assert "quota" not in status_text(StatusInfo(provider="Chutes", model="m")).plain


def test_the_cost_line_says_what_the_cache_saved() -> None:
    assert cost_line(0.0012, 0.034, 0, saved=0.0003) == \
        "0.0012 USD (cache saved 0.00030 USD) · total 0.0340 USD"
    assert cost_line(0.0012, None, 0, saved=None) == "0.0012 USD"
    assert cost_line(0.0012, None, 0, saved=0.0) == "0.0012 USD"
    assert cost_line(None, 0.5, 2, saved=0.1) == "total 0.5000 USD + unpriced"
