"""The status line by importance: at 120 columns and below, the most useful parts survive
(the hint of what a key does now, then tok/s, then `in · out`, then the rest) and the least
important is dropped first; the parts left keep their places on the line."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from tests.ui.conftest import wait_until
from tui_chat.core.models import Usage
from tui_chat.ui.widgets.status_bar import (
    IMPORTANCE,
    StatusBar,
    StatusInfo,
    status_parts,
    status_text,
)

HINT = "editing: Enter resends from this message, Esc cancels"
FULL = StatusInfo(provider="Chutes", model="deepseek-ai/DeepSeek-V3-0324", state="ready",
                  time_to_first_token=0.42, tokens_per_second=41.3,
                  usage=Usage(prompt_tokens=1204, completion_tokens=230), note=HINT,
                  context="38k / 131k ctx", cost="0.0012 USD · 0.03 USD total",
                  protection="TEE", quota="quota 1,234 of 5,000 left", tools="🔧 7",
                  reasoning="reasoning off")
SHOWN = {"note": HINT, "speed": "41.3 tok/s", "usage": "1204 in · 230 out", "state": "ready",
         "model": "deepseek-ai/DeepSeek-V3-0324", "context": "38k / 131k ctx",
         "cost": "0.0012 USD", "reasoning": "reasoning off", "protection": "TEE",
         "tools": "🔧 7", "provider": " Chutes ", "first_token": "first token 0.42 s",
         "quota": "quota 1,234"}


def kept(line: str) -> list[str]:
    return [name for name in IMPORTANCE if SHOWN[name] in line]


@pytest.mark.parametrize("width", [80, 100, 120])
def test_each_width_keeps_the_most_important_parts(width: int) -> None:
    line = status_text(FULL, width).plain
    assert len(line) <= width
    names = kept(line)
    assert names == list(IMPORTANCE[:len(names)]), line  # none skipped over a lesser one
    # the hint, tok/s, in · out (at 80 the hint and the speed fill the line)
    assert names[:3] == ["note", "speed", "usage"][:2 if width == 80 else 3], line
    assert "quota" not in names  # the least important went first


def test_at_80_columns_a_streaming_line_keeps_speed_tokens_and_state() -> None:
    streaming = StatusInfo(**{**{f: getattr(FULL, f) for f in FULL.__struct_fields__},
                              "note": "", "state": "streaming…"})
    line = status_text(streaming, 80).plain
    assert "41.3 tok/s" in line and "1204 in · 230 out" in line and "streaming…" in line


def test_parts_appear_in_order_of_importance_as_the_line_widens() -> None:
    counts = [len(kept(status_text(FULL, width).plain)) for width in (80, 100, 120)]
    assert counts == sorted(counts) and counts[0] < counts[-1]
    wide = status_text(FULL, 400).plain
    assert kept(wide) == list(IMPORTANCE)  # room for all: all of them
    assert status_text(FULL).plain == wide


def test_the_parts_left_keep_their_places() -> None:
    line = status_text(FULL, 100).plain
    order = [part.name for part in status_parts(FULL) if SHOWN[part.name] in line]
    assert sorted(order, key=lambda name: line.index(SHOWN[name])) == order


def test_a_hint_wider_than_the_line_is_cut_with_an_ellipsis() -> None:
    line = status_text(FULL, 30).plain
    assert line.startswith(" editing: Enter") and line.endswith("…") and len(line) == 30


class _StatusApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")


async def test_the_bar_keeps_the_hint_at_80_columns_and_more_when_widened() -> None:
    app = _StatusApp()
    async with app.run_test(size=(80, 3)) as pilot:
        status = app.query_one(StatusBar)
        status.update_info(**{field: getattr(FULL, field) for field in FULL.__struct_fields__})
        await wait_until(pilot, lambda: HINT in str(status.render()))
        assert "quota" not in str(status.render())
        await pilot.resize_terminal(400, 3)
        await wait_until(pilot, lambda: "quota 1,234" in str(status.render()))
