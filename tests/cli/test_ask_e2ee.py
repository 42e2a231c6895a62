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


def test_ask_warns_of_the_research_proxy_and_required_sends_it_nothing(tmp_path: object) -> None:
    """Chutes' research proxy records what passes through it: `ask` says so, and under
    `--e2ee required` refuses before anything leaves (every connection would go through the
    local listener below, standing in for a proxy: none is made)."""
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    connections: list[object] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            connections.append(connection)
            connection.close()

    threading.Thread(target=accept, daemon=True).start()
    proxy = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        result = run("ask", "--no-save", "--e2ee", "required", "-m", PRIVATE, PROMPT, env={
            "CHUTES_BASE_URL": "https://research.chutes.ai/v1", "CHUTES_API_KEY": KEY,
            "HTTPS_PROXY": proxy, "HTTP_PROXY": proxy, "ALL_PROXY": proxy, "NO_PROXY": ""})
    finally:
        listener.close()
    assert result.returncode == 7, result.stderr
    assert result.stdout == ""
    assert "research proxy" in result.stderr and "nothing was sent" in result.stderr
    assert connections == []
    assert_no_key(result)
