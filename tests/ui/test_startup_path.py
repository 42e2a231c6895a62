"""Start-up stays light (benchmarks/bench_ui_startup.py: ≤ 0.5 s to a ready prompt): what only
a reply, a dialog or a provider request needs is imported when first used."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from tui_chat import cli

LATER = ("httpx", "tui_chat.core.client", "markdown_it", "rich.markdown", "pygments",
         "textual.widgets._markdown", "tui_chat.ui.screens.model_picker",
         "tui_chat.ui.screens.settings", "tui_chat.ui.widgets.reply_view", "tui_chat.core.export",
         "tui_chat.ui.screens.confirm", "tui_chat.ui.widgets.compare_view",
         "tui_chat.ui.screens.help", "tui_chat.ui.commands", "tui_chat.ui.keymap",
         "tui_chat.ui.screens.compare_presenter")


def test_the_app_imports_no_http_markdown_or_dialog_code_at_start() -> None:
    code = ("import sys; from tui_chat import cli; import tui_chat.ui.app\n"
            f"print(sorted(m for m in {LATER!r} if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.strip() == "[]"


DEFERRED = ("Usage", "AttachmentInfo", "Attachment", "ChatMessage", "Message", "ModelInfo",
            "ConversationSummary", "SearchHit")


def test_the_app_builds_no_validator_of_a_record_it_has_not_read() -> None:
    """pydantic builds a model's validator as its class is defined unless told to defer it:
    the stored records' validators wait until a record is read (core.models)."""
    code = ("import sys; from tui_chat import cli; import tui_chat.ui.app\n"
            "from tui_chat.core import models, config, model_facts\n"
            f"names = {DEFERRED!r}\n"
            "built = [n for n in names if getattr(models, n).__pydantic_complete__]\n"
            "built += [m.__name__ for m in (config.ProviderConfig, model_facts.ModelSettings)"
            " if m.__pydantic_complete__]\n"
            "print(built)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.strip() == "[]"


def test_collections_wait_while_the_app_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start-up allocates a few hundred thousand objects that all live on: collections then
    only slow it down. The app resumes them after its first frame (gc_policy.after_start_up);
    the command line, whatever happens, on the way out."""
    seen: list[bool] = []

    def app_starting(context: object, **options: object) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr("tui_chat.commands.app.run_app", app_starting)
    assert cli.main([]) == 0
    assert seen == [False]
    assert gc.isenabled()


def test_a_command_runs_with_collections_on(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    def command(args: object, store: object) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr("tui_chat.commands_store.run_store_command", command)
    assert cli.main(["history"]) == 0
    assert seen == [True]
    assert gc.isenabled()
