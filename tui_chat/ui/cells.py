"""How many cells the terminal gives each character, so that every row fits exactly.

Rich, and Textual through it, lay text out with Rich's own width table, which counts the
spacing vowel signs of Devanagari, Tamil, Bengali and the other Indic scripts (general
category Mc, e.g. `ी`) as zero cells. Terminals that advance the cursor by code point (glibc's
`wcwidth`, tmux, xterm, VTE) give each of them a cell: `परीक्षण` is 6 cells there and 5 for
Rich, so a Hindi row overflowed by a cell per vowel sign and pushed borders out of place.

`install()` puts a table built from the `wcwidth` package's current tables
(`cell_table.py`, copied by tools/make_cell_table.py) in Rich's one place for widths:
`rich.cells.load_cell_table`, which every function of `rich.cells` reads (per character, per
string, when splitting and cropping) and which Textual's `Content`, `Strip`, wrapping and
compositor all go through. Rich's algorithm and its caches stay as they are, so measuring
costs what it cost before (benchmarks/bench_cells.py).

A terminal differs from the code-point model in a few known ways, each a field of
`CellModel`: VS16 (U+FE0F) widening a narrow emoji to two cells, a skin-tone modifier joining
the emoji before it, (Rich's old model) spacing marks taking no cell, and emoji newer than
the terminal's tables (Unicode 15 and later: 🩷 🩵 🛜 🫷) drawn as nothing, as tmux 3.3a does
on Debian 12's C library. The default is what
tmux 3.3, xterm and VTE do; `tui_chat/commands/cell_probe.py` asks the terminal at start-up
and `model_from_widths` turns its answers into the model it actually follows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from msgspec import Struct
from rich.cells import CellTable

from tui_chat.ui import cell_table, textual_compat

Ranges = Iterable[tuple[int, int]]

EMOJI_MODIFIERS = ((0x1F3FB, 0x1F3FF),)  # Fitzpatrick skin tones
# One cell each, as glibc and tmux count them: a flag is a pair, and two cells in all.
REGIONAL_INDICATORS = ((0x1F1E6, 0x1F1FF),)
# The emoji added since Unicode 14: two cells in the table (cell_table.WIDE, Unicode 18),
# unknown to a C library whose tables stop at 14 (glibc 2.36, Debian 12). Derived as the
# code points from U+1F000 to U+1FAFF that are wide in cell_table.WIDE and unassigned in
# Python 3.11's unicodedata (Unicode 14.0.0); tests/unit/test_cells.py checks it so.
EMOJI_SINCE_15 = ((0x1F1AE, 0x1F1AE), (0x1F6D8, 0x1F6D9), (0x1F6DC, 0x1F6DC),
                  (0x1F7DA, 0x1F7DA), (0x1FA75, 0x1FA77), (0x1FA87, 0x1FA8F),
                  (0x1FAAD, 0x1FAAF), (0x1FABB, 0x1FABF), (0x1FAC6, 0x1FAC6),
                  (0x1FAC8, 0x1FAC8), (0x1FACC, 0x1FACF), (0x1FADA, 0x1FADD),
                  (0x1FADF, 0x1FADF), (0x1FAE8, 0x1FAEB), (0x1FAEF, 0x1FAEF),
                  (0x1FAF7, 0x1FAFA))


class CellModel(Struct, frozen=True):
    """How a terminal advances the cursor past the characters that terminals disagree on."""

    spacing_marks: bool = True
    """A spacing mark (Mc: `ी`, `ா`, `া`) takes a cell of its own (glibc, tmux, xterm, VTE)."""
    vs16_wide: bool = False
    """U+FE0F turns a one-cell emoji (`❤`) into a two-cell one (kitty, WezTerm, iTerm2)."""
    modifiers_join: bool = False
    """A skin-tone modifier joins the emoji before it: `👍🏽` is 2 cells, not 4."""
    new_emoji: bool = True
    """The emoji of Unicode 15 and later (EMOJI_SINCE_15) take two cells; False: none, as
    a terminal whose tables are older draws them (nothing; tmux 3.3a on glibc 2.36)."""


DEFAULT = CellModel()

# What each probe sample (tui_chat/commands/cell_probe.py) measures in a terminal where the
# field is true, and where it is false.
_PROBED = {"spacing_marks": (2, 1), "vs16_wide": (2, 1), "modifiers_join": (2, 4),
           "new_emoji": (2, 0)}


def model_from_widths(widths: dict[str, int]) -> CellModel:
    """The model a terminal follows, from the cells it gave each probe sample; a field whose
    answer is neither expected value keeps its default."""
    fields = {}
    for name, (if_true, if_false) in _PROBED.items():
        if widths.get(name) in (if_true, if_false):
            fields[name] = widths[name] == if_true
    return CellModel(**fields)


def _subtract(ranges: Ranges, remove: Ranges) -> list[tuple[int, int]]:
    """The code points of sorted, disjoint `ranges` that are not in sorted, disjoint
    `remove` (one pass over both)."""
    holes = list(remove)
    kept: list[tuple[int, int]] = []
    index = 0
    for start, end in ranges:
        while index < len(holes) and holes[index][1] < start:
            index += 1
        probe = index
        while start <= end and probe < len(holes) and holes[probe][0] <= end:
            hole_start, hole_end = holes[probe]
            if hole_start > start:
                kept.append((start, hole_start - 1))
            start = max(start, hole_end + 1)
            probe += 1
        if start <= end:
            kept.append((start, end))
    return kept


def _chars(ranges: Ranges) -> frozenset[str]:
    return frozenset(chr(point) for start, end in ranges for point in range(start, end + 1))


def build_table(model: CellModel) -> CellTable:
    """Rich's table for `model`: (start, end, width) for every range not one cell wide."""
    zero = list(cell_table.ZERO_WIDTH)
    if model.spacing_marks:
        zero = _subtract(zero, cell_table.SPACING_MARKS)
    if model.modifiers_join:
        zero = sorted(_subtract(zero, EMOJI_MODIFIERS) + list(EMOJI_MODIFIERS))
    if not model.new_emoji:
        zero = sorted(_subtract(zero, EMOJI_SINCE_15) + list(EMOJI_SINCE_15))
    wide = _subtract(_subtract(cell_table.WIDE, zero), REGIONAL_INDICATORS)
    widths = sorted([(start, end, 0) for start, end in zero]
                    + [(start, end, 2) for start, end in wide])
    narrow_to_wide = (_chars(cell_table.VS16_NARROW_TO_WIDE) if model.vs16_wide
                      else frozenset())
    return CellTable(cell_table.UNICODE_VERSION, widths, narrow_to_wide)


_installed: CellModel | None = None


def installed() -> CellModel | None:
    """The model Rich measures with now (None: Rich's own table)."""
    return _installed


def install(model: CellModel = DEFAULT) -> bool:
    """Make Rich and Textual measure with `model`'s table; True when that changed anything
    (what Rich had cached is forgotten, so text drawn before must be drawn again)."""
    global _installed
    if model == _installed:
        return False
    table = build_table(model)

    def load(unicode_version: str = "auto") -> CellTable:
        return table

    loader: Callable[[str], CellTable] = load
    textual_compat.replace_cell_table(loader)  # Rich's one place for widths
    _installed = model
    return True
