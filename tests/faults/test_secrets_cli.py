"""API keys never leave the config file or the environment: not into the store, exports,
error messages or any output of the command line (issue 6, command-line half)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of

ENV_KEY = "cpk_envkey0000distinctive1111.ENVSECRET"
FILE_KEY = "sutra-filekey-distinctive-2222-FILESECRET"
SECRETS = (ENV_KEY, FILE_KEY, "ENVSECRET", "FILESECRET")


@pytest.mark.slow
def test_keys_appear_nowhere_but_the_config_file(tmp_path: Path, chutes_server: FakeProvider,
                                                 sutra_server: FakeProvider) -> None:
    home = Path(os.environ["XDG_CONFIG_HOME"]).parent
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "tui-chat" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[providers.sutra]\napi_key = "  {FILE_KEY}\\n"\n')
    env = {**os.environ, "CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": ENV_KEY,
           "SUTRA_BASE_URL": sutra_server.url}
    outputs: list[str] = []

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        result = subprocess.run([sys.executable, "-m", "tui_chat", *args], capture_output=True,
                                text=True, env=env, timeout=60, check=False)
        outputs.extend([result.stdout, result.stderr])
        return result

    chutes_server.script(Reply(stream_of([f"echo of {ENV_KEY[:4]}"])),
                         Reply.error(401, {"detail": f"bad key {ENV_KEY}"}))
    sutra_server.script(Reply(stream_of(["नमस्ते"], flavour="sutra")),
                        Reply.error(500, {"error": {"message": f"key={FILE_KEY} failed"}}))
    assert run("ask", "hello chutes").returncode == 0
    assert run("ask", "-p", "sutra", "-m", "sutra-v2", "hello sutra").returncode == 0
    assert run("ask", "again").returncode == 3
    run("ask", "-p", "sutra", "-m", "sutra-v2", "again")
    run("models")
    run("history")
    run("search", "hello")
    export = tmp_path / "export.json"
    assert run("export", "--all", "-o", str(export)).returncode == 0
    assert run("export", "--all", "--format", "markdown", "-o",
               str(tmp_path / "export.md")).returncode == 0

    # Each key was sent, trimmed, to its own provider only.
    assert {r.headers["authorization"] for r in chutes_server.requests if r.method == "POST"} \
        == {f"Bearer {ENV_KEY}"}
    assert {r.headers["authorization"] for r in sutra_server.requests if r.method == "POST"} \
        == {f"Bearer {FILE_KEY}"}
    leaks = [secret for secret in SECRETS for text in outputs if secret in text]
    assert not leaks, leaks
    scanned = 0
    for path in [*home.rglob("*"), *tmp_path.glob("export.*")]:
        if path.is_file() and path != config:
            data = path.read_bytes()
            scanned += 1
            assert not any(secret.encode() in data for secret in SECRETS), path
    assert scanned >= 3  # the store (and its WAL) and both exports were looked at
    assert FILE_KEY in config.read_text()  # the user's own file is untouched
