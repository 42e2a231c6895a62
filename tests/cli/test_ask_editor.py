"""`tui-chat ask -e`: the prompt is written in $EDITOR (a stand-in script), then sent; an
empty result or a failing editor sends nothing and says so in one sentence."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_ask import chutes_env, run
from tests.editors import seen, stand_in
from tests.fakeprovider import FakeProvider, Reply, stream_of


def editor_env(server: FakeProvider, folder: Path, body: str) -> dict[str, str]:
    stand_in(folder, "stand-in-editor", body)
    return {**chutes_env(server), "EDITOR": str(folder / "stand-in-editor"), "VISUAL": ""}


def test_what_is_written_in_the_editor_is_sent(chutes_server: FakeProvider,
                                               tmp_path: Path) -> None:
    chutes_server.script(Reply(stream_of(["Done"])))
    env = editor_env(chutes_server, tmp_path,
                     "path.write_text(path.read_text() + ', in Hindi please\\n')\n")
    result = run("ask", "--no-save", "-e", "Translate this", env=env)
    assert (result.returncode, result.stdout, result.stderr) == (0, "Done", "")
    assert seen(tmp_path)["text"] == "Translate this"
    assert chutes_server.requests[-1].body["messages"] == [
        {"role": "user", "content": "Translate this, in Hindi please"}]


def test_an_empty_result_sends_nothing(chutes_server: FakeProvider, tmp_path: Path) -> None:
    env = editor_env(chutes_server, tmp_path, "path.write_text('  \\n')\n")
    result = run("ask", "--no-save", "-e", env=env)
    assert result.returncode == 2
    assert result.stderr == "tui-chat: Nothing was written in the editor, so nothing was sent.\n"
    assert not chutes_server.requests


def test_a_failing_editor_sends_nothing(chutes_server: FakeProvider, tmp_path: Path) -> None:
    env = editor_env(chutes_server, tmp_path, "path.write_text('half');raise SystemExit(4)\n")
    result = run("ask", "--no-save", "-e", "start", env=env)
    assert result.returncode == 1
    assert result.stderr == ("tui-chat: The editor 'stand-in-editor' exited with status 4, so "
                             "what it wrote was not used.\n")
    assert not chutes_server.requests


def test_a_missing_editor_and_a_dash(chutes_server: FakeProvider) -> None:
    env = {**chutes_env(chutes_server), "EDITOR": "no-such-editor-here", "VISUAL": ""}
    result = run("ask", "--no-save", "-e", env=env)
    assert result.returncode == 1 and "'no-such-editor-here' (from $EDITOR) was not found" \
        in result.stderr and result.stderr.count("\n") == 1
    result = run("ask", "--no-save", "-e", "-", env=env, stdin="piped")
    assert result.returncode == 2 and "not '-'" in result.stderr
    assert not chutes_server.requests
