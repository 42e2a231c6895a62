"""Composing in $VISUAL / $EDITOR: which editor, the temporary file (0600, removed), and one
sentence for each way it can fail. The editors are stand-in scripts written by the tests."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.editors import edited_file, seen, stand_in
from tui_chat.core.editor import EditorError, edit_text, editor_command


def env_for(folder: Path, **variables: str) -> dict[str, str]:
    return {"PATH": str(folder), **variables}


def test_visual_wins_and_the_text_comes_back(tmp_path: Path) -> None:
    stand_in(tmp_path, "visual-ed", "path.write_text(path.read_text() + ' and more\\n')\n")
    stand_in(tmp_path, "plain-ed", "raise SystemExit(3)\n")
    env = env_for(tmp_path, VISUAL="visual-ed --wait", EDITOR="plain-ed")
    assert edit_text("draft", env) == "draft and more"  # the newline the editor added is gone
    record = seen(tmp_path)
    assert record["name"] == "visual-ed" and record["text"] == "draft"
    assert record["argv"][0] == "--wait"  # type: ignore[index]


def test_editor_then_the_defaults(tmp_path: Path) -> None:
    stand_in(tmp_path, "nano", "")
    stand_in(tmp_path, "mine", "")
    assert Path(editor_command(env_for(tmp_path, EDITOR="mine"))[0][0]).name == "mine"
    command, source = editor_command(env_for(tmp_path, VISUAL="  "))
    assert Path(command[0]).name == "nano" and source == "the default"
    stand_in(tmp_path, "editor", "")
    assert Path(editor_command(env_for(tmp_path))[0][0]).name == "editor"


def test_the_file_is_private_and_removed(tmp_path: Path) -> None:
    stand_in(tmp_path, "ed", "path.write_text('नमस्ते\\nline two\\n')\n")
    assert edit_text("", env_for(tmp_path, EDITOR="ed")) == "नमस्ते\nline two"
    assert seen(tmp_path)["mode"] == stat.S_IRUSR | stat.S_IWUSR
    assert not edited_file(tmp_path).exists()


def test_a_trailing_newline_of_the_prompt_is_kept(tmp_path: Path) -> None:
    stand_in(tmp_path, "ed", "")
    assert edit_text("ends here\n", env_for(tmp_path, EDITOR="ed")) == "ends here\n"


def test_bytes_that_are_not_utf8_become_replacement_characters(tmp_path: Path) -> None:
    stand_in(tmp_path, "ed", "path.write_bytes(b'caf\\xe9')\n")
    assert edit_text("", env_for(tmp_path, EDITOR="ed")) == "caf\ufffd"


@pytest.mark.parametrize(("body", "words"), [
    ("raise SystemExit(1)\n", "exited with status 1, so what it wrote was not used"),
    ("import signal; os.kill(os.getpid(), signal.SIGTERM)\n", "was stopped by signal 15"),
    ("path.unlink()\n", "could not be read back"),
])
def test_a_failing_editor_is_one_sentence_and_the_file_is_removed(
        tmp_path: Path, body: str, words: str) -> None:
    stand_in(tmp_path, "ed", "path.write_text('half-written')\n" + body)
    with pytest.raises(EditorError) as raised:
        edit_text("kept", env_for(tmp_path, EDITOR="ed"))
    assert words in raised.value.message and "'ed'" in raised.value.message
    assert not edited_file(tmp_path).exists()


@pytest.mark.parametrize(("env", "words"), [
    ({"EDITOR": "no-such-editor"}, "'no-such-editor' (from $EDITOR) was not found"),
    ({"VISUAL": "'unclosed"}, "$VISUAL (''unclosed') is not a command line"),
    ({}, "No editor was found: set $VISUAL or $EDITOR"),
])
def test_no_editor_is_one_sentence(tmp_path: Path, env: dict[str, str], words: str) -> None:
    with pytest.raises(EditorError) as raised:
        edit_text("kept", env_for(tmp_path, **env))
    assert words in raised.value.message


def test_an_editor_that_cannot_start(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.write_text("#!/nonexistent/interpreter\n")
    broken.chmod(0o755)
    with pytest.raises(EditorError) as raised:
        edit_text("kept", env_for(tmp_path, EDITOR="broken"))
    assert "'broken' (from $EDITOR) could not be started" in raised.value.message


TTY_PROBE = (
    "import functools, sys\n"
    "from tui_chat.core.editor import edit_text, run_in_foreground\n"
    "run = functools.partial(run_in_foreground, terminal=sys.argv[2])\n"
    "print('sent:' + edit_text('draft', {'PATH': sys.argv[1], 'EDITOR': 'ed'}, run=run))\n"
)
TTY_EDITOR = ("import os\n"
              "print('the editor screen', flush=True)\n"
              "path.write_text(repr((os.isatty(0), os.isatty(1))))\n")


def probe(folder: Path, terminal: str) -> tuple[str, str]:
    """(what `ask -e > file` would write to the file, what the editor left in its file), with
    the standard input and output of the caller not a terminal."""
    result = subprocess.run([sys.executable, "-c", TTY_PROBE, str(folder), terminal],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            check=True, timeout=60)
    return result.stdout, result.stdout.partition("sent:")[2].strip()


def test_with_output_redirected_the_editor_gets_the_terminal(tmp_path: Path) -> None:
    stand_in(tmp_path, "ed", TTY_EDITOR)
    controller, terminal = os.openpty()
    try:
        output, edited = probe(tmp_path, os.ttyname(terminal))
        assert edited == "(True, True)"  # the editor's input and output were the terminal
        assert output == "sent:(True, True)\n"  # and its screen is not in the output
        assert "the editor screen" in os.read(controller, 4096).decode()
    finally:
        os.close(controller)
        os.close(terminal)


def test_with_no_terminal_the_editor_inherits_what_there_is(tmp_path: Path) -> None:
    stand_in(tmp_path, "ed", TTY_EDITOR)
    output, edited = probe(tmp_path, str(tmp_path / "no-terminal-here"))
    assert edited == "(False, False)" and output.startswith("the editor screen\n")
