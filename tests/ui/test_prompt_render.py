"""The prompt applies its TextArea theme's CSS fallbacks when they may have changed (a theme,
its focus), not at every render: it is rendered at every blink of its cursor and with every
frame of a streaming reply that reaches its rows."""

from __future__ import annotations

from typing import Any

import pytest
from textual._text_area_theme import TextAreaTheme
from textual.widgets import TextArea

from tests.ui.conftest import AppFactory, conversation, wait_until


def _count_theme_css(monkeypatch: pytest.MonkeyPatch) -> list[TextArea]:
    applied: list[TextArea] = []
    apply_css = TextAreaTheme.apply_css

    def spy(self: TextAreaTheme, text_area: TextArea) -> None:
        applied.append(text_area)
        apply_css(self, text_area)

    monkeypatch.setattr(TextAreaTheme, "apply_css", spy)
    return applied


async def test_typing_in_the_prompt_does_not_apply_its_css_again(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    applied = _count_theme_css(monkeypatch)
    renders: list[int] = []
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        prompt = conversation(app).prompt
        render_lines = type(prompt).render_lines

        def counting(self: Any, crop: Any) -> Any:
            renders.append(1)
            return render_lines(self, crop)

        monkeypatch.setattr(type(prompt), "render_lines", counting)
        await pilot.press("a")
        await wait_until(pilot, lambda: prompt.text == "a" and bool(renders))
        before = applied.count(prompt)
        renders.clear()
        await pilot.press(*"bcdef")
        await wait_until(pilot, lambda: prompt.text == "abcdef" and len(renders) >= 3)
        assert applied.count(prompt) == before, "CSS applied again while typing"


async def test_the_prompt_takes_a_new_theme_and_its_focus_styles(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    applied = _count_theme_css(monkeypatch)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        prompt = conversation(app).prompt
        await pilot.press("a")
        await wait_until(pilot, lambda: prompt.text == "a")
        await pilot.pause()
        cursor = prompt._theme.cursor_style
        before = applied.count(prompt)
        app.theme = "nord" if app.theme != "nord" else "gruvbox"
        await wait_until(pilot, lambda: applied.count(prompt) > before)
        await pilot.pause()
        assert prompt._theme.cursor_style != cursor  # the new theme's cursor is drawn
        assert prompt._theme.cursor_style == prompt.get_component_rich_style(
            "text-area--cursor")
        before = applied.count(prompt)
        prompt.blur()
        await wait_until(pilot, lambda: applied.count(prompt) > before)
