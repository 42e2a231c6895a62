"""A provider's quota, as its responses report it (issue 27).

Design. Chutes answers a chat request with `x-chutes-quota-total`, `-used` and `-remaining`
(a subscription's requests for the period). `quota_from` reads them from any response's
headers (numbers only: a header that is not one is ignored, the rest kept; none of the three
usable gives None). The client keeps the last one per provider (`ProviderClient.quota`) and
writes it to `quota.json` in the state directory (`QuotaBook`), so that the status line shows
what is left after each reply and `tui-chat usage` can say it later, with when it was seen.
`quota_text` is the one wording of both. Advisory, never a reason to fail: a book that cannot
be read or written is an empty one.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from msgspec import Struct

HEADER = "x-chutes-quota-"
"""The headers' common start: `total`, `used` and `remaining` follow it."""


class Quota(Struct, frozen=True):
    """What a provider said of its quota, when (UTC); any figure may be missing."""

    total: float | None = None
    used: float | None = None
    remaining: float | None = None
    seen: datetime | None = None

    def left(self) -> float | None:
        """What is left: as said, else the total less what is used."""
        if self.remaining is not None:
            return self.remaining
        if self.total is not None and self.used is not None:
            return max(self.total - self.used, 0.0)
        return None


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


def quota_from(headers: Mapping[str, str], now: datetime | None = None) -> Quota | None:
    """The quota in a response's headers (case-insensitive mapping, as httpx's), or None."""
    total, used, remaining = (_number(headers.get(HEADER + part))
                              for part in ("total", "used", "remaining"))
    if total is None and used is None and remaining is None:
        return None
    return Quota(total=total, used=used, remaining=remaining, seen=now or datetime.now(UTC))


def _figure(number: float) -> str:
    return f"{number:,.0f}" if number == int(number) else f"{number:,.2f}"


def quota_text(quota: Quota | None) -> str:
    """"quota 1,234 of 5,000 left", "quota 1,234 left", "quota 80 used" ("" for None)."""
    if quota is None:
        return ""
    left = quota.left()
    if left is None:
        return f"quota {_figure(quota.used)} used" if quota.used is not None else ""
    if quota.total is not None:
        return f"quota {_figure(left)} of {_figure(quota.total)} left"
    return f"quota {_figure(left)} left"


def default_quota_file() -> Path:
    from tui_chat.core import paths

    return paths.state_dir() / "quota.json"


class QuotaBook:
    """The last quota each provider reported, in a small JSON file (`default_quota_file`)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_quota_file()

    def read(self) -> dict[str, Quota]:
        """Provider name → its last quota; {} when there is no book or it cannot be read."""
        import msgspec

        try:
            raw = self.path.read_bytes()
            return msgspec.json.decode(raw, type=dict[str, Quota])
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return {}

    def record(self, provider: str, quota: Quota) -> None:
        """Keep `quota` as `provider`'s last (written aside, then moved over the book)."""
        import msgspec

        book = self.read()
        book[provider] = quota
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            aside = self.path.with_name(f".{self.path.name}.{os.getpid()}")
            aside.write_bytes(msgspec.json.encode(book))
            aside.replace(self.path)


def quota_lines(book: Mapping[str, Quota], display_names: Mapping[str, str]) -> list[str]:
    """For `tui-chat usage`: one line a provider, "Chutes: quota 1,234 of 5,000 left (as of
    2026-12-05 06:10)", in the local time."""
    lines = []
    for name in sorted(book):
        text = quota_text(book[name])
        if not text:
            continue
        seen = book[name].seen
        when = f" (as of {seen.astimezone().strftime('%Y-%m-%d %H:%M')})" if seen else ""
        lines.append(f"{display_names.get(name, name)}: {text}{when}")
    return lines

