"""An old store holding leaked keys, opened by a command: the key configured in the
environment is scrubbed with the Chutes keys, and the command says so once on stderr."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURE_V5 = Path(__file__).parent.parent / "fixtures" / "store-v5.sqlite3"
CONFIGURED = "sutra-configured-secret-77"


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tui_chat", *args], capture_output=True,
                          text=True, env={**os.environ, **env}, timeout=60, check=False)


def test_history_scrubs_the_configured_key_and_says_how_many_once(tmp_path: Path) -> None:
    db = tmp_path / "store.sqlite3"
    shutil.copy(FIXTURE_V5, db)
    env = {"TUI_CHAT_DB": str(db), "SUTRA_API_KEY": CONFIGURED}
    first = run("history", env=env)
    assert first.returncode == 0, first.stderr
    assert "Removed what looked like an API key from 5 stored texts" in first.stderr
    assert CONFIGURED.encode() not in db.read_bytes() and b"cpk_leaked" not in db.read_bytes()
    second = run("history", env=env)
    assert second.returncode == 0 and "API key" not in second.stderr
