"""A provider's display name from config.toml is drawn inertly by `tui-chat models` too (the
model ids from /models already were)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.fakeprovider import FakeProvider


def test_models_prints_a_hostile_display_name_inertly(chutes_server: FakeProvider,
                                                      tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[providers.local]\nbase_url = "{chutes_server.url}"\n'
                      'display_name = "Local\\u001b]0;owned\\u0007 \\u202ellama"\n'
                      'api_key = "local-key-0123456789"\n')
    chutes_server.models_list = [{"id": "m\x1b[2J1"}]
    env = {**os.environ, "TUI_CHAT_CONFIG": str(config), "CHUTES_BASE_URL": chutes_server.url,
           "XDG_STATE_HOME": str(tmp_path / "state")}
    result = subprocess.run([sys.executable, "-m", "tui_chat", "models"], capture_output=True,
                            text=True, env=env, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert "# Local]0;owned llama (local)" in result.stdout.splitlines()
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout
