"""screenshots/make.py draws text in other scripts than Latin word by word, each word in the
cells the terminal gives it (issue 24: screenshots/sutra-hindi.png showed large gaps in Hindi,
since Rich sizes a run of text by its code points and the run was drawn at the font's width)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def make() -> ModuleType:
    spec = importlib.util.spec_from_file_location("screenshots_make",
                                                  ROOT / "screenshots" / "make.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(text: str, x: float = 100.0, cell: float = 10.0) -> str:
    escaped = text.replace(" ", "&#160;")
    return (f'<svg ><text class="r1" x="{x:g}" y="20" textLength="{cell * len(text):g}" '
            f'clip-path="url(#line-0)">{escaped}</text></svg>')


def _texts(svg: str) -> list[dict[str, str]]:
    found = []
    for attributes, body in re.findall(r"<text\b([^>]*)>([^<]*)</text>", svg):
        found.append({**dict(re.findall(r'([\w-]+)="([^"]*)"', attributes)), "body": body})
    return found


def test_a_hindi_run_is_drawn_a_word_at_a_time_centred_in_its_cells(make: ModuleType) -> None:
    # भारत: 4 cells, की: 2, राजधानी: 7 (a spacing vowel sign takes a cell, as in terminals).
    texts = _texts(make.for_png(_run("भारत की राजधानी")))
    assert [t["body"] for t in texts] == ["भारत", "की", "राजधानी"]
    assert [t["text-anchor"] for t in texts] == ["middle"] * 3
    assert [float(t["data-cells"]) for t in texts] == [40, 20, 70]
    assert [float(t["x"]) for t in texts] == [100 + 20, 100 + 50 + 10, 100 + 80 + 35]
    assert all(t["clip-path"] == "url(#line-0)" and t["y"] == "20" for t in texts)


def test_latin_words_in_such_a_run_fill_their_cells_and_cjk_is_a_character_at_a_time(
        make: ModuleType) -> None:
    texts = _texts(make.for_png(_run("東京 (Tokyo)")))
    assert [t["body"] for t in texts] == ["東", "京", "(Tokyo)"]
    assert [float(t["x"]) for t in texts] == [110, 130, 150]  # centres of 2 cells; a left
    assert texts[2]["textLength"] == "70" and texts[2]["lengthAdjust"] == "spacingAndGlyphs"


def test_a_latin_run_is_left_whole(make: ModuleType) -> None:
    texts = _texts(make.for_png(_run("sutra-v2  SUTRA")))
    assert len(texts) == 1 and texts[0]["textLength"] == "150"
    assert texts[0]["lengthAdjust"] == "spacingAndGlyphs"
