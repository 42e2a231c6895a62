"""The one place that words pydantic's validation errors for people.

pydantic's messages are written for programmers: "Value error, '#zz' is not a colour" (our own
validators' sentences behind a prefix), "Input should be less than or equal to 2" (half of a
range, for a value that may be on either side of it, or NaN), "Extra inputs are not permitted".
`problem` turns one error into the second half of a sentence ("must be between 0 and 2",
"unknown key", "'#zz' is not a colour"); callers name the file, key or option in front of it.
A range is worded from the field's declared bounds, looked up on the model that failed (a
BaseModel, or a record of core.records: a dataclass, whose own words for an unknown key and a
value that is not a table are made the same as a BaseModel's).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from typing import Any

from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from tui_chat.core.records import Bounds, Record

Model = type[BaseModel] | type[Record]
_RANGE_ERRORS = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal"})
UNKNOWN_KEY_ERRORS = frozenset({"extra_forbidden", "unexpected_keyword_argument"})
"""A BaseModel's and a dataclass's error for a key the model does not have."""
_PREFIXES = ("Value error, ", "Assertion failed, ")


def where(item: ErrorDetails) -> str:
    """The dotted path of the value that failed ('timeouts.read'), or '(top level)'."""
    return ".".join(str(part) for part in item["loc"]) or "(top level)"


def problem(item: ErrorDetails, model: Model | None = None) -> str:
    """What is wrong with the value, as words that follow its name ("must be between 0 and
    2"); `model` is the model that was validated, for the range a number must be in."""
    if item["type"] in UNKNOWN_KEY_ERRORS:
        return "unknown key"
    if item["type"] == "dataclass_type":  # a record's words for a BaseModel's model_type
        return f"must be a valid dictionary or instance of {item['ctx']['class_name']}"
    if item["type"] in _RANGE_ERRORS and model is not None:
        bounds = _range(model, item["loc"])
        if bounds is not None:
            return bounds
    message = str(item["msg"])
    for prefix in _PREFIXES:
        message = message.removeprefix(prefix)
    return message.replace("Input should be", "must be")


def first_problem(error: ValidationError, model: Model | None = None) -> tuple[str, str]:
    """(where, problem) for the first error pydantic found."""
    first = error.errors()[0]
    return where(first), problem(first, model)


def _range(model: Model, loc: Sequence[int | str]) -> str | None:
    """'must be between 0 and 2' (or 'at least 1', …) from the declared bounds of the field
    at `loc`, when it can be found."""
    current: Model | None = model
    metadata: list[object] = []
    for part in loc:
        fields: Any = current.model_fields if current is not None else {}
        if not isinstance(part, str) or part not in fields:
            return None
        field = fields[part]
        metadata = _bounds(field.metadata)
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


def _bounds(metadata: Sequence[object]) -> list[object]:
    """A field's metadata with a record's `Bounds` as pydantic's own (Ge, Gt, Le, Lt)."""
    found: list[object] = []
    for item in metadata:
        if isinstance(item, Bounds):
            found += [kind(value) for kind, value in ((Ge, item.ge), (Gt, item.gt),
                                                      (Le, item.le), (Lt, item.lt))
                      if value is not None]
        else:
            found.append(item)
    return found


def _model_in(annotation: object) -> Model | None:
    """The model a field holds (through `X | None`), for looking one level further down."""
    if isinstance(annotation, type) and issubclass(annotation, (BaseModel, Record)):
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
