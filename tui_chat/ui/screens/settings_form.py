"""The settings form as data: which fields, how they are edited, and form values → Settings.

Fields come from the records (`Settings`, `Parameters`, `Timeouts`): their types decide the
editor, their constraints are checked by pydantic on save. No Textual here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import ValidationError
from pydantic_core import ErrorDetails, InitErrorDetails

from tui_chat.core.config import Settings, Timeouts
from tui_chat.core.errors import TuiChatError
from tui_chat.core.models import Parameters
from tui_chat.core.records import Record
from tui_chat.core.secrets import key_problem
from tui_chat.core.text import sanitize
from tui_chat.core.validation import UNKNOWN_KEY_ERRORS, Model, problem

Kind = Literal["text", "multiline", "float", "int", "provider", "theme", "secret", "url"]
Path = tuple[str, ...]

HELP: dict[Path, str] = {
    ("default_provider",): "Used for new conversations.",
    ("default_model",): "Model for new conversations; empty: the provider's default.",
    ("system_prompt",): "Sent first in every new conversation; empty: none.",
    ("theme",): "Previewed as you choose; Esc restores the current one.",
    ("reading_width",): "Widest line of message text, in columns; 0: the whole width.",
    ("max_retries",): "Retries before the first token (429, 5xx, connection failures).",
    ("parameters", "temperature"): "0 to 2; empty: the provider's default.",
    ("parameters", "max_tokens"): "Largest reply, in tokens; empty: the provider's default.",
    ("parameters", "top_p"): "0 to 1; empty: the provider's default.",
    ("parameters", "presence_penalty"): "-2 to 2; empty: the provider's default.",
    ("parameters", "frequency_penalty"): "-2 to 2; empty: the provider's default.",
    ("timeouts", "connect"): "Seconds to open a connection.",
    ("timeouts", "first_byte"): "Seconds to wait for a reply to start (cold starts are slow).",
    ("timeouts", "read"): "Largest gap, in seconds, between two events of a reply.",
}

_SKIPPED = {("providers",), ("keys",), ("models",), ("parameters", "stop"),
            ("parameters", "e2ee"), ("parameters", "tools_off"), ("parameters", "reasoning")}
# ^ per provider ([providers.NAME]), per conversation (F8)
_SPECIAL: dict[Path, Kind] = {
    ("default_provider",): "provider",
    ("theme",): "theme",
    ("system_prompt",): "multiline",
}


@dataclass(frozen=True)
class FieldSpec:
    """One editable value: its place in Settings, its editor and its label."""

    path: Path
    kind: Kind
    label: str
    help: str = ""
    optional: bool = False
    section: str = "General"


def _humanize(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _kind_of(annotation: Any) -> tuple[Kind, bool]:
    args = get_args(annotation)
    optional = get_origin(annotation) in (Union, UnionType) and type(None) in args
    base = next((a for a in args if a is not type(None)), annotation) if optional else annotation
    if base is float:
        return "float", optional
    if base is int:
        return "int", optional
    return "text", optional


def model_fields(model: type[Record], prefix: Path, section: str) -> list[FieldSpec]:
    specs: list[FieldSpec] = []
    for name, info in model.model_fields.items():
        path = (*prefix, name)
        if path in _SKIPPED or (isinstance(info.annotation, type)
                                and issubclass(info.annotation, Record)):
            continue
        kind, optional = _kind_of(info.annotation)
        specs.append(FieldSpec(path, _SPECIAL.get(path, kind), _humanize(name),
                               HELP.get(path, ""), optional, section))
    return specs


def general_fields() -> list[FieldSpec]:
    """Every scalar field of Settings, Parameters and Timeouts, in declaration order."""
    return [*model_fields(Settings, (), "General"),
            *model_fields(Parameters, ("parameters",), "Parameters"),
            *model_fields(Timeouts, ("timeouts",), "Timeouts (seconds)")]


def provider_fields(name: str, display_name: str | None = None) -> list[FieldSpec]:
    section = f"{display_name} ({name})" if display_name and display_name != name else name
    return [FieldSpec(("providers", name, "api_key"), "secret", "API key",
                      "Stored in config.toml (mode 0600); pasted spaces are trimmed.",
                      True, section),
            FieldSpec(("providers", name, "base_url"), "url", "Base URL",
                      "Empty: the built-in URL.", True, section)]


def initial_value(settings: Settings, path: Path) -> str:
    """The text an editor starts with."""
    if path[0] == "providers":
        section = settings.providers.get(path[1])
        if section is None:
            return ""
        value: Any = getattr(section, path[2])
        if path[2] == "api_key":
            return value.get_secret_value() if value else ""
        return sanitize(value or "")
    node: Any = settings
    for part in path:
        node = getattr(node, part)
    return "" if node is None else sanitize(str(node))


def env_override(settings: Settings, name: str, field: str,
                 env: Mapping[str, str] | None = None) -> str | None:
    """The environment variable that wins over this provider field, when it is set."""
    env = os.environ if env is None else env
    try:
        spec = settings.resolve_provider(name, env=env).spec
    except TuiChatError:
        return None
    variable = spec.api_key_env if field == "api_key" else spec.base_url_env
    return variable if variable and env.get(variable, "").strip() else None


def build_settings(original: Settings, values: Mapping[Path, str],
                   specs: Mapping[Path, FieldSpec]) -> Settings:
    """Settings from form values (unchanged fields kept). Raises ValidationError."""
    data = original.model_dump(mode="python", exclude={"providers"})
    providers = {name: section.model_dump(mode="python")
                 for name, section in original.providers.items()}
    for path, raw in values.items():
        spec = specs[path]
        text = raw if spec.kind in ("multiline", "secret") else raw.strip()
        value: str | None = text if text.strip() or not spec.optional else None
        if path[0] == "providers":
            section = providers.setdefault(path[1], {})
            section[path[2]] = value
            continue
        target = data
        for part in path[:-1]:
            target = target[part]
        if value == "" and not spec.optional:
            target.pop(path[-1], None)  # an emptied field goes back to its default
            continue
        target[path[-1]] = value
    # A key typed for a provider that needs none: said on the key's own field (pydantic would
    # say it of the whole section, which has no field), the rest validated without it.
    keyless: list[tuple[Path, str]] = []
    for name, section in providers.items():
        if section.get("needs_key") is False and section.get("api_key"):
            section["api_key"] = None
            keyless.append((("providers", name, "api_key"), KEYLESS_PROBLEM))
    data["providers"] = {name: section for name, section in providers.items()
                         if any(v is not None for v in section.values())}
    try:
        settings = Settings.model_validate(data)
    except ValidationError as error:
        raise _with_problems(error.errors(), keyless) from None
    _check_providers(settings, keyless)
    return settings


KEYLESS_PROBLEM = ("this provider needs no key (needs_key = false in config.toml): leave it "
                   "empty, or remove needs_key there")


def _with_problems(errors: Sequence[ErrorDetails], problems: Sequence[tuple[Path, str]]
                   ) -> ValidationError:
    """One ValidationError holding pydantic's `errors` and our `problems` (path, sentence)."""
    details: list[InitErrorDetails] = []
    for item in errors:
        detail = InitErrorDetails(type=item["type"], loc=item["loc"], input=item["input"])
        if "ctx" in item:
            detail["ctx"] = item["ctx"]
        details.append(detail)
    details += [InitErrorDetails(type="value_error", loc=path, input=None,
                                 ctx={"error": ValueError(message)})
                for path, message in problems]
    return ValidationError.from_exception_data("Settings", details)


def field_for(path: Path, fields: Sequence[Path]) -> Path | None:
    """The form field an error at `path` is about: that field, the one it lies inside, or,
    for an error about a whole section (a provider's), the first field of that section."""
    if path in fields:
        return path
    inside = [field for field in fields if path[:len(field)] == field]
    if inside:
        return max(inside, key=len)
    return next((field for field in fields if path and field[:len(path)] == path), None)


def _check_providers(settings: Settings, problems: list[tuple[Path, str]]) -> None:
    """Problems pydantic cannot see alone: a declared provider without a base URL, a pasted
    key that cannot be sent (its sentence never quotes it); `problems`: those found before."""
    for name in settings.provider_names():
        try:
            settings.resolve_provider(name, env={})
        except TuiChatError:
            problems.append((("providers", name, "base_url"),
                             "a base URL is needed for this provider"))
            continue
        section = settings.providers.get(name)
        pasted = section.api_key.get_secret_value() if section and section.api_key else ""
        problem = key_problem(pasted)
        if problem is not None:
            problems.append((("providers", name, "api_key"),
                             f"the key {problem}; paste it again"))
    if problems:
        raise _with_problems([], problems)


def error_messages(error: ValidationError, model: Model | None = None) -> dict[Path, str]:
    """One clear sentence per field path (`model`, the one validated, gives ranges)."""
    messages: dict[Path, str] = {}
    for item in error.errors():
        path = tuple(str(part) for part in item["loc"])
        message = ("unknown setting" if item["type"] in UNKNOWN_KEY_ERRORS
                   else problem(item, model))
        messages.setdefault(path, message[:1].upper() + message[1:] + ".")
    return messages
