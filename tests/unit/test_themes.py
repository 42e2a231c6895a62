"""Theme files: shipped ones load, broken ones give one problem each and the default theme."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App

from tui_chat.core import paths
from tui_chat.core.config import Settings
from tui_chat.ui import themes
from tui_chat.ui.themes import (
    DEFAULT_THEME,
    choose_theme,
    install_themes,
    load_themes,
    problems_message,
    shipped_themes_dir,
)


def test_default_theme_matches_settings_and_is_shipped() -> None:
    assert DEFAULT_THEME == Settings().theme == "tui-chat-dusk"
    loaded, problems = load_themes([shipped_themes_dir()])
    names = {theme.name for theme in loaded}
    assert problems == []
    assert DEFAULT_THEME in names
    assert len(names) >= 3
    assert all(name.startswith("tui-chat-") for name in names)


def test_every_shipped_file_name_matches_its_theme_name() -> None:
    for path in shipped_themes_dir().glob("*.toml"):
        assert themes.load_theme_file(path).name == path.stem


def test_wheel_layout_is_preferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # In a wheel, themes/ is force-included as tui_chat/themes; a source checkout has ../themes.
    package = tmp_path / "site" / "tui_chat"
    (package / "themes").mkdir(parents=True)
    (tmp_path / "site" / "themes").mkdir()
    monkeypatch.setattr(themes.tui_chat, "__file__", str(package / "__init__.py"))
    assert shipped_themes_dir() == (package / "themes").resolve()
    (package / "themes").rmdir()
    assert shipped_themes_dir() == (tmp_path / "site" / "themes").resolve()


def test_user_theme_loads_and_overrides(tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    (user / "mine.toml").write_text('primary = "#123456"\ndark = false\n', encoding="utf-8")
    (user / "dusk.toml").write_text('name = "tui-chat-dusk"\nprimary = "#abcdef"\n',
                                    encoding="utf-8")
    loaded, problems = load_themes([shipped_themes_dir(), user])
    by_name = {theme.name: theme for theme in loaded}
    assert problems == []
    assert by_name["mine"].primary == "#123456"
    assert by_name["mine"].dark is False
    assert by_name["tui-chat-dusk"].primary == "#abcdef"


def test_broken_files_give_one_problem_each_and_never_raise(tmp_path: Path) -> None:
    (tmp_path / "a-not-toml.toml").write_text("primary = [unclosed", encoding="utf-8")
    (tmp_path / "b-bad-colour.toml").write_text('primary = "not-a-colour"\n', encoding="utf-8")
    (tmp_path / "c-no-primary.toml").write_text('dark = true\n', encoding="utf-8")
    (tmp_path / "d-extra.toml").write_text('primary = "#fff"\nprimry = "#000"\n',
                                           encoding="utf-8")
    (tmp_path / "e-binary.toml").write_bytes(b"\xff\xfe\x00garbage")
    (tmp_path / "good.toml").write_text('primary = "#00ff00"\n', encoding="utf-8")
    loaded, problems = load_themes([tmp_path])
    assert [theme.name for theme in loaded] == ["good"]
    assert len(problems) == 5
    assert "a-not-toml.toml" in problems[0] and "not valid TOML" in problems[0]
    assert "'primary'" in problems[1] and "not a colour" in problems[1]
    assert "'primary'" in problems[2]
    assert "'primry': unknown key" in problems[3]
    message = problems_message(problems)
    assert message.startswith("5 theme files could not be loaded")
    assert message.count("•") == 5


def test_missing_dirs_are_fine(tmp_path: Path) -> None:
    assert load_themes([tmp_path / "nope"]) == ([], [])
    assert problems_message([]) == ""


def test_choose_theme_falls_back_with_a_sentence() -> None:
    assert choose_theme("nord", ["nord", DEFAULT_THEME]) == ("nord", None)
    name, note = choose_theme("no-such", ["nord", DEFAULT_THEME])
    assert name == DEFAULT_THEME
    assert note is not None and "'no-such' is not installed" in note


async def test_install_themes_on_an_app_with_a_broken_user_theme() -> None:
    user = paths.user_themes_dir()
    user.mkdir(parents=True)
    (user / "broken.toml").write_text("primary = ", encoding="utf-8")
    app: App[None] = App()
    async with app.run_test():
        message = install_themes(app, "broken")
        assert app.theme == DEFAULT_THEME
        assert message is not None
        assert message.startswith("A theme file could not be loaded")
        assert "broken.toml" in message
        assert "'broken' is not installed" in message
        assert {"tui-chat-dawn", "tui-chat-forest"} <= set(app.available_themes)


async def test_install_themes_quietly_applies_a_good_choice() -> None:
    app: App[None] = App()
    async with app.run_test():
        assert install_themes(app, "tui-chat-forest") is None
        assert app.theme == "tui-chat-forest"
        assert app.current_theme.primary == "#8FC97A"


def test_the_example_in_the_themes_readme_loads(tmp_path: Path) -> None:
    readme = (shipped_themes_dir() / "README.md").read_text(encoding="utf-8")
    example = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "example.toml").write_text(example, encoding="utf-8")
    loaded, problems = load_themes([tmp_path])
    assert problems == []
    assert [theme.name for theme in loaded] == ["my-theme"]
    assert loaded[0].variables == {"footer-key-foreground": "#E0A458"}
