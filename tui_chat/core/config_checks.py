"""The checks of config.toml's values, and `plainly_valid`: the settings of a file whose every
value is plainly right, without pydantic.

The records in `core.config` are validated by pydantic (`model_validate`); the checks they add
to pydantic's own (a proxy URL, header names, a base URL, ...) are these functions, so that
`plainly_valid` makes the very same ones. `plainly_valid` vouches only for a file whose every
value is exactly of its field's type (a string for a string, an integer for an integer, a
finite number for a number) and within its field's declared bounds (read from the records,
not repeated here); for anything else (a value pydantic would convert, refuse, or that this
does not know) it returns None and pydantic decides, with the same sentence as ever. Why it is
worth having: a plain config.toml is then read without importing pydantic, which with its
validators cost about a fifth of the instructions to the app's first frame (core.records).
tests/unit/test_config_plain.py holds it to pydantic's answers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from tui_chat.core.model_facts import key_problem
from tui_chat.core.providers import BUILTIN_PROVIDERS, url_problem
from tui_chat.core.records import After, Before, Bounds, Record
from tui_chat.core.secrets import Secret

if TYPE_CHECKING:
    from tui_chat.core.config import Settings

PROXY_SCHEMES = ("http", "https", "socks5", "socks5h")
MIN_READING_WIDTH = 20
"""Narrowest reading width but 0 (narrower, every paragraph is a column of single words)."""


def proxy_value(value: object) -> object:
    """A `proxy` as it is kept (stripped); ValueError when it cannot be one."""
    if value is None or value is False:
        return value
    if isinstance(value, str) and value.strip():
        value = value.strip()
        scheme = value.partition("://")[0].lower() if "://" in value else "http"
        if scheme in PROXY_SCHEMES:
            return value
    raise ValueError("must be a proxy URL (http://, https://, socks5:// or socks5h://, "
                     "e.g. http://proxy:3128), or false for no proxy")


def stripped_key(value: object) -> object:
    """A key pasted with a trailing newline or spaces is still the key (blank: none)."""
    return value.strip() or None if isinstance(value, str) else value


def headers_problem(headers: Mapping[str, str]) -> str | None:
    for name, text in headers.items():
        if not name.isascii() or not name.replace("-", "").isalnum():
            return f"header name {name[:40]!r} is not a valid HTTP header name"
        if any(not 0x20 <= ord(char) <= 0x7E for char in text):
            return (f"the value of header {name!r} holds a character that cannot be sent in "
                    "an HTTP header (only printable ASCII can)")
    return None


def needs_key_problem(needs_key: bool | None, api_key: object, api_key_env: str | None
                      ) -> str | None:
    if needs_key is False and (api_key is not None or api_key_env):
        return ("needs_key = false and an api_key or api_key_env cannot go together: remove "
                "one of them")
    return None


def checked_base_url(value: str | None) -> str | None:
    """A `base_url` as it is kept (no trailing slash); ValueError when it cannot be one."""
    problem = url_problem(value) if value is not None else None
    if problem is not None:
        raise ValueError(problem)
    return value.rstrip("/") if value else value


def reading_width_problem(value: int) -> str | None:
    if 0 < value < MIN_READING_WIDTH:
        return f"must be 0 (the whole width) or at least {MIN_READING_WIDTH} columns"
    return None


def model_keys_problem(models: Mapping[str, object], providers: Mapping[str, object]
                       ) -> str | None:
    """Why a `[models."provider:model"]` key cannot be used, given the sections in
    `providers`, else None."""
    known = list(dict.fromkeys([*BUILTIN_PROVIDERS, *providers]))
    for key in models:
        problem = key_problem(key, known)
        if problem is not None:
            return problem
    return None


def plainly_valid(data: Mapping[str, object]) -> Settings | None:
    """`Settings.model_validate(data)` for a plainly right `data` (see the module's
    docstring), without pydantic; None when pydantic must decide."""
    from tui_chat.core.config import ProviderConfig, Settings, Timeouts
    from tui_chat.core.model_facts import ModelSettings
    from tui_chat.core.models import Parameters

    values = _plain_fields(Settings, data, {
        "parameters": Parameters, "timeouts": Timeouts, "providers": None, "models": None,
        "keys": None, "mcp": None})
    if values is None:
        return None
    if "mcp" in data:
        mcp = _plain_mcp(data["mcp"])
        if mcp is None:
            return None
        values["mcp"] = mcp
    if "reading_width" in values and reading_width_problem(values["reading_width"]):
        return None
    keys = data.get("keys", {})
    if not _is_dict(keys) or not all(
            type(value) is str or (type(value) is list and all(type(v) is str for v in value))
            for value in keys.values()):
        return None
    if "keys" in data:
        values["keys"] = {key: list(value) if type(value) is list else value
                          for key, value in keys.items()}
    sections = data.get("providers", {})
    if not _is_dict(sections):
        return None
    providers = {}
    for name, section in sections.items():
        provider = _plain_provider(ProviderConfig, section)
        if provider is None:
            return None
        providers[name] = provider
    if "providers" in data:
        values["providers"] = providers
    models = data.get("models", {})
    if not _is_dict(models) or model_keys_problem(models, providers):
        return None
    plain_models = {}
    for key, section in models.items():
        fields = _plain_fields(ModelSettings, section)
        if fields is None:
            return None
        plain_models[key] = ModelSettings(**fields)
    if "models" in data:
        values["models"] = plain_models
    return Settings(**values)


def _plain_mcp(data: object) -> Record | None:
    """`[mcp]` and its servers, when every value is plainly right (else None)."""
    from tui_chat.core.mcp.config import McpServerConfig, McpSettings, checked_server_fields

    fields = _plain_fields(McpSettings, data, {"servers": None})
    if fields is None or not isinstance(data, dict):
        return None
    sections = data.get("servers", {})
    if not _is_dict(sections):
        return None
    servers = {}
    for name, section in sections.items():
        server = _plain_fields(McpServerConfig, section, {"approve": None})
        if server is None or not isinstance(section, dict):
            return None
        if "approve" in section:
            if section["approve"] not in ("ask", "read-only", "always"):
                return None
            server["approve"] = section["approve"]
        if not checked_server_fields(server):
            return None
        record = McpServerConfig(**server)
        if record.problem() is not None:
            return None
        servers[name] = record
    if "servers" in data:
        fields["servers"] = servers
    return McpSettings(**fields)


def _plain_provider(model: type[Record], data: object) -> Record | None:
    fields = _plain_fields(model, data, {"api_key": None, "proxy": None})
    if fields is None or not isinstance(data, dict):
        return None
    if "api_key" in data:
        if type(data["api_key"]) is not str:
            return None
        key = stripped_key(data["api_key"])
        fields["api_key"] = Secret(key) if isinstance(key, str) else None
    if "proxy" in data:
        if type(data["proxy"]) is not str and data["proxy"] is not False:
            return None
        try:
            fields["proxy"] = proxy_value(data["proxy"])
        except ValueError:
            return None
    if "headers" in fields and headers_problem(fields["headers"]) is not None:
        return None
    if "base_url" in fields:
        try:
            fields["base_url"] = checked_base_url(fields["base_url"])
        except ValueError:
            return None
    if needs_key_problem(fields.get("needs_key"), fields.get("api_key"),
                         fields.get("api_key_env")) is not None:
        return None
    return model(**fields)


def _is_dict(value: object) -> TypeGuard[dict[str, Any]]:
    return type(value) is dict and all(type(key) is str for key in value)


_PLAIN_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,), "int": (int,), "float": (float, int), "bool": (bool,), "list[str]": (list,),
    "dict[str, str]": (dict,)}


def _plain_fields(model: type[Record], data: object,
                  nested: Mapping[str, type[Record] | None] | None = None
                  ) -> dict[str, Any] | None:
    """The values of `data` for `model`'s fields that are a plain type (str, int, float,
    bool, or one of them or None), each exactly of its type and within the field's bounds;
    the fields in `nested` are left to the caller (a model there: constructed from its own
    plain fields). None when `data` has a key `model` does not, or a value not plainly
    right."""
    if not _is_dict(data):
        return None
    assert isinstance(data, dict)
    fields = model.model_fields
    nested = nested or {}
    values: dict[str, Any] = {}
    for name, value in data.items():
        if name not in fields:
            return None
        if name in nested:
            inner = nested[name]
            if inner is not None:
                plain = _plain_fields(inner, value)
                if plain is None:
                    return None
                values[name] = inner(**plain)
            continue
        kind = _plain_kind(fields[name].annotation)
        if kind is None or type(value) not in _PLAIN_TYPES[kind]:
            return None
        if kind == "list[str]":
            if not all(type(item) is str for item in value):
                return None
            value = list(value)
        elif kind == "dict[str, str]":
            if not _is_dict(value) or not all(type(item) is str for item in value.values()):
                return None
            value = dict(value)
        elif kind == "float":
            if not math.isfinite(value):
                return None
            value = float(value)
        if not _within(fields[name].metadata, value):
            return None
        values[name] = value
    return values


def _plain_kind(annotation: object) -> str | None:
    """The key in _PLAIN_TYPES of a field's type (without its "| None"), else None."""
    import types

    args = annotation.__args__ if isinstance(annotation, types.UnionType) else (annotation,)
    kinds = [arg for arg in args if arg is not type(None)]
    if len(kinds) != 1:
        return None
    kind = kinds[0]
    name = kind.__name__ if isinstance(kind, type) else str(kind)
    return name if name in _PLAIN_TYPES else None


def _within(metadata: list[Any], value: Any) -> bool:
    """Whether `value` keeps every bound in a field's metadata (a value here is finite, so
    `allow_inf_nan=False` holds); False for any other kind of constraint (pydantic then
    decides). A field's own checks (`Before`, `After`) are the ones plainly_valid makes."""
    for bound in metadata:
        if isinstance(bound, Before | After):
            continue
        if not isinstance(bound, Bounds):
            return False
        if ((bound.ge is not None and not value >= bound.ge)
                or (bound.gt is not None and not value > bound.gt)
                or (bound.le is not None and not value <= bound.le)
                or (bound.lt is not None and not value < bound.lt)):
            return False
    return True
