"""`tui-chat ask --e2ee`, against the fake of Chutes' E2EE endpoints (a real subprocess)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cli.test_ask import KEY, assert_no_key, run
from tests.fake_chutes_e2ee import FakeChutesE2EE

PRIVATE = "deepseek-ai/DeepSeek-V3-TEE"
PLAIN_ONLY = "chutesai/No-E2EE-Model"
PROMPT = "The vault code is 7319-ultraviolet"


@pytest.fixture
def server() -> Iterator[FakeChutesE2EE]:
    with FakeChutesE2EE() as fake:
        fake.add(PRIVATE, confidential_compute=True)
        fake.add(PLAIN_ONLY, e2ee=False)
        yield fake


def env(server: FakeChutesE2EE) -> dict[str, str]:
    return {"CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": KEY}


def test_ask_required_sends_the_prompt_encrypted(server: FakeChutesE2EE) -> None:
    result = run("ask", "--no-save", "--e2ee", "required", "-m", PRIVATE, "-s",
                 "Secret system prompt", PROMPT, env=env(server))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Hello, world.")
    assert "the reply came end-to-end encrypted" in result.stderr
    assert len(server.invokes) == 1 and server.plain_requests == []
    assert b"7319" not in bytes(server.wire) and b"Secret system" not in bytes(server.wire)
    assert_no_key(result)


def test_ask_required_with_a_model_without_e2ee_sends_nothing(server: FakeChutesE2EE) -> None:
    result = run("ask", "--no-save", "--e2ee", "required", "-m", PLAIN_ONLY, PROMPT,
                 env=env(server))
    assert result.returncode == 7, result.stderr
    assert result.stdout == ""
    assert "nothing was sent" in result.stderr and PLAIN_ONLY in result.stderr
    assert server.plain_requests == [] and server.invokes == []
    assert b"7319" not in bytes(server.wire)


def test_ask_auto_says_when_the_reply_came_in_plain_text(server: FakeChutesE2EE) -> None:
    result = run("ask", "--no-save", "--e2ee", "auto", "-m", PLAIN_ONLY, PROMPT,
                 env=env(server))
    assert result.returncode == 0, result.stderr
    assert "the reply came in plain text" in result.stderr
    assert len(server.plain_requests) == 1
