"""Notifications stand clear of the prompt, the status line and the footer, at most half the
width (app.tcss), and a failed reply is said once, inline (test_conversation.py)."""

from __future__ import annotations

import pytest
from textual.widgets._toast import Toast

from tests.ui.conftest import AppFactory, conversation, rendered_text, wait_until
from tui_chat.ui.widgets.fitted_footer import FittedFooter

LONG = ("The theme file ~/.config/tui-chat/themes/broken.toml could not be used: line 3, "
        "'primary' is not a colour; the default theme is used instead. " * 2)


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_a_long_notification_covers_neither_prompt_nor_status_line(
        make_app: AppFactory, size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size, notifications=True) as pilot:
        screen = conversation(app)
        app.notify(LONG, severity="warning", markup=False, timeout=30)
        await wait_until(pilot, lambda: bool(app.screen.query(Toast))
                         and app.screen.query_one(Toast).region.height > 0)
        toast = app.screen.query_one(Toast).region
        for widget in (screen.prompt, screen.status, screen.query_one(FittedFooter)):
            assert not toast.overlaps(widget.region), widget
        assert toast.width <= size[0] // 2
        assert toast.y >= 1  # under the title bar


async def test_the_first_run_hint_is_said_once_in_the_empty_view(make_app: AppFactory) -> None:
    app = make_app(key=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        screen = conversation(app)
        await wait_until(pilot, lambda: "CHUTES_API_KEY" in rendered_text(
            screen.query_one("#empty")))
        await pilot.pause()
        assert [n.message for n in app._notifications] == []
