"""Theme files: TOML mapped onto `textual.theme.Theme`, shipped ones and the user's own.

`load_themes()` never raises for a bad file: it returns the themes it could read and one
sentence per problem, so the app can show ONE notification and fall back to DEFAULT_THEME.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any, ClassVar

from textual.app import App
from textual.color import Color, ColorParseError
from textual.theme import BUILTIN_THEMES, Theme

import tui_chat
from tui_chat.core import paths
from tui_chat.core.config import Settings
from tui_chat.core.files import FileTooLargeError, read_bounded
from tui_chat.core.records import After, Bounds, Record, Text
from tui_chat.core.text import one_line

DEFAULT_THEME: str = Settings().theme
"""The theme used when the configured one is unknown or broken ("tui-chat-dusk")."""

_MAX_THEME_BYTES = 64 * 1024


_NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.-]*"
_NAME_MAX = 64
_COLOURS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground",
            "background", "surface", "panel", "boost")


def _is_colour(value: str) -> bool:
    try:
        Color.parse(value)
    except ColorParseError:
        return False
    return True


def _checked_colour(value: str | None) -> str | None:
    if value is not None and not _is_colour(value):
        raise ValueError(f"'{one_line(value, 40)}' is not a colour")
    return value


Colour = Annotated[str | None, After(_checked_colour)]
Fraction = Annotated[float, Bounds(ge=0, le=1)]


class ThemeFile(Record):
    """One theme file. Colours are anything Textual parses: "#RRGGBB", "rgb(…)", names.

    A record (core.records): pydantic validates only a file `plainly_valid` cannot vouch for;
    the shipped themes are read before the app's first frame, which imports no pydantic."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    name: Annotated[str, Text(min_length=1, max_length=_NAME_MAX,
                              pattern=f"^{_NAME_PATTERN}$")]
    """The name shown in Settings and the command palette; the file name when omitted."""
    primary: Annotated[str, After(_checked_colour)]
    secondary: Colour = None
    warning: Colour = None
    error: Colour = None
    success: Colour = None
    accent: Colour = None
    foreground: Colour = None
    background: Colour = None
    surface: Colour = None
    panel: Colour = None
    boost: Colour = None
    dark: bool = True
    luminosity_spread: Fraction = 0.15
    text_alpha: Fraction = 0.95
    variables: dict[str, str] = field(default_factory=dict)
    """Extra Textual design variables, e.g. "footer-key-foreground" = "#E0A458"."""
    ansi: bool = False

    def to_theme(self) -> Theme:
        values = {name: getattr(self, name) for name in _FIELDS}
        return Theme(**{**values, "variables": dict(self.variables)})


_FIELDS = frozenset(item.name for item in dataclasses.fields(ThemeFile))


def plainly_valid(data: dict[str, object]) -> ThemeFile | None:
    """`data` as a ThemeFile when every value is exactly of its field's type and within its
    bounds, as the shipped themes are: what `ThemeFile.model_validate(data)` returns then,
    without pydantic. None for anything else (pydantic then decides, and words the problem);
    tests/ui/test_theme_plain.py holds the two to the same answers."""
    if not data.keys() <= _FIELDS or not isinstance(data.get("primary"), str):
        return None
    name = data.get("name")
    if (type(name) is not str or len(name) > _NAME_MAX
            or re.fullmatch(_NAME_PATTERN, name) is None):
        return None
    values: dict[str, object] = {}
    for key, value in data.items():
        if key in _COLOURS:
            plain = type(value) is str and _is_colour(value)
        elif key in ("dark", "ansi"):
            plain = type(value) is bool
        elif key in ("luminosity_spread", "text_alpha"):
            plain = (isinstance(value, int | float) and not isinstance(value, bool)
                     and 0 <= value <= 1)
            value = float(value) if plain else value  # type: ignore[arg-type]
        elif key == "variables":
            plain = type(value) is dict and all(
                type(k) is str and type(v) is str for k, v in value.items())
        else:
            plain = key == "name"
        if not plain:
            return None
        values[key] = value
    return ThemeFile(**values)  # type: ignore[arg-type]


def shipped_themes_dir() -> Path:
    """`tui_chat/themes` inside a wheel; the repository's `themes/` in a source checkout."""
    package = Path(tui_chat.__file__).resolve().parent
    inside = package / "themes"
    return inside if inside.is_dir() else package.parent / "themes"


def theme_dirs() -> list[Path]:
    """Shipped themes first, then the user's: a user file may replace a shipped theme."""
    return [shipped_themes_dir(), paths.user_themes_dir()]


def load_theme_file(path: Path) -> Theme:
    """Read and validate one file. Raises ValueError with one sentence naming the file."""
    try:
        data = tomllib.loads(read_bounded(path, _MAX_THEME_BYTES).decode("utf-8"))
    except FileTooLargeError:
        raise ValueError(f"the theme file {path} is larger than 64 KiB") from None
    except OSError as error:
        raise ValueError(f"cannot read the theme file {path} ({error.strerror})") from None
    except ValueError as error:  # TOMLDecodeError, UnicodeDecodeError, an int too long
        raise ValueError(f"the theme file {path} is not valid TOML ({error})") from None
    except RecursionError:
        raise ValueError(f"the theme file {path} is nested too deeply to read") from None
    data.setdefault("name", path.stem)
    checked = plainly_valid(data) or _validated(data, path)
    try:
        theme = checked.to_theme()
        theme.to_color_system()  # fails early on anything Textual cannot use
    except Exception as error:  # Textual's own checks, whatever they raise
        raise ValueError(f"the theme file {path} cannot be used ({error})") from None
    return theme


def _validated(data: dict[str, object], path: Path) -> ThemeFile:
    """pydantic's reading of a file `plainly_valid` cannot vouch for; ValueError with the
    sentence."""
    from pydantic import ValidationError

    from tui_chat.core.validation import first_problem

    try:
        return ThemeFile.model_validate(data)
    except ValidationError as error:
        key, problem = first_problem(error, ThemeFile)
        raise ValueError(f"the theme file {path} has a problem at '{key}': {problem}") from None


def load_themes(dirs: Iterable[Path] | None = None) -> tuple[list[Theme], list[str]]:
    """Every `*.toml` theme in `dirs` (default: `theme_dirs()`), and one sentence per problem."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for directory in theme_dirs() if dirs is None else dirs:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            try:
                theme = load_theme_file(path)
            except ValueError as error:
                problems.append(one_line(str(error), 300))
                continue
            themes[theme.name] = theme
    return list(themes.values()), problems


def problems_message(problems: Sequence[str], fallback: str = DEFAULT_THEME) -> str:
    """One notification for every broken theme file (show it with markup=False)."""
    if not problems:
        return ""
    count = "A theme file" if len(problems) == 1 else f"{len(problems)} theme files"
    lines = "\n".join(f"• {problem}" for problem in problems)
    return (f"{count} could not be loaded; fix or remove it, tui-chat uses '{fallback}' "
            f"where needed:\n{lines}")


def available_theme_names(themes: Iterable[Theme]) -> list[str]:
    """tui-chat's own themes first (sorted), then Textual's built-ins (sorted)."""
    own = sorted({theme.name for theme in themes} - set(BUILTIN_THEMES))
    return own + sorted(name for name in BUILTIN_THEMES if name != "textual-ansi")


def choose_theme(wanted: str, known: Iterable[str]) -> tuple[str, str | None]:
    """The theme to use for `wanted`, and a sentence when it had to fall back."""
    names = set(known)
    if wanted in names:
        return wanted, None
    fallback = DEFAULT_THEME if DEFAULT_THEME in names else "textual-dark"
    return fallback, (f"The theme '{one_line(wanted, 40)}' is not installed; using "
                      f"'{fallback}'. Pick another in Settings.")


def install_themes(app: App[object], wanted: str,
                   dirs: Iterable[Path] | None = None) -> str | None:
    """Register every readable theme, switch `app` to `wanted` (or the fallback).

    Returns the ONE message to notify (with markup=False), or None when all went well.
    """
    themes, problems = load_themes(dirs)
    for theme in themes:
        app.register_theme(theme)
    name, note = choose_theme(wanted, app.available_themes)
    app.theme = name
    parts = [part for part in (problems_message(problems), note) if part]
    return "\n".join(parts) or None
