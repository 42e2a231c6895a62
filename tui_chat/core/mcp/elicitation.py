"""Input a tool server asks the user for in the middle of a call (MCP elicitation).

A server asks with a message and either a form (`schema`: a flat JSON Schema object whose
properties are strings, numbers or integers with bounds, booleans, a choice among values, or
several choices) or, in URL mode, a page for the user to open. The user accepts (with the
form's values), declines, or cancels.

- `form_fields` reads the schema into `Field`s a front-end draws (the app's modal,
  ui/screens/elicitation.py; `ask`'s prompts, commands/ask_terminal.py); a schema outside the
  subset MCP allows (a nested object) is not guessed at: the request is declined with the
  sentence `form_fields` gives.
- `checked` turns what the user entered (text for strings and numbers, a bool, the value of
  a choice, a list of values) into the answer's content, or gives one sentence per field
  that is wrong (required and empty, not a number, out of bounds, not in the choices, not an
  email, a URL or a date). An optional field left empty is left out of the answer.
- `elicit_through` asks the exchange's asker (core.asker): one that is an `Elicitor` (the
  app's controller, `ask`'s terminal asker) draws the request; any other declines, so a
  front-end that cannot ask never leaves a server waiting.
- `domain`: the host a URL-mode request would open, shown before asking (never opened
  without a yes).

Everything in a request (message, titles, descriptions, choices, URL) comes from the server
and is untrusted: the front-ends draw it literally. No SDK, no widgets here.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable
from urllib.parse import urlsplit

from tui_chat.core.links import host_of, opens_in_browser
from tui_chat.core.text import one_line

Action = Literal["accept", "decline", "cancel"]
ElicitAnswer = tuple[Action, dict[str, Any] | None]
Kind = Literal["string", "number", "integer", "boolean", "choice", "choices"]
Entered = str | bool | list[str] | None
"""What a user entered for one field: text (strings, numbers), a bool, a choice's value, the
values of several choices; None for nothing."""

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
TITLE_CHARS = 80


@dataclass(frozen=True)
class ElicitRequest:
    """Input a server asks the user for in the middle of a call: a form (`schema`) or, in URL
    mode, a page to open (`url`)."""

    server: str
    message: str
    schema: Mapping[str, Any] | None
    url: str | None


@dataclass(frozen=True)
class Field:
    """One field of a form, as the schema describes it."""

    name: str
    kind: Kind
    title: str
    description: str = ""
    required: bool = False
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    format: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    """(value, label) of each choice."""
    min_items: int | None = None
    max_items: int | None = None

    def initial(self) -> Entered:
        """What the field holds before the user touches it: the server's default."""
        default = self.default
        if self.kind == "boolean":
            return bool(default) if isinstance(default, bool) else False
        if self.kind == "choices":
            values = {value for value, _ in self.options}
            return [v for v in default if v in values] if isinstance(default, list) else []
        if self.kind == "choice":
            return default if any(default == v for v, _ in self.options) else None
        if default is None or isinstance(default, bool):
            return ""
        return str(default)

    def bounds(self) -> str:
        """The bounds of a number, or the length of a text, as a hint ("" for none)."""
        low, high = ((self.minimum, self.maximum) if self.kind in ("number", "integer")
                     else (self.min_length, self.max_length))
        if low is None and high is None:
            return ""
        unit = "" if self.kind in ("number", "integer") else " characters"
        if low is not None and high is not None:
            return f"{_number(low)} to {_number(high)}{unit}"
        return f"at least {_number(low)}{unit}" if low is not None else \
            f"at most {_number(high)}{unit}"


@runtime_checkable
class Elicitor(Protocol):
    """An asker that can put a server's request for input to the user."""

    async def elicit(self, request: ElicitRequest) -> ElicitAnswer: ...


async def elicit_through(asker: object, request: ElicitRequest) -> ElicitAnswer:
    """The answer of `asker` if it can ask (an `Elicitor`), else a decline."""
    if isinstance(asker, Elicitor):
        return await asker.elicit(request)
    return "decline", None


def domain(url: str) -> str:
    """The host `url` would open ("" when it has none)."""
    return host_of(url)


def url_problem(url: str) -> str | None:
    """Why a URL-mode request's page is not opened (not http(s), no host: core.links), else
    None."""
    if not opens_in_browser(url):
        return "the page it gives is not an http(s) address, so tui-chat does not open it"
    return None


def form_fields(schema: Mapping[str, Any] | None) -> list[Field] | str:
    """The fields of a form-mode request, in the schema's order; or, when the schema is not
    one a form can be built from, the reason in a sentence."""
    if not isinstance(schema, Mapping) or schema.get("type", "object") != "object":
        return "the form it describes is not an object of fields"
    properties = schema.get("properties") or {}
    required = schema.get("required") or []
    if not isinstance(properties, Mapping) or not isinstance(required, list):
        return "the form it describes has no readable fields"
    fields = []
    for name, spec in properties.items():
        field = _field(str(name), spec, name in required)
        if field is None:
            return (f"its field {one_line(str(name), TITLE_CHARS)!r} is of a kind tui-chat "
                    "cannot ask for")
        fields.append(field)
    return fields


def _field(name: str, spec: Any, required: bool) -> Field | None:
    if not isinstance(spec, Mapping):
        return None
    kind = spec.get("type")
    common: dict[str, Any] = {
        "name": name, "title": str(spec.get("title") or name),
        "description": str(spec.get("description") or ""), "required": required,
        "default": spec.get("default")}
    if kind == "array":
        items = spec.get("items")
        options = _options(items) if isinstance(items, Mapping) else None
        if not options:
            return None
        return Field(kind="choices", options=options, min_items=_int(spec.get("minItems")),
                     max_items=_int(spec.get("maxItems")), **common)
    options = _options(spec)
    if kind == "string" and options:
        return Field(kind="choice", options=options, **common)
    if kind == "string":
        return Field(kind="string", min_length=_int(spec.get("minLength")),
                     max_length=_int(spec.get("maxLength")),
                     format=spec.get("format") if isinstance(spec.get("format"), str) else None,
                     **common)
    if kind in ("number", "integer"):
        return Field(kind=kind, minimum=_float(spec.get("minimum")),
                     maximum=_float(spec.get("maximum")), **common)
    if kind == "boolean":
        return Field(kind="boolean", **common)
    return None


def _options(spec: Mapping[str, Any]) -> tuple[tuple[str, str], ...] | None:
    """(value, label) of an enum (with `enumNames`, the legacy titles) or a `oneOf` / `anyOf`
    of `const` and `title`."""
    enum = spec.get("enum")
    if isinstance(enum, list) and enum:
        names = spec.get("enumNames")
        labels = names if isinstance(names, list) and len(names) == len(enum) else enum
        return tuple((str(v), str(label)) for v, label in zip(enum, labels, strict=True))
    for key in ("oneOf", "anyOf"):
        choices = spec.get(key)
        if isinstance(choices, list) and choices and all(
                isinstance(c, Mapping) and "const" in c for c in choices):
            return tuple((str(c["const"]), str(c.get("title") or c["const"])) for c in choices)
    return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _number(value: float | None) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def checked(fields: Sequence[Field], entered: Mapping[str, Entered]
            ) -> tuple[dict[str, Any], dict[str, str]]:
    """The answer's content from what the user `entered`, and a sentence for each field that
    is wrong (by field name); the content is for sending only when there are none."""
    content: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for field in fields:
        value, problem = _checked(field, entered.get(field.name))
        if problem is not None:
            problems[field.name] = f"{_title(field)} {problem}."
        elif value is not None:
            content[field.name] = value
    return content, problems


def _title(field: Field) -> str:
    return one_line(field.title, TITLE_CHARS) or one_line(field.name, TITLE_CHARS)


def _checked(field: Field, value: Entered) -> tuple[Any, str | None]:
    if field.kind == "boolean":
        return bool(value), None
    if field.kind == "choices":
        return _checked_choices(field, value if isinstance(value, list) else [])
    if field.kind == "choice":
        if value in (None, ""):
            return None, "needs a choice" if field.required else None
        if not any(value == v for v, _ in field.options):
            return None, "must be one of the choices offered"
        return value, None
    text = value.strip() if isinstance(value, str) else ""
    if not text:
        return None, "is required" if field.required else None
    if field.kind in ("number", "integer"):
        return _checked_number(field, text)
    return _checked_text(field, value if isinstance(value, str) else text)


def _checked_choices(field: Field, values: list[str]) -> tuple[Any, str | None]:
    known = {v for v, _ in field.options}
    if any(v not in known for v in values):
        return None, "must be among the choices offered"
    if not values and not field.required:  # left out: its bounds hold for an answer given
        return None, None
    low, high = field.min_items, field.max_items
    if not values and field.required and not low:
        return None, "needs at least one choice"
    if low is not None and len(values) < low:
        return None, f"needs at least {low} choice{'s' if low != 1 else ''}"
    if high is not None and len(values) > high:
        return None, f"takes at most {high} choice{'s' if high != 1 else ''}"
    return list(values), None


def _checked_number(field: Field, text: str) -> tuple[Any, str | None]:
    number: float
    try:
        number = int(text) if field.kind == "integer" else float(text)
    except ValueError:
        return None, ("must be a whole number" if field.kind == "integer"
                      else "must be a number")
    if isinstance(number, float) and not math.isfinite(number):
        return None, "must be a finite number"
    if (field.minimum is not None and number < field.minimum) or (
            field.maximum is not None and number > field.maximum):
        return None, f"must be {field.bounds()}"
    return number, None


def _checked_text(field: Field, text: str) -> tuple[Any, str | None]:
    if (field.min_length is not None and len(text) < field.min_length) or (
            field.max_length is not None and len(text) > field.max_length):
        return None, f"must be {field.bounds()} long"
    stripped = text.strip()
    if field.format == "email" and not _EMAIL.match(stripped):
        return None, "must be an email address (name@example.com)"
    if field.format == "uri" and not (urlsplit(stripped).scheme and ":" in stripped):
        return None, "must be an address with its scheme (https://…)"
    if field.format == "date":
        try:
            datetime.date.fromisoformat(stripped)
        except ValueError:
            return None, "must be a date written YYYY-MM-DD"
    if field.format == "date-time":
        try:
            datetime.datetime.fromisoformat(stripped)
        except ValueError:
            return None, "must be a date and time written YYYY-MM-DDTHH:MM"
    return text, None
