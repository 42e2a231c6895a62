"""Issue 14, rough edges of the command line: every sentence names what it is about, says it
once, and exits with the code of what happened."""

from __future__ import annotations

import pytest

from tests.cli.test_ask import chutes_env, run
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
