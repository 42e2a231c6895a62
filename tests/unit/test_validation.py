"""pydantic's errors worded for people, in one place (tui_chat.core.validation)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tui_chat.core.config import Settings, load_settings
from tui_chat.core.errors import ConfigError
from tui_chat.core.models import Parameters
from tui_chat.core.personas import load_personas
from tui_chat.core.validation import first_problem
from tui_chat.ui.themes import load_themes


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ratio: float = Field(default=0.5, gt=0, lt=1)
    colour: str = "red"

    @field_validator("colour")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in ("red", "blue"):
            raise ValueError(f"'{value}' is not a colour")
        return value


class Outer(BaseModel):
    inner: Inner | None = None
    count: int = Field(default=1, ge=1)


def problem_of(model: type[BaseModel], data: dict[str, object]) -> tuple[str, str]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    return first_problem(caught.value, model)


@pytest.mark.parametrize(("data", "expected"), [
    ({"temperature": 5}, ("temperature", "must be between 0 and 2")),
    ({"temperature": float("nan")}, ("temperature", "must be between 0 and 2")),
    ({"top_p": -0.5}, ("top_p", "must be between 0 and 1")),
    ({"max_tokens": 0}, ("max_tokens", "must be at least 1")),
    ({"temperature": "warm"}, ("temperature", "must be a valid number, unable to parse "
                                              "string as a number")),
    ({"seed": 1}, ("seed", "unknown key")),
])
def test_parameters(data: dict[str, object], expected: tuple[str, str]) -> None:
    assert problem_of(Parameters, data) == expected


def test_nested_ranges_and_our_own_sentences_without_pydantics_prefix() -> None:
    assert problem_of(Outer, {"inner": {"ratio": 1}}) == (
        "inner.ratio", "must be greater than 0 and less than 1")
    assert problem_of(Outer, {"count": 0}) == ("count", "must be at least 1")
    assert problem_of(Outer, {"inner": {"colour": "#zz"}}) == ("inner.colour",
                                                              "'#zz' is not a colour")


def test_a_setting_deep_in_the_config() -> None:
    where, problem = problem_of(Settings, {"timeouts": {"read": -1}})
    assert where == "timeouts.read" and problem.startswith("must be ")
    assert "Input should" not in problem and "Value error" not in problem


def test_no_file_problem_carries_pydantics_prefix(tmp_path: Path) -> None:
    """A theme, a persona and config.toml each break one of our own checks: the sentence is
    ours, not behind pydantic's "Value error,"."""
    themes = tmp_path / "themes"
    themes.mkdir()
    (themes / "pink.toml").write_text('primary = "not-a-colour"\n', encoding="utf-8")
    personas = tmp_path / "personas"
    personas.mkdir()
    (personas / "lost.toml").write_text('system_prompt = "x"\nmodel = "sutra-v2"\n',
                                        encoding="utf-8")
    config = tmp_path / "config.toml"
    config.write_text('[providers.chutes]\nproxy = "gopher://x"\n', encoding="utf-8")
    _, theme_problems = load_themes([themes])
    _, persona_problems = load_personas([personas])
    with pytest.raises(ConfigError) as caught:
        load_settings(config)
    problems = [*theme_problems, *persona_problems, caught.value.message]
    assert len(problems) == 3
    assert "'primary': 'not-a-colour' is not a colour" in problems[0]
    assert "'provider': a model needs its provider" in problems[1]
    assert "'providers.chutes.proxy': must be a proxy URL" in problems[2]
    assert not any("Value error" in problem for problem in problems)
