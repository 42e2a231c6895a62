"""The one place that words pydantic's validation errors for people.

pydantic's messages are written for programmers: "Value error, '#zz' is not a colour" (our own
validators' sentences behind a prefix), "Input should be less than or equal to 2" (half of a
range, for a value that may be on either side of it, or NaN), "Extra inputs are not permitted".
`problem` turns one error into the second half of a sentence ("must be between 0 and 2",
"unknown key", "'#zz' is not a colour"); callers name the file, key or option in front of it.
A range is worded from the field's declared bounds, looked up on the model that failed.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence

from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

_RANGE_ERRORS = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal"})
_PREFIXES = ("Value error, ", "Assertion failed, ")


def where(item: ErrorDetails) -> str:
    """The dotted path of the value that failed ('timeouts.read'), or '(top level)'."""
    return ".".join(str(part) for part in item["loc"]) or "(top level)"


def problem(item: ErrorDetails, model: type[BaseModel] | None = None) -> str:
    """What is wrong with the value, as words that follow its name ("must be between 0 and
    2"); `model` is the model that was validated, for the range a number must be in."""
    if item["type"] == "extra_forbidden":
        return "unknown key"
    if item["type"] in _RANGE_ERRORS and model is not None:
        bounds = _range(model, item["loc"])
        if bounds is not None:
            return bounds
    message = str(item["msg"])
    for prefix in _PREFIXES:
        message = message.removeprefix(prefix)
    return message.replace("Input should be", "must be")


def first_problem(error: ValidationError,
                  model: type[BaseModel] | None = None) -> tuple[str, str]:
    """(where, problem) for the first error pydantic found."""
    first = error.errors()[0]
    return where(first), problem(first, model)


def _range(model: type[BaseModel], loc: Sequence[int | str]) -> str | None:
    """'must be between 0 and 2' (or 'at least 1', …) from the declared bounds of the field
    at `loc`, when it can be found."""
    current: type[BaseModel] | None = model
    metadata: list[object] = []
    for part in loc:
        if current is None or not isinstance(part, str) or part not in current.model_fields:
            return None
        field = current.model_fields[part]
        metadata = list(field.metadata)
        current = _model_in(field.annotation)
    low = next((m for m in metadata if isinstance(m, (Ge, Gt))), None)
    high = next((m for m in metadata if isinstance(m, (Le, Lt))), None)
    if isinstance(low, Ge) and isinstance(high, Le):
        return f"must be between {_number(low.ge)} and {_number(high.le)}"
    parts = []
    if low is not None:
        parts.append(f"at least {_number(low.ge)}" if isinstance(low, Ge)
                     else f"greater than {_number(low.gt)}")
    if high is not None:
        parts.append(f"at most {_number(high.le)}" if isinstance(high, Le)
                     else f"less than {_number(high.lt)}")
    return f"must be {' and '.join(parts)}" if parts else None


def _model_in(annotation: object) -> type[BaseModel] | None:
    """The model a field holds (through `X | None`), for looking one level further down."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
    return None


def _number(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
