"""Cell widths: Rich and Textual measure text as the terminal draws it (tui_chat/ui/cells.py).

The oracle for scripts is glibc's own `wcwidth(3)`, which tmux, xterm and VTE follow; for
emoji sequences, what tmux 3.3 does (tests/ui/test_tmux_borders.py checks the app in a real
tmux)."""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import locale
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.cells import cell_len, chop_cells, get_character_cell_size, set_cell_size
from rich.segment import Segment
from rich.text import Text
from textual.content import Content
from textual.strip import Strip

from tui_chat.ui import cell_table, cells

SAMPLES = {
    "hindi": "परीक्षण हिन्दी क्षत्रिय नमस्ते, आप कैसे हैं?",
    "marathi": "महाराष्ट्र राज्य",
    "tamil": "தமிழ் மொழி வணக்கம்",
    "bengali": "বাংলা ভাষা",
    "gurmukhi": "ਪੰਜਾਬੀ",
    "gujarati": "ગુજરાતી",
    "telugu": "తెలుగు",
    "kannada": "ಕನ್ನಡ",
    "malayalam": "മലയാളം",
    "odia": "ଓଡ଼ିଆ",
    "sinhala": "සිංහල",
    "thai": "ภาษาไทย",
    "chinese": "你好，世界。中文测试",
    "japanese": "日本語のテキスト",
    "korean": "한국어 텍스트",
}


@pytest.fixture(autouse=True)
def default_model() -> Iterator[None]:
    cells.install()
    yield
    cells.install()


def _glibc_wcwidth() -> ctypes._CFuncPtr | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
    except locale.Error:
        return None
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    function = libc.wcwidth
    function.argtypes = [ctypes.c_wchar]
    function.restype = ctypes.c_int
    return function


def test_the_shipped_table_is_the_installed_wcwidth_tables() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    try:
        from make_cell_table import TARGET, table_source
    finally:
        sys.path.pop(0)
    assert TARGET.read_text(encoding="utf-8") == table_source(), (
        "wcwidth's tables changed: run python tools/make_cell_table.py")


@pytest.mark.parametrize("script", sorted(SAMPLES))
def test_every_script_is_as_wide_as_glibc_says(script: str) -> None:
    wcwidth = _glibc_wcwidth()
    if wcwidth is None:
        pytest.skip("needs glibc's wcwidth and the C.UTF-8 locale")
    text = SAMPLES[script]
    expected = sum(max(wcwidth(character), 0) for character in text)
    assert cell_len(text) == expected
    assert Text(text).cell_len == expected


def test_every_indic_code_point_glibc_knows_is_as_wide_as_glibc_says() -> None:
    wcwidth = _glibc_wcwidth()
    if wcwidth is None:
        pytest.skip("needs glibc's wcwidth and the C.UTF-8 locale")
    wrong = []
    for point in range(0x0900, 0x0E00):  # Devanagari .. Sinhala
        width = wcwidth(chr(point))
        if width >= 0 and get_character_cell_size(chr(point)) != width:
            wrong.append(f"U+{point:04X}")
    assert wrong == []


def test_a_vowel_sign_takes_its_cell_where_rich_gave_it_none() -> None:
    assert cell_len("परीक्षण") == 6
    assert cell_len("क") + 1 == cell_len("की")
    cells.install(cells.CellModel(spacing_marks=False))
    assert cell_len("परीक्षण") == 5


def test_textual_measures_with_the_same_table() -> None:
    word = "परीक्षण"
    assert Content(word).cell_length == 6
    assert Strip([Segment(word)]).cell_length == 6
    assert Strip([Segment(word)]).crop_extend(0, 10, None).cell_length == 10
    assert cell_len(set_cell_size(word, 4)) == 4
    assert all(cell_len(line) <= 4 for line in chop_cells(word * 3, 4))


def test_emoji_sequences_count_as_tmux_draws_them() -> None:
    assert cell_len("👍") == 2
    assert cell_len("🇮🇳") == 2  # a flag: two regional indicators, one cell each
    assert cell_len("👨\u200d👩\u200d👧") == 2  # a ZWJ sequence is its first emoji
    assert cell_len("❤\ufe0f") == 1  # VS16 does not widen in tmux 3.3, xterm, VTE
    assert cell_len("👍🏽") == 4  # nor is a skin tone joined


def test_a_terminal_that_widens_vs16_and_joins_skin_tones_gets_its_model() -> None:
    changed = cells.install(cells.CellModel(vs16_wide=True, modifiers_join=True))
    assert changed
    assert cell_len("❤\ufe0f") == 2
    assert cell_len("👍🏽") == 2
    assert cell_len("परीक्षण") == 6
    assert not cells.install(cells.CellModel(vs16_wide=True, modifiers_join=True))


def test_emoji_newer_than_the_terminal_s_tables_take_the_cells_it_gives_them() -> None:
    """🩷 🩵 🛜 🫷 (Unicode 15 and later) are two cells, but none where the probe found the
    terminal draws them as nothing (tmux 3.3a on Debian 12: test_cell_probe)."""
    assert [cell_len(emoji) for emoji in "🩷🩵🛜🫷👍"] == [2, 2, 2, 2, 2]
    cells.install(cells.CellModel(new_emoji=False))
    assert [cell_len(emoji) for emoji in "🩷🩵🛜🫷👍"] == [0, 0, 0, 0, 2]
    assert cell_len("🫷🏻") == 2  # the skin tone is still drawn, in two cells
    assert cell_len("परीक्षण") == 6


@pytest.mark.skipif(__import__("unicodedata").unidata_version != "14.0.0",
                    reason="derived from Unicode 14's data (Python 3.11's unicodedata)")
def test_the_emoji_since_unicode_15_are_the_wide_ones_unicode_14_did_not_have() -> None:
    import unicodedata

    derived = {point for start, end in cell_table.WIDE
               for point in range(max(start, 0x1F000), min(end, 0x1FAFF) + 1)
               if unicodedata.category(chr(point)) == "Cn"}
    listed = {point for start, end in cells.EMOJI_SINCE_15 for point in range(start, end + 1)}
    assert listed == derived


def test_the_table_has_no_overlaps_and_keeps_ascii_narrow() -> None:
    for model in (cells.DEFAULT, cells.CellModel(False, True, True, False)):
        widths = cells.build_table(model).widths
        for (_, end, _), (start, _, _) in itertools.pairwise(widths):
            assert end < start
    assert all(cell_len(chr(point)) == 1 for point in range(0x20, 0x7F))
    assert cell_table.UNICODE_VERSION.count(".") == 2
