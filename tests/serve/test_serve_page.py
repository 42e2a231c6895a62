"""The page `tui-chat serve` hands the browser (tui_chat/commands/serve_page.py): textual-serve's
script with the two hooks that draw Indic text joined, and a page that loads them from the
server itself. Without a browser; tests/serve/test_serve_indic.py looks at the pixels."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tui_chat.commands import serve_page


def test_textual_serve_s_script_gets_both_hooks() -> None:
    script = serve_page.textual_script()
    assert script.count("window.tuiChatTerminal(this.terminal)") == 1  # once it is open
    assert script.count("window.tuiChatFillText(this._tmpCtx,") == 2  # WebGL's and canvas's
    assert "this._tmpCtx.fillText(h,T,T+this._config.deviceCharHeight)" not in script


def test_the_page_loads_the_hooks_before_the_script_from_its_own_server() -> None:
    page = serve_page.page_template()
    sources = re.findall(r'<script src="([^"]+)"', page)
    assert sources == [serve_page.INDIC_PATH, serve_page.SCRIPT_PATH]
    assert not re.search(r'(?:href|src)="(?:https?:)?//', page)  # nothing from another host
    hooks = serve_page.indic_script()
    assert "window.tuiChatTerminal = " in hooks and "window.tuiChatFillText = " in hooks


def test_a_textual_serve_build_without_the_anchors_is_one_sentence(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "static" / "js" / "textual.js").write_text("new Terminal({}).open(el);")
    monkeypatch.setattr(serve_page, "_textual_serve_dir", lambda: tmp_path)
    serve_page.textual_script.cache_clear()
    try:
        with pytest.raises(serve_page.PageError, match="reinstall the textual-serve version"):
            serve_page.textual_script()
    finally:
        serve_page.textual_script.cache_clear()
