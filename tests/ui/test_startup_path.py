"""Start-up stays light (benchmarks/bench_ui_startup.py: ≤ 0.5 s to a ready prompt): what only
a reply, a dialog or a provider request needs is imported when first used."""

from __future__ import annotations

import subprocess
import sys

from textual.widgets import Markdown

from tests.ui.conftest import AppFactory, conversation
from tui_chat.ui.screens.confirm import ConfirmScreen

LATER = ("httpx", "tui_chat.core.client", "markdown_it", "rich.markdown", "pygments",
         "textual.widgets._markdown", "tui_chat.ui.screens.model_picker",
         "tui_chat.ui.screens.settings", "tui_chat.ui.widgets.reply_view", "tui_chat.core.export")


def test_the_app_imports_no_http_markdown_or_dialog_code_at_start() -> None:
    code = ("import sys; from tui_chat import cli; import tui_chat.ui.app\n"
            f"print(sorted(m for m in {LATER!r} if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.strip() == "[]"


async def test_a_link_clicked_in_the_live_reply_asks_before_opening(
        make_app: AppFactory) -> None:
    app = make_app()
    opened: list[str] = []
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        live = Markdown("[x](https://example.com/a)", open_links=False)
        await screen.message_list.mount(live)
        live.post_message(Markdown.LinkClicked(live, "https://example.com/a"))
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert opened == []
        await pilot.press("escape")
        await pilot.pause()
        assert opened == [] and app.screen is screen
