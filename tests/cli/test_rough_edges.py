"""Issue 14, rough edges of the command line: every sentence names what it is about, says it
once, and exits with the code of what happened."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_ask import assert_no_key, chutes_env, run
from tests.fakeprovider import FakeProvider


@pytest.mark.parametrize(("option", "value", "sentence"), [
    ("--temperature", "5", "--temperature must be between 0 and 2."),
    ("--temperature", "-1", "--temperature must be between 0 and 2."),
    ("--temperature", "nan", "--temperature must be between 0 and 2."),
    ("--max-tokens", "0", "--max-tokens must be at least 1."),
])
def test_a_parameter_out_of_range_is_named_with_its_range(
        option: str, value: str, sentence: str, chutes_server: FakeProvider) -> None:
    result = run("ask", "--no-save", option, value, "hi", env=chutes_env(chutes_server))
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"tui-chat: {sentence}\n")
    assert chutes_server.requests == []


def test_models_with_a_rejected_key_says_so_once_and_exits_3(
        chutes_server: FakeProvider) -> None:
    chutes_server.models_refusal = (401, {"detail": "Invalid token"})
    result = run("models", "-p", "chutes", env=chutes_env(chutes_server))
    assert result.returncode == 3, result.stderr
    assert "deepseek-ai/DeepSeek-V3-0324" in result.stdout.splitlines()  # the known ones
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tui-chat: Could not list Chutes's models: "
                                                   "Chutes rejected the API key (401)")
    assert "showing the known ones" in lines[0] and "CHUTES_API_KEY" in lines[0]
    assert lines[0].lower().count("could not") == 1 and "((" not in lines[0]
    assert_no_key(result)


def test_models_that_cannot_connect_says_so_once_with_the_networks_code() -> None:
    result = run("models", "-p", "chutes", env={"CHUTES_BASE_URL": "http://127.0.0.1:9/v1"})
    assert result.returncode == 5, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tui-chat: Could not list Chutes's models: "
                                                   "Chutes is unreachable (")
    assert lines[0].lower().count("could not") == 1 and "showing the known ones" in lines[0]
    assert lines[0].endswith("Check your network or the base URL.")


def test_an_unknown_provider_names_those_declared_in_config(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[providers.local]\nbase_url = "http://127.0.0.1:9/v1"\n'
                      '[providers.halfdone]\ndisplay_name = "No URL yet"\n', encoding="utf-8")
    result = run("models", "-p", "nope", env={"TUI_CHAT_CONFIG": str(config)})
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == ("tui-chat: Unknown provider 'nope': use one of chutes, sutra, "
                             "local, or declare it with a base_url under [providers.nope] in "
                             "config.toml.\n")
