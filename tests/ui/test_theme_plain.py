"""`themes.plainly_valid` answers as pydantic does, for every theme file it accepts: the same
ThemeFile (values and types), and it declines whatever pydantic refuses."""

from __future__ import annotations

import math
import tomllib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tui_chat.ui.themes import ThemeFile, load_theme_file, plainly_valid, shipped_themes_dir

_VALUES = st.one_of(
    st.sampled_from(["#E0A458", "#e0a458", "red", "rgb(1,2,3)", "#8F7AD8 40%", "#zz", "",
                     "x" * 65, "dusk", "a.b-c_d", "-dusk", "dusk\n", "dúsk", "none"]),
    st.booleans(), st.integers(-2, 2), st.floats(allow_nan=True, allow_infinity=True),
    st.none(), st.dictionaries(st.sampled_from(["footer-key-foreground", "x"]),
                               st.one_of(st.just("#E0A458"), st.integers(0, 1)), max_size=2))
_KEYS = st.sampled_from([*ThemeFile.model_fields, "unknown", "colour"])


def _pydantic(data: dict[str, Any]) -> ThemeFile | None:
    try:
        return ThemeFile.model_validate(data)
    except ValidationError:
        return None


def _same(plain: ThemeFile, validated: ThemeFile) -> None:
    for name in ThemeFile.model_fields:
        mine, theirs = getattr(plain, name), getattr(validated, name)
        assert type(mine) is type(theirs), name
        assert mine == theirs or (isinstance(mine, float) and math.isnan(mine)
                                  and math.isnan(theirs)), name
    assert plain.to_theme() == validated.to_theme()


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, max_size=8),
       st.sampled_from(["dusk", "tui-chat-dusk", "", "-x", "x" * 64, "x" * 65]),
       st.sampled_from(["#E0A458", "nope", 3]))
def test_what_it_accepts_pydantic_accepts_the_same(data: dict[str, Any], name: str,
                                                   primary: object) -> None:
    data = {"name": name, "primary": primary, **data}
    plain = plainly_valid(data)
    validated = _pydantic(data)
    if plain is not None:
        assert validated is not None, data
        _same(plain, validated)


def test_it_accepts_every_shipped_theme_as_pydantic_reads_it() -> None:
    paths = sorted(shipped_themes_dir().glob("*.toml"))
    assert paths
    for path in paths:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        data.setdefault("name", path.stem)
        plain = plainly_valid(data)
        assert plain is not None, path
        validated = _pydantic(data)
        assert validated is not None, path
        _same(plain, validated)
        assert load_theme_file(path) == validated.to_theme()


def test_it_leaves_a_file_with_a_problem_to_pydantic() -> None:
    good = {"name": "mine", "primary": "#E0A458"}
    for change in ({"primary": "#zz"}, {"name": "-mine"}, {"name": "mine\n"},
                   {"text_alpha": 1.5}, {"text_alpha": math.nan},
                   {"variables": {"x": 1}}, {"colour": "red"}, {"name": "x" * 65}):
        data = {**good, **change}
        assert plainly_valid(data) is None, change
        assert _pydantic(data) is None, change
    assert plainly_valid({"name": "mine"}) is None  # primary is required
    assert plainly_valid(good) is not None


def test_what_pydantic_only_coerces_is_left_to_it() -> None:
    data = {"name": "mine", "primary": "#E0A458", "dark": "yes", "luminosity_spread": True}
    assert plainly_valid(data) is None
    validated = _pydantic(data)
    assert validated is not None and validated.dark is True
    assert validated.luminosity_spread == 1.0
