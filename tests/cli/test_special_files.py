"""Special files never block and never exhaust memory; a malformed config, theme or persona
file never stops tui-chat.

Every file tui-chat reads (an attachment, an import, config.toml, a theme, a persona) is a
regular file read with a bound (`core.files.read_bounded`). The tests make the real thing (a
FIFO no one writes to, a link to /dev/zero) and run tui-chat as a subprocess: before the fix
the FIFO blocked forever (the subprocess's timeout is only a guard that turns a hang into a
failure) and /dev/zero was read until memory ran out (the address-space limit set here turns
that into a failure, not a machine out of memory).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.attachments import AttachmentError, read_attachment
from tui_chat.core.config import load_settings_or_defaults
from tui_chat.core.files import FileTooLargeError, NotAFileError, read_bounded

KEY = "cpk_fake-test-key-not-real-0123.SECRET"
HANG_GUARD = 60  # seconds: never reached unless a read blocks (then the test fails)


def _limit_memory() -> None:
    limit = 2 * 1024**3  # far above what tui-chat needs, far below a machine's memory
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=HANG_GUARD, check=False,
                          preexec_fn=_limit_memory)


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """The environment of a user whose config, data and state live under tmp_path."""
    return {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_STATE_HOME": str(tmp_path / "state"), "TUI_CHAT_DB": str(tmp_path / "s.db")}


def special(kind: str, path: Path) -> Path:
    """A FIFO no one writes to, or a link to /dev/zero, at `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    return path


KINDS = ["fifo", "zero"]


@pytest.fixture
def server() -> Iterator[FakeProvider]:
    with FakeProvider() as fake:
        yield fake


@pytest.mark.parametrize("kind", ["fifo", "zero", "zero-link"])
def test_ask_refuses_a_special_file_as_an_attachment(kind: str, tmp_path: Path,
                                                    home: dict[str, str],
                                                    server: FakeProvider) -> None:
    """A FIFO or /dev/zero is refused unread; a link to /dev/zero leads out of the folder,
    and says so (test_attach_links)."""
    server.script(Reply(stream_of(["never"])))
    path = (Path("/dev/zero") if kind == "zero"
            else special(kind.removesuffix("-link"), tmp_path / "notes.txt"))
    result = run("-m", "tui_chat", "ask", "-a", str(path), "hi",
                 env={**home, "CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": KEY})
    assert result.returncode == 2, result.stderr
    what = "a named pipe (FIFO)" if kind == "fifo" else "a character device"
    assert result.stderr == (
        f"tui-chat: Cannot attach {path}: it is {what}, not a regular file; attach a regular "
        "file.\n" if kind != "zero-link" else
        f"tui-chat: {path} is a link that leads out of its folder, to /dev/zero; attach that "
        "path itself if you mean to send it.\n")
    assert server.requests == []


@pytest.mark.parametrize("kind", KINDS)
def test_import_refuses_a_special_file(kind: str, tmp_path: Path,
                                       home: dict[str, str]) -> None:
    path = special(kind, tmp_path / "export.json")
    result = run("-m", "tui_chat", "import", str(path), env=home)
    assert result.returncode == 2 and "not a regular file; import an export file." in (
        result.stderr), result.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_config_file_is_one_sentence(kind: str, home: dict[str, str]) -> None:
    special(kind, Path(home["XDG_CONFIG_HOME"]) / "tui-chat" / "config.toml")
    result = run("-m", "tui_chat", "history", env=home)
    assert result.returncode != 0 and "not a regular file; move it away." in result.stderr
    assert "bug" not in result.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_persona_or_theme_file_is_a_problem_the_others_survive(
        kind: str, home: dict[str, str]) -> None:
    config = Path(home["XDG_CONFIG_HOME"]) / "tui-chat"
    special(kind, config / "personas" / "bad.toml")
    special(kind, config / "themes" / "bad.toml")
    (config / "personas" / "good.toml").write_text('system_prompt = "Be good."\n')
    (config / "themes" / "good.toml").write_text('primary = "#336699"\n')
    code = ("from tui_chat.core.personas import load_personas\n"
            "from tui_chat.ui.themes import load_themes\n"
            "personas, persona_problems = load_personas()\n"
            "themes, theme_problems = load_themes()\n"
            "print([p.name for p in personas if p.name in ('good', 'bad')])\n"
            "print([t.name for t in themes if t.name in ('good', 'bad')])\n"
            "print(persona_problems + theme_problems)\n")
    result = run("-c", code, env=home)
    assert result.returncode == 0, result.stderr
    personas, themes, problems = result.stdout.splitlines()
    assert personas == themes == "['good']"
    assert problems.count("not a regular file") == 2


def test_read_bounded_reads_a_regular_file_and_a_link_to_one(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"abc")
    (tmp_path / "link").symlink_to(tmp_path / "f")
    assert read_bounded(tmp_path / "link", 3) == b"abc"
    with pytest.raises(FileTooLargeError) as raised:
        read_bounded(tmp_path / "f", 2)
    assert (raised.value.size, raised.value.limit) == (3, 2)
    with pytest.raises(NotAFileError, match="it is a folder"):
        read_bounded(tmp_path, 10)


def test_an_attachment_past_the_limit_is_refused_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    with big.open("wb") as file:
        file.truncate(6 * 1024 * 1024)  # sparse: costs no disk
    with pytest.raises(AttachmentError, match=r"larger than (an|the .*) attachment may be"):
        read_attachment(big)


# -- malformed files: one sentence, the defaults, the others still work ------------------------

MALFORMED = {
    "deeply nested": "a = " + "[" * 5000 + "]" * 5000 + "\n",
    "deeply nested tables": "a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n",
    "an integer too long": "a = 1" + "0" * 5000 + "\n",
    "invalid UTF-8": b'system_prompt = "\xff\xfe"\n',
    "wrong types": 'theme = 5\nname = [1]\nprimary = {a = 1}\nsystem_prompt = 3\n',
    "huge": "# " + "x" * 2_000_000 + "\n",
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_config_gives_the_defaults_and_one_sentence(name: str,
                                                               tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    content = MALFORMED[name]
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    settings, sentence = load_settings_or_defaults(path)
    assert sentence is not None and str(path) in sentence
    assert "\n" not in sentence and "recursion" not in sentence
    assert settings.theme == load_settings_or_defaults(tmp_path / "none.toml")[0].theme


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_theme_or_persona_leaves_the_others(name: str, tmp_path: Path,
                                                       home: dict[str, str]) -> None:
    config = Path(home["XDG_CONFIG_HOME"]) / "tui-chat"
    for folder, good in (("personas", 'system_prompt = "Be good."\n'),
                         ("themes", 'primary = "#336699"\n')):
        (config / folder).mkdir(parents=True)
        content = MALFORMED[name]
        bad = config / folder / "bad.toml"
        if isinstance(content, bytes):
            bad.write_bytes(content)
        else:
            bad.write_text(content)
        (config / folder / "good.toml").write_text(good)
    code = ("from tui_chat.core.personas import load_personas\n"
            "from tui_chat.ui.themes import load_themes\n"
            "personas, persona_problems = load_personas()\n"
            "themes, theme_problems = load_themes()\n"
            "print([p.name for p in personas if p.name in ('good', 'bad')])\n"
            "print([t.name for t in themes if t.name in ('good', 'bad')])\n"
            "print(len(persona_problems), len(theme_problems))\n"
            "print(all('bad.toml' in p for p in persona_problems + theme_problems))\n")
    result = run("-c", code, env=home)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["['good']", "['good']", "1 1", "True"]
