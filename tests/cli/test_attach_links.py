"""A link that leads out of the folder is not attached under its own name: tui-chat refuses it
and says where it leads (the user attaches that path itself if they mean to). Links that stay
in the folder, and paths the user names outside it, are attached as before. Real files and
links; `ask` as a subprocess in the folder; the app's picker and `@path` read the same way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.attachments import AttachmentError, link_outside, read_attachment

KEY = "cpk_fake-test-key-not-real-0123.SECRET"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A cloned repository whose notes.txt points into a private folder outside it."""
    secret = tmp_path / "home" / ".ssh" / "id_rsa"
    secret.parent.mkdir(parents=True)
    secret.write_text("PRIVATE KEY\n")
    folder = tmp_path / "repo"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "real.txt").write_text("inside\n")
    (folder / "notes.txt").symlink_to(secret)
    (folder / "inner.txt").symlink_to(Path("docs") / "real.txt")
    (folder / "keys").symlink_to(secret.parent, target_is_directory=True)
    return folder


def ask(folder: Path, server: FakeProvider, *names: str) -> subprocess.CompletedProcess[str]:
    attach = [arg for name in names for arg in ("-a", name)]
    env = {**os.environ, "CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": KEY,
           "TUI_CHAT_DB": str(folder.parent / "s.db")}
    return subprocess.run([sys.executable, "-m", "tui_chat", "ask", *attach, "read it"],
                          cwd=folder, capture_output=True, text=True, env=env, timeout=60,
                          check=False)


@pytest.mark.parametrize("name", ["notes.txt", "keys/id_rsa", "./docs/../notes.txt"])
def test_ask_refuses_a_link_out_of_the_folder_and_says_where_it_leads(
        repo: Path, chutes_server: FakeProvider, name: str) -> None:
    chutes_server.script(Reply(stream_of(["never"])))
    result = ask(repo, chutes_server, name)
    secret = repo.parent / "home" / ".ssh" / "id_rsa"
    assert result.returncode == 2
    assert result.stderr == (f"tui-chat: {name} is a link that leads out of its folder, to "
                             f"{secret}; attach that path itself if you mean to send it.\n")
    assert chutes_server.requests == []


def test_links_inside_the_folder_and_files_named_outside_it_are_attached(
        repo: Path, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["ok"])))
    secret = repo.parent / "home" / ".ssh" / "id_rsa"
    result = ask(repo, chutes_server, "inner.txt", str(secret))
    assert (result.returncode, result.stdout) == (0, "ok"), result.stderr
    sent = chutes_server.requests[-1].body["messages"][-1]["content"]
    assert "inside" in sent and "PRIVATE KEY" in sent  # the user named it: it goes


def test_the_rule_for_a_folder_other_than_the_current_one(repo: Path) -> None:
    assert link_outside(Path("notes.txt"), repo) == (
        repo.parent / "home" / ".ssh" / "id_rsa").resolve()
    assert link_outside(Path("inner.txt"), repo) is None
    assert link_outside(repo / "docs" / "real.txt", repo.parent) is None
    assert link_outside(repo / "notes.txt", repo.parent / "home") is not None  # its own folder
    with pytest.raises(AttachmentError, match="leads out of its folder"):
        read_attachment(Path("notes.txt"), folder=repo)
