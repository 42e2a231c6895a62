"""Every border of every screen stays in its column in a real terminal, whatever the script.

The real `tui-chat` runs in tmux against the loopback fake provider, on conversations titled
and written in Hindi, Tamil, Bengali, Chinese and emoji (a Markdown table among them), with
Hindi typed into the prompt, the sidebar's search and the model picker's filter, and a Hindi
system prompt in Settings. For each screen, tmux's own grid is read back (capture-pane) and
tmux itself says at which column each border character stands (the cursor position after
printing what precedes it on its row). A border may only stand where the same border stands
on a row whose text before it is plain ASCII: a row drawn one cell too wide (Rich counted
`ी` as no cell; tmux gives it one) pushes its border out of that column.
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider
from tests.tmux import TMUX, Tmux
from tests.ui.conftest import TEST_KEY
from tests.ui.scripts_demo import seed_scripts
from tui_chat.core.store import Store

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install "
                                                      "tmux)")]

BORDERS = frozenset("│┃║▌▐█▉▊▋▍▎▏▕╭╮╰╯┌┐└┘┏┓┗┛├┤┼┬┴")
WIDTH, HEIGHT = 80, 24
SYSTEM_PROMPT = "आप एक सहायक हैं। தமிழ் 中文 👍🏽"


def _plain(text: str) -> bool:
    """Text whose width no terminal disputes: ASCII, Latin-1 and the drawing characters."""
    return all(ord(c) < 0x300 or 0x2500 <= ord(c) <= 0x25FF or c in "·•…" for c in text)


def misplaced_borders(tmux: Tmux, rows: list[str]) -> list[str]:
    """Each border that stands where no plain row puts the same border."""
    found: list[tuple[int, str, str]] = []  # (row, border, text before it)
    for number, row in enumerate(rows):
        found.extend((number, char, row[:index]) for index, char in enumerate(row)
                     if char in BORDERS)
    columns = tmux.columns([before for _, _, before in found])
    allowed: dict[str, set[int]] = defaultdict(set)
    for (_, char, before), column in zip(found, columns, strict=True):
        if _plain(before):
            allowed[char].add(column)
    return [f"row {number}: {char!r} at column {column}, where plain rows have it at "
            f"{sorted(allowed[char])}: {rows[number].rstrip()!r}"
            for (number, char, before), column in zip(found, columns, strict=True)
            if char in allowed and column not in allowed[char]]


def _settled(tmux: Tmux, ready: str, what: str) -> list[str]:
    """The screen once it shows `ready` and two captures in a row agree."""
    tmux.wait_for(lambda rows: any(ready in row for row in rows), what=what)
    previous: list[str] = []
    deadline = time.monotonic() + 10
    while (rows := tmux.capture()) != previous and time.monotonic() < deadline:
        previous = rows
        time.sleep(0.1)
    return rows


def _styles_settled(tmux: Tmux) -> list[str]:
    """The screen with its styles once two captures in a row agree (a focus moving repaints
    edges without changing a character: `_settled` does not see it)."""
    previous: list[str] = []
    deadline = time.monotonic() + 10
    while (rows := tmux.capture(styles=True)) != previous and time.monotonic() < deadline:
        previous = rows
        time.sleep(0.1)
    return rows


@pytest.fixture
def running(tmp_path: Path, chutes_server: FakeProvider) -> Tmux:
    database = tmp_path / "store.sqlite3"
    with Store.open(database) as store:
        chat = seed_scripts(store)
    config = tmp_path / "config.toml"
    config.write_text(f'system_prompt = "{SYSTEM_PROMPT}"\n', encoding="utf-8")
    env = {"LANG": "C.UTF-8", "TUI_CHAT_DB": str(database), "TUI_CHAT_CONFIG": str(config),
           "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
           "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
           "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
           "XDG_STATE_HOME": str(tmp_path / "xdg-state"),
           "CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": TEST_KEY}
    tmux = Tmux(tmp_path, WIDTH, HEIGHT)
    tmux.start([sys.executable, "-m", "tui_chat", "--conversation", chat.id], env)
    try:
        _settled(tmux, "Ctrl+J", "the conversation")
        yield tmux  # type: ignore[misc]
    finally:
        tmux.close()


def _back(tmux: Tmux, *keys: str) -> None:
    """Press `keys` and wait for the conversation screen alone (its prompt's placeholder)."""
    tmux.send(*keys)
    tmux.wait_for(lambda rows: any("Ctrl+J new line" in row for row in rows)
                  and not any("Search titles" in row for row in rows), what="the conversation")


def test_every_border_stays_in_its_column_on_every_screen(running: Tmux) -> None:
    tmux = running
    screens: dict[str, list[str]] = {}
    screens["conversation"] = _settled(tmux, "sutra-v2", "the conversation")
    tmux.send("परीक्षण हिन्दी தமிழ் বাংলা 中文 👍🏽 ❤️ 🇮🇳", literal=True)
    screens["prompt"] = _settled(tmux, "परीक्षण हिन्दी", "the typed prompt")
    tmux.send("C-u")
    _back(tmux)
    tmux.send("C-b")
    screens["sidebar"] = _settled(tmux, "Search titles", "the sidebar")
    styled = _styles_settled(tmux)  # the pane left dims its edge too: after that, not during
    tmux.send("/")  # the search box looks different once it has the focus: type then
    tmux.wait_for(lambda _: tmux.capture(styles=True)[2] != styled[2], what="a focused search")
    tmux.send("परीक्षण", literal=True)
    screens["sidebar search"] = _settled(tmux, "matching", "the sidebar's search")
    tmux.send("Escape")
    _back(tmux, "C-b")
    tmux.send("F2")
    _settled(tmux, "Pick a model", "the model picker")
    tmux.send("सूत्र", literal=True)
    screens["model picker"] = _settled(tmux, "as typed", "the model picker's filter")
    _back(tmux, "Escape")
    tmux.send("F3")
    screens["settings"] = _settled(tmux, "आप एक सहायक", "Settings")
    _back(tmux, "Escape")
    tmux.send("F1")
    screens["help"] = _settled(tmux, "Keys", "the help screen")
    _back(tmux, "Escape")
    tmux.send("C-o")
    screens["message mode"] = _settled(tmux, "Copy code", "message mode")

    misplaced = {name: misplaced_borders(tmux, rows) for name, rows in screens.items()}
    assert {name: found for name, found in misplaced.items() if found} == {}
    # The check saw the scripts it is about, and borders beside them.
    everything = "\n".join(row for rows in screens.values() for row in rows)
    for sample in ("परीक्षण", "தமிழ்", "中文", "👍🏽"):
        assert sample in everything
    assert all(any(char in BORDERS for char in "".join(rows)) for rows in screens.values())
