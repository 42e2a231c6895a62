"""pydantic's errors worded for people, in one place (tui_chat.core.validation)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tui_chat.core.config import Settings
from tui_chat.core.models import Parameters
from tui_chat.core.validation import first_problem


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
