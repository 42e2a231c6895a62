"""The page `tui-chat serve` hands the browser: textual-serve's, with two changes.

- It loads nothing from other hosts: textual-serve's template asks a font host on the
  internet for a stylesheet; the page served is that template without it, the font being
  textual-serve's own copy.
- Indic text is drawn joined (issue 24). textual-serve's script (`textual.js`: xterm.js 5 with
  its WebGL and canvas renderers and Unicode 11 widths) draws every cell on its own, so a
  vowel sign with a cell of its own (`ी`, Mc) came out detached on a dotted circle and
  conjuncts fell apart. The page serves that script with two calls added (`serve_indic.js`,
  loaded first, answers them): once the terminal is open, `tuiChatTerminal` registers a
  character joiner, so that each run of Indic letters reaches the renderer as one string the
  browser shapes; and the glyph atlas draws through `tuiChatFillText`, which fits such a run
  to its cells: condensed when wider (Tamil at the terminal's size is about a fifth wider than
  its cells, and would cover the next word), centred when narrower (Hindi is narrower; the
  spaces between words stay even). The cells are the ones the app laid out, so nothing moves.

  Why this way, measured: the app and xterm.js's Unicode 11 widths agree on every cell
  (`परीक्षण` 6, `राजधानी` 7, `தமிழ்நாட்டின்` 10; tests/serve/xterm_widths.js), so only the
  drawing was wrong. xterm.js's grapheme addon (`@xterm/addon-unicode-graphemes`) counts
  3, 5, 4 and 7 cells for `हिन्दी`, `परीक्षण`, `राजधानी`, `தமிழ்நாட்டின்` (the app: 5, 6, 7, 10),
  so every Indic row would end cells short of its border, and it still draws cell by cell, a
  whole syllable in one cell its glyph overflows; laying the text out under the web driver as
  that addon counts has the same cost. With the joiner, each word's pixels match Chromium's
  own drawing of it (0.98 to 1.00 of the ink shared; 0.23 to 0.33 without:
  tests/serve/test_serve_indic.py).

`textual.js` is patched at two anchors of textual-serve 1.1.3's build (pinned); a build
without them fails here, as `serve` starts, with a sentence (tests/serve/test_serve_page.py).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

SCRIPT_PATH = "/tui-chat/textual.js"
"""Where the page loads textual-serve's script with the hooks added."""
INDIC_PATH = "/tui-chat/indic.js"
"""Where the page loads `serve_indic.js`."""

# (what textual.js 1.1.3 says, what it says instead, how many times): the terminal handed to
# `tuiChatTerminal` once open; the glyph atlases of its WebGL and canvas renderers drawing
# through `tuiChatFillText`, which is told the width of the cells the text has.
_PATCHES = (
    ("this.terminal.open(e),",
     "this.terminal.open(e),window.tuiChatTerminal(this.terminal),", 1),
    ("B||this._tmpCtx.fillText(h,T,T+this._config.deviceCharHeight)",
     "B||window.tuiChatFillText(this._tmpCtx,h,T,T+this._config.deviceCharHeight,"
     "this._config.deviceCellWidth*O)", 2),
)


class PageError(RuntimeError):
    """textual-serve's files are not the ones this page was made for."""


def _textual_serve_dir() -> Path:
    import textual_serve

    return Path(textual_serve.__file__).parent


@cache
def page_template() -> str:
    """textual-serve's page without what it loads from other hosts (a web font's
    stylesheet), with its own copy of the font instead, loading `textual.js` with the hook
    and the joiner."""
    page = (_textual_serve_dir() / "templates" / "app_index.html").read_text(encoding="utf-8")
    page = re.sub(r"<link\b[^>]*\bhref=\"(?:https?:)?//[^\"]*\"[^>]*>", "", page)
    original = '<script src="{{ config.static.url }}js/textual.js"></script>'
    if original not in page:
        raise PageError("textual-serve's page does not load js/textual.js as tui-chat "
                        "expects: reinstall the textual-serve version tui-chat pins.")
    page = page.replace(original, f'<script src="{INDIC_PATH}"></script>\n    '
                                  f'<script src="{SCRIPT_PATH}"></script>', 1)
    font = ('<style>@font-face { font-family: "Roboto Mono"; font-weight: 100 700; src: '
            'url("{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf") '
            'format("truetype"); }</style>')
    return page.replace("</head>", f"{font}\n  </head>", 1)


@cache
def textual_script() -> str:
    """textual-serve's `textual.js`, calling `window.tuiChatTerminal` once its terminal is
    open and drawing glyphs through `window.tuiChatFillText` (both in `serve_indic.js`)."""
    script = (_textual_serve_dir() / "static" / "js" / "textual.js").read_text(
        encoding="utf-8")
    for anchor, replacement, count in _PATCHES:
        if script.count(anchor) != count:
            raise PageError("textual-serve's textual.js is not the build tui-chat patches: "
                            "reinstall the textual-serve version tui-chat pins.")
        script = script.replace(anchor, replacement)
    return script


@cache
def indic_script() -> str:
    return (Path(__file__).parent / "serve_indic.js").read_text(encoding="utf-8")
