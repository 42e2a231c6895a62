"""The status line paints only what changes what it shows: while a reply streams it is
told the same state and figures again several times a second."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult

from tests.ui.conftest import wait_until
from tui_chat.ui.widgets.status_bar import StatusBar


class _StatusApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")


async def test_an_update_that_shows_nothing_new_paints_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = _StatusApp()
    async with app.run_test(size=(80, 3)) as pilot:
        status = app.query_one(StatusBar)
        status.update_info(provider="Chutes", model="m", state="streaming…",
                           tokens_per_second=12.34)
        await pilot.pause()
        await wait_until(pilot, lambda: "12.3 tok/s" in str(status.render()))
        painted: list[Any] = []
        render_line = StatusBar.render_line

        def spy(self: StatusBar, y: int) -> Any:
            painted.append(y)
            return render_line(self, y)

        monkeypatch.setattr(StatusBar, "render_line", spy)
        status.update_info(state="streaming…", tokens_per_second=12.31)  # shows 12.3
        await pilot.pause()
        await pilot.pause()
        assert painted == []
        assert status.info.tokens_per_second == 12.31  # the figures are kept all the same
        status.update_info(tokens_per_second=20.0)
        await wait_until(pilot, lambda: bool(painted))
        assert "20.0 tok/s" in str(status.render())
