"""`tui-chat ask` and `tui-chat models` as a user runs them: subprocesses, exit codes, streams."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.terminal import run_on_terminal
from tests.fakeprovider import FakeProvider, Reply, chunk, sse, stream_of
from tui_chat import __version__

KEY = "cpk_fake-test-key-not-real-0123.SECRET"


def run(*args: str, env: dict[str, str] | None = None, stdin: str | None = None,
        timeout: float = 60) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "tui_chat", *args], input=stdin, capture_output=True,
        text=True, env=full_env, timeout=timeout, check=False,
    )


def chutes_env(server: FakeProvider) -> dict[str, str]:
    return {"CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": KEY}


def assert_no_key(result: subprocess.CompletedProcess[str]) -> None:
    assert KEY not in result.stdout and KEY not in result.stderr
    assert "SECRET" not in result.stderr


def test_version_and_help() -> None:
    assert run("--version").stdout.strip() == f"tui-chat {__version__}"
    for command in ([], ["ask"], ["models"]):
        result = run(*command, "--help")
        assert result.returncode == 0 and "usage: tui-chat" in result.stdout


def test_ask_streams_the_reply(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["Hello", ", ", "world"])))
    result = run("ask", "--no-save", "hi", env=chutes_env(chutes_server))
    assert (result.returncode, result.stdout, result.stderr) == (0, "Hello, world", "")
    assert chutes_server.requests[-1].body["messages"] == [{"role": "user", "content": "hi"}]
    assert_no_key(result)


def test_ask_sutra_in_hindi(sutra_server: FakeProvider) -> None:
    sutra_server.script(Reply(stream_of(["नमस्ते", "! ", "आप कैसे हैं?"], model="sutra-v2",
                                        flavour="sutra")))
    env = {"SUTRA_BASE_URL": sutra_server.url, "SUTRA_API_KEY": "sutra-key"}
    result = run("ask", "--no-save", "-p", "sutra", "-m", "sutra-v2", "नमस्ते", env=env)
    assert result.returncode == 0 and result.stdout == "नमस्ते! आप कैसे हैं?"
    request = sutra_server.requests[-1]
    assert request.path == "/v2/chat/completions"
    assert request.headers["accept"] == "text/event-stream"
    assert request.body["model"] == "sutra-v2"


def test_prompt_from_stdin_and_options(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["ok"])))
    result = run("ask", "--no-save", "-s", "Be terse.", "--temperature", "0.2",
                 "--max-tokens", "9", "-", stdin="piped question\n", env=chutes_env(chutes_server))
    assert result.returncode == 0
    body = chutes_server.requests[-1].body
    assert body["messages"] == [{"role": "system", "content": "Be terse."},
                                {"role": "user", "content": "piped question\n"}]
    assert (body["temperature"], body["max_tokens"]) == (0.2, 9)


def test_reasoning_goes_to_stderr_only_when_asked(chutes_server: FakeProvider) -> None:
    frames = stream_of(["<think>pondering</think>", "Answer"])
    chutes_server.script(Reply(frames), Reply(frames))
    quiet = run("ask", "--no-save", "q", env=chutes_env(chutes_server))
    loud = run("ask", "--no-save", "--show-reasoning", "q", env=chutes_env(chutes_server))
    assert quiet.stdout == loud.stdout == "Answer"
    assert "pondering" not in quiet.stderr and "pondering" in loud.stderr


def test_reasoning_on_a_terminal_is_dim_and_ends_its_line_before_the_answer(
        chutes_server: FakeProvider) -> None:
    frames = stream_of(["<think>plan it</think>", "Answer T."])
    chutes_server.script(Reply(frames), Reply(frames))
    code, text, _ = run_on_terminal("ask", "--no-save", "--show-reasoning", "q",
                                    env=chutes_env(chutes_server), stderr_too=True)
    assert code == 0 and "plan itAnswer" not in text
    assert "\x1b[2mplan it\x1b[0m\r\nAnswer T." in text  # dim, then a line of its own
    piped = run("ask", "--no-save", "--show-reasoning", "q", env=chutes_env(chutes_server))
    assert (piped.stdout, piped.stderr) == ("Answer T.", "plan it")  # piped: as received


def test_length_finish_warns(chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["cut"], finish_reason="length")))
    result = run("ask", "--no-save", "q", env=chutes_env(chutes_server))
    assert result.returncode == 0 and "max-tokens" in result.stderr


def test_missing_key_names_the_variable() -> None:
    result = run("ask", "--no-save", "hi", env={"CHUTES_API_KEY": ""})
    assert result.returncode == 3
    assert "CHUTES_API_KEY" in result.stderr and result.stderr.count("\n") == 1


def test_unknown_provider_is_usage_error() -> None:
    result = run("ask", "--no-save", "-p", "nowhere", "hi")
    assert result.returncode == 2 and "Unknown provider 'nowhere'" in result.stderr


def test_empty_prompt_is_usage_error(chutes_server: FakeProvider) -> None:
    result = run("ask", "--no-save", "-", stdin="  \n", env=chutes_env(chutes_server))
    assert result.returncode == 2 and "empty" in result.stderr


def test_broken_config_is_named(tmp_path: Path, chutes_server: FakeProvider) -> None:
    config = tmp_path / "broken.toml"
    config.write_text("[parameters\n")
    result = run("ask", "--no-save", "hi",
                 env={**chutes_env(chutes_server), "TUI_CHAT_CONFIG": str(config)})
    assert result.returncode == 2 and str(config) in result.stderr
    assert config.read_text() == "[parameters\n"  # never rewritten


@pytest.mark.parametrize(("model", "code", "phrase"), [
    ("fault/401", 3, "rejected the API key (401)"),
    ("fault/402", 4, "no credit left (402)"),
    ("fault/404", 7, "does not know the model 'fault/404'"),
    ("fault/429", 4, "rate limiting"),
    ("fault/502", 5, "server error (502)"),
])
def test_http_errors_map_to_exit_codes(chutes_server: FakeProvider, model: str, code: int,
                                       phrase: str) -> None:
    result = run("ask", "--no-save", "-m", model, "hi",
                 env={**chutes_env(chutes_server), "TUI_CHAT_CONFIG": _fast_retry_config()})
    assert result.returncode == code, result.stderr
    assert phrase in result.stderr
    assert "Traceback" not in result.stderr
    assert_no_key(result)


def _fast_retry_config() -> str:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "fast.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("max_retries = 1\n")
    return str(path)


def test_interrupted_stream_keeps_partial_text(chutes_server: FakeProvider) -> None:
    result = run("ask", "--no-save", "-m", "fault/drop", "hi", env=chutes_env(chutes_server))
    assert result.returncode == 6
    assert result.stdout.startswith("word0 word1 word2 word3 word4")
    assert "kept" in result.stderr and result.stderr.count("\n") == 1


def test_stall_times_out_with_timeout_flag(chutes_server: FakeProvider) -> None:
    result = run("ask", "--no-save", "--timeout", "0.5", "-m", "fault/stall", "hi",
                 env=chutes_env(chutes_server))
    assert result.returncode == 5
    assert result.stdout.startswith("word0") and "0.5 seconds" in result.stderr


def test_pipe_output_is_byte_exact(chutes_server: FakeProvider) -> None:
    """Into a pipe the text is exactly what the model wrote (sanitizing is for terminals)."""
    chutes_server.script(Reply([sse(chunk("tab\there \x1b[1mbold")),
                                sse(chunk(finish_reason="stop")), b"data: [DONE]\n\n"]))
    result = run("ask", "--no-save", "q", env=chutes_env(chutes_server))
    assert result.stdout == "tab\there \x1b[1mbold"


def test_models_lists_all_providers_grouped(chutes_server: FakeProvider) -> None:
    result = run("models", env=chutes_env(chutes_server))
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "# Chutes (chutes)" and "deepseek-ai/DeepSeek-R1" in lines
    assert "# SUTRA (sutra)" in lines and lines[-2:] == ["sutra-v2", "sutra-r0"]


def test_models_falls_back_to_known_list_and_says_so(sutra_server: FakeProvider) -> None:
    env = {"CHUTES_BASE_URL": sutra_server.url + "/nothing-here"}
    result = run("models", "-p", "chutes", env=env)
    assert result.returncode == 7  # the failure's code (a 404): the list is not fresh
    assert "deepseek-ai/DeepSeek-V3-0324" in result.stdout.splitlines()
    assert "showing the known ones" in result.stderr


def test_terminal_output_drops_escape_sequences(chutes_server: FakeProvider) -> None:
    """On a terminal, ESC/OSC sequences in model text never reach it (title, clipboard...)."""
    hostile = "safe\x1b]0;pwned\x07 \x1b]52;c;ZXZpbA==\x07\x1b[2J\u202eend"
    chutes_server.script(Reply([sse(chunk(hostile)), sse(chunk(finish_reason="stop")),
                                b"data: [DONE]\n\n"]))
    code, text, _ = run_on_terminal("ask", "--no-save", "q", env=chutes_env(chutes_server))
    assert code == 0
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert text.startswith("safe]0;pwned ]52;c;ZXZpbA==[2Jend")


def test_bytes_that_are_not_utf8_in_the_prompt_become_replacement_characters(
        chutes_server: FakeProvider, tmp_path: Path) -> None:
    chutes_server.script(Reply(stream_of(["ok"])), Reply(stream_of(["ok"])))
    env = {**os.environ, **chutes_env(chutes_server), "TUI_CHAT_DB": str(tmp_path / "s.db")}
    argv = subprocess.run([sys.executable, "-m", "tui_chat", "ask", os.fsdecode(b"hi \xff")],
                          capture_output=True, env=env, timeout=60, check=False)
    piped = subprocess.run([sys.executable, "-m", "tui_chat", "ask", "-"], input=b"yo \xfe",
                           capture_output=True, env=env, timeout=60, check=False)
    for result in (argv, piped):
        assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr
    sent = [r.body["messages"][-1]["content"] for r in chutes_server.requests]
    assert sent == ["hi \ufffd", "yo \ufffd"]


def test_a_reply_with_tool_calls_is_said_on_stderr(chutes_server: FakeProvider) -> None:
    from tests.fakeprovider import tool_call_stream

    chutes_server.script(Reply(tool_call_stream([("get_weather", '{"city": "Paris"}')])))
    result = run("ask", "--no-save", "weather?", env=chutes_env(chutes_server))
    assert result.returncode == 0 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "tools are not enabled" in lines[0]
    assert 'get_weather({"city": "Paris"})' in lines[0]
