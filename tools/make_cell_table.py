"""Write `tui_chat/ui/cell_table.py` from the `wcwidth` package's current tables.

The app lays text out with these tables (`tui_chat/ui/cells.py`); they are copied into the
package rather than read from `wcwidth` at start-up because importing `wcwidth` costs about a
tenth of a second, a fifth of the start-up budget. `tests/unit/test_cells.py` fails when the
installed `wcwidth` no longer agrees with the copy: run `python tools/make_cell_table.py`.
"""

from __future__ import annotations

from pathlib import Path

TARGET = Path(__file__).resolve().parent.parent / "tui_chat" / "ui" / "cell_table.py"

Ranges = tuple[tuple[int, int], ...]


def _latest(tables: dict[str, Ranges]) -> tuple[str, Ranges]:
    version = max(tables, key=lambda name: tuple(int(part) for part in name.split(".")))
    return version, tables[version]


def table_source() -> str:
    """The module's text, as `wcwidth` gives it now."""
    import wcwidth
    from wcwidth.table_mc import CATEGORY_MC
    from wcwidth.table_vs16 import VS16_NARROW_TO_WIDE
    from wcwidth.table_wide import WIDE_EASTASIAN
    from wcwidth.table_zero import ZERO_WIDTH

    version, zero = _latest(ZERO_WIDTH)
    parts = [
        '"""Cell widths by code point, copied from the `wcwidth` package by',
        "tools/make_cell_table.py (do not edit by hand; run that script instead).",
        "",
        "ZERO_WIDTH: combining marks, format characters and the like (wcwidth's zero table,",
        "spacing marks included); SPACING_MARKS: the spacing marks (general category Mc), which",
        "terminals that advance by code point draw in a cell of their own; WIDE: East Asian wide",
        "and full-width; VS16_NARROW_TO_WIDE: what U+FE0F turns into a two-cell emoji where the",
        'terminal does that."""',
        "",
        f"WCWIDTH_VERSION = {wcwidth.__version__!r}",
        f"UNICODE_VERSION = {version!r}",
    ]
    for name, ranges in (("ZERO_WIDTH", zero), ("SPACING_MARKS", _latest(CATEGORY_MC)[1]),
                         ("WIDE", _latest(WIDE_EASTASIAN)[1]),
                         ("VS16_NARROW_TO_WIDE", _latest(VS16_NARROW_TO_WIDE)[1])):
        parts.append(f"{name}: tuple[tuple[int, int], ...] = (")
        parts.extend(f"    (0x{start:05x}, 0x{end:05x})," for start, end in ranges)
        parts.append(")")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    TARGET.write_text(table_source(), encoding="utf-8")
    print(f"wrote {TARGET}")
