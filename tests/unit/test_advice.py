"""Error sentences fit the front-end that shows them: core errors carry the facts and a hint;
the command line and the app each add their own advice."""

from __future__ import annotations

import pytest

from tui_chat.commands import advice as cli
from tui_chat.core.config import Settings
from tui_chat.core.errors import Hint, MissingKeyError, StreamTimeoutError
from tui_chat.core.provider_errors import classify_status
from tui_chat.core.workspace import NoModelError
from tui_chat.ui import advice as app

LOCAL = Settings.model_validate({"providers": {"local": {
    "display_name": "Local llama.cpp", "base_url": "http://127.0.0.1:9/v1"}}})


def test_a_missing_key_says_where_each_front_end_sets_it() -> None:
    with pytest.raises(MissingKeyError) as raised:
        Settings().require_key(Settings().resolve_provider("sutra", env={}))
    error = raised.value
    assert "config.toml" not in error.message and "F3" not in error.message
    assert cli.sentence(error) == ("No API key is set for SUTRA. Set SUTRA_API_KEY or api_key "
                                   "under [providers.sutra] in config.toml.")
    assert app.sentence(error) == ("No API key is set for SUTRA. Press F3 (Settings) and paste "
                                   "a key, or set SUTRA_API_KEY before starting tui-chat.")


def test_a_rejected_key() -> None:
    error = classify_status("Chutes", 401, "Invalid token.", key_env="CHUTES_API_KEY",
                            provider="chutes")
    assert error.hint is Hint.KEY
    assert cli.sentence(error).endswith("Check CHUTES_API_KEY or api_key under "
                                        "[providers.chutes] in config.toml.")
    assert app.sentence(error).endswith("Check the key in Settings (F3), or CHUTES_API_KEY, "
                                        "which wins over it.")


def test_an_unknown_model_of_a_provider_with_a_display_name() -> None:
    provider = LOCAL.resolve_provider("local", env={})
    error = classify_status(provider.display_name, 404, None, model="x", provider=provider.name)
    assert "tui-chat models -p local." in cli.sentence(error)  # its name, not "local llama.cpp"
    assert "-p" not in app.sentence(error) and "F2" in app.sentence(error)


def test_no_model_chosen() -> None:
    error = NoModelError(LOCAL.resolve_provider("local", env={}))
    assert "Pass -m MODEL, or set default_model under [providers.local]" in cli.sentence(error)
    assert app.sentence(error).endswith("Press F2 to pick one.")


def test_a_stalled_stream() -> None:
    error = StreamTimeoutError("Chutes stopped sending for 60 seconds.").hinted(Hint.TIMEOUT)
    assert cli.sentence(error).endswith("raise the timeout with --timeout.")
    assert app.sentence(error).endswith("raise the read timeout in Settings (F3).")
    assert "--timeout" not in app.sentence(error)
