"""File names in the Ctrl+T picker's tree are drawn inertly: a folder holding files named with
escape sequences (OSC 52 sets the clipboard, OSC 0 the title, CSI 2J clears the screen) or a
bidi override shows their names with the controls gone, and nothing of them reaches the
terminal when the tree lists the folder. Real files, the real app."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DirectoryTree

from tests.ui.conftest import AppFactory, rendered_text, wait_until
from tui_chat.ui.screens.attach_picker import AttachScreen

HOSTILE_NAMES = [
    "clip\x1b]52;c;ZWNobyBwd25lZA==\x07.txt",  # OSC 52: the clipboard
    "title\x1b]0;owned\x07.txt",  # OSC 0: the window's title
    "clear\x1b[2J.txt",  # CSI 2J: clear the screen
    "evil\u202etxt.exe",  # right-to-left override
    "two\nlines.txt",
    "c1\x9b31m.txt",  # an 8-bit CSI
]
UNSAFE = {*map(chr, range(0x00, 0x20)), "\x7f", *map(chr, range(0x80, 0xA0)), "\u202e"}


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "clone"
    folder.mkdir()
    for name in HOSTILE_NAMES:
        (folder / name).write_text("x\n")
    monkeypatch.chdir(folder)
    return folder


async def test_the_tree_draws_hostile_file_names_inertly(make_app: AppFactory,
                                                        hostile: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: isinstance(app.screen, AttachScreen))
        tree = app.screen.query_one(DirectoryTree)
        await wait_until(pilot, lambda: len(tree.root.children) == len(HOSTILE_NAMES))
        await pilot.pause()
        labels = [node.label.plain for node in tree.root.children]
        shown = rendered_text(tree)
        assert not UNSAFE & set("".join(labels)), labels
        assert not UNSAFE - {"\n"} & set(shown), shown
        assert "clip]52;c;ZWNobyBwd25lZA==.txt" in labels
        assert "two lines.txt" in labels  # a newline shows as a space, the name whole
        assert "eviltxt.exe" in labels
