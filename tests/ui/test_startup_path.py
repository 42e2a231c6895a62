"""Start-up stays light (benchmarks/bench_ui_startup.py: ≤ 0.5 s to a ready prompt): what only
a reply, a dialog or a provider request needs is imported when first used."""

from __future__ import annotations

import subprocess
import sys

LATER = ("httpx", "tui_chat.core.client", "markdown_it", "rich.markdown", "pygments",
         "textual.widgets._markdown", "tui_chat.ui.screens.model_picker",
         "tui_chat.ui.screens.settings", "tui_chat.ui.widgets.reply_view", "tui_chat.core.export",
         "tui_chat.ui.screens.confirm", "tui_chat.ui.widgets.compare_view",
         "tui_chat.ui.screens.compare_presenter")


def test_the_app_imports_no_http_markdown_or_dialog_code_at_start() -> None:
    code = ("import sys; from tui_chat import cli; import tui_chat.ui.app\n"
            f"print(sorted(m for m in {LATER!r} if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.strip() == "[]"
