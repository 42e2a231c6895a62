"""config.toml: load, validate, resolve providers, and save atomically with mode 0600.

Precedence for a provider's key: its environment variable, then `api_key` in the file.
Precedence for a built-in base URL: CHUTES_BASE_URL / SUTRA_BASE_URL, then the file, then built-in.

Saving keeps the user's file: the file is read with tomlkit (a round-trip TOML library) and
only the settings that changed are written into it, so comments, key order and keys the
caller did not change survive; a config.toml that is a symbolic link is written through to its
target (see `tui_chat.core.files`).
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

import msgspec

from tui_chat.core import secrets
from tui_chat.core.config_checks import MIN_READING_WIDTH as MIN_READING_WIDTH
from tui_chat.core.config_checks import PROXY_SCHEMES as PROXY_SCHEMES
from tui_chat.core.config_checks import (
    checked_base_url,
    headers_problem,
    model_keys_problem,
    needs_key_problem,
    plainly_valid,
    proxy_value,
    reading_width_problem,
    stripped_key,
)
from tui_chat.core.errors import (
    ConfigError,
    Hint,
    InvalidKeyError,
    InvalidURLError,
    MissingKeyError,
    TuiChatError,
    UnknownProviderError,
)
from tui_chat.core.files import (
    FileTooLargeError,
    NotAFileError,
    read_bounded,
    real_path,
)

# move_aside and write_private_file lived here: callers still import them from here.
from tui_chat.core.files import move_aside as move_aside
from tui_chat.core.files import write_private_file as write_private_file
from tui_chat.core.mcp.config import McpSettings
from tui_chat.core.model_facts import ModelSettings
from tui_chat.core.models import Parameters
from tui_chat.core.providers import BUILTIN_PROVIDERS, Provider, ProviderSpec, url_problem
from tui_chat.core.records import After, Before, Bounds, Record
from tui_chat.core.secrets import Secret

if TYPE_CHECKING:
    from tomlkit import TOMLDocument

MAX_CONFIG_BYTES = 1024 * 1024
"""The most a config file may be: settings, not data (a bigger one is refused, unread)."""


def _checked_headers(value: dict[str, str] | None) -> dict[str, str] | None:
    problem = headers_problem(value or {})
    if problem is not None:
        raise ValueError(problem)
    return value


class ProviderConfig(Record):
    """A provider's section, `[providers.NAME]`: overrides a built-in or declares a new one.
    A record (`core.records`): `model_validate` checks a section read from the file."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    api_key: Annotated[Secret | None, Before(stripped_key)] = None
    """The key, when it is not in the provider's environment variable."""
    base_url: Annotated[str | None, After(checked_base_url)] = None
    """OpenAI-compatible base URL, ending before /chat/completions."""
    display_name: str | None = None
    api_key_env: str | None = None
    """Environment variable that holds the key (new providers)."""
    needs_key: bool | None = None
    """`false` for a server that takes no key (a local one): requests go without an
    Authorization header, and no key is asked for."""
    headers: Annotated[dict[str, str] | None, After(_checked_headers)] = None
    models: list[str] | None = None
    """Known models, used when the provider has no /models endpoint."""
    default_model: str | None = None
    supports_stream_options: bool | None = None
    has_models_endpoint: bool | None = None
    continue_final_message: bool | None = None
    """`true`: the server continues a final assistant message (vLLM, SGLang), so a reply can
    be continued where it ends."""
    proxy: Annotated[str | Literal[False] | None, Before(proxy_value)] = None
    """`"http://host:port"` (or https://, socks5://): wins over HTTPS_PROXY and the like;
    `false`: no proxy for this provider, whatever the environment says."""
    ca_file: str | None = None
    """A PEM file of the certificate authorities to trust for this provider (a private CA);
    it replaces the default set, as SSL_CERT_FILE does."""
    verify: bool | None = None
    """`false` turns certificate checks off for this provider; tui-chat warns every time."""
    e2ee: Literal["off", "auto", "required"] | None = None
    """End-to-end encryption to the model's instance (Chutes, tui_chat.core.e2ee): "auto"
    where the model's chute supports it, "required": never a prompt in plain text."""

    def problem(self) -> str | None:
        return needs_key_problem(self.needs_key, self.api_key, self.api_key_env)


class Timeouts(Record):
    """`[timeouts]`: how long to wait for a provider, in seconds."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    connect: Annotated[float, Bounds(gt=0)] = 10.0
    """Seconds to open a connection."""
    first_byte: Annotated[float, Bounds(gt=0)] = 600.0
    """Seconds to wait for the response to start: Chutes holds it back while a model cold-starts."""
    read: Annotated[float, Bounds(gt=0)] = 60.0
    """Largest gap, in seconds, between two events of a stream before it counts as stalled."""


def _checked_reading_width(value: int) -> int:
    problem = reading_width_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def _checked_model_keys(value: dict[str, ModelSettings], data: Mapping[str, Any]
                        ) -> dict[str, ModelSettings]:
    problem = model_keys_problem(value, data.get("providers", {}))
    if problem is not None:
        raise ValueError(problem)
    return value


class Settings(Record):
    """Everything in config.toml. Every field is optional in the file.

    A record (`core.records`): a file is read with `model_validate` (or `plainly_valid`);
    with no file the app starts on `defaults()`, which there is nothing to check in."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    default_provider: str = "chutes"
    default_model: str | None = None
    system_prompt: str | None = None
    theme: str = "tui-chat-dusk"
    reading_width: Annotated[int, Bounds(ge=0, le=1000), After(_checked_reading_width)] = 100
    """Widest line of message text, in columns, on a wide terminal; 0: the whole width.
    Tables and code blocks may be wider (up to the whole width)."""
    parameters: Parameters = field(default_factory=Parameters)
    timeouts: Timeouts = field(default_factory=Timeouts)
    max_retries: Annotated[int, Bounds(ge=0, le=10)] = 3
    providers: dict[str, ProviderConfig] = field(default_factory=dict)
    keys: dict[str, str | list[str]] = field(default_factory=dict)
    """`[keys]`: binding id -> one key, or several (the README lists the ids)."""
    models: Annotated[dict[str, ModelSettings], After(_checked_model_keys, with_data=True)] = (
        field(default_factory=dict))
    """`[models."provider:model-id"]`: a model's window, prices and whether it reads images,
    over what its provider lists (see `tui_chat.core.model_facts`)."""
    mcp: McpSettings = field(default_factory=McpSettings)
    """`[mcp]`: tool servers (see `tui_chat.core.mcp.config`)."""

    def model_settings(self, provider: str, model: str) -> ModelSettings | None:
        """The user's own settings for `model` of `provider`, if any."""
        return self.models.get(f"{provider}:{model}")

    def provider_names(self) -> list[str]:
        return list(dict.fromkeys([*BUILTIN_PROVIDERS, *self.providers]))

    def declared_providers(self) -> list[str]:
        """The providers that can be used: the built-ins and those config.toml gives a base
        URL."""
        return list(dict.fromkeys([*BUILTIN_PROVIDERS, *(
            name for name, section in self.providers.items() if section.base_url)]))

    def provider_labels(self) -> dict[str, str]:
        """Each provider's name as shown ("Chutes", or a section's `display_name`), by name."""
        labels = {name: spec.display_name for name, spec in BUILTIN_PROVIDERS.items()}
        for name, section in self.providers.items():
            labels[name] = section.display_name or labels.get(name, name)
        return labels

    def resolve_provider(self, name: str, env: Mapping[str, str] | None = None) -> Provider:
        """The provider `name` with overrides applied. Raises UnknownProviderError."""
        env = os.environ if env is None else env
        spec = _merged_spec(name, self.providers.get(name), self.declared_providers())
        base_url, url_error = spec.base_url, None
        if spec.base_url_env and env.get(spec.base_url_env, "").strip():
            base_url = env[spec.base_url_env].strip().rstrip("/")
            wrong = url_problem(base_url)
            if wrong is not None:
                url_error = (f"The base URL for {spec.display_name} in {spec.base_url_env} "
                             f"{wrong}; set it to a URL such as {spec.base_url}.")
        key, source, key_error = _find_key(spec, self.providers.get(name), env)
        return Provider(spec=spec, base_url=base_url, api_key=key, key_source=source,
                        key_error=key_error, url_error=url_error)

    def configured_keys(self, env: Mapping[str, str] | None = None) -> list[str]:
        """The key of each provider that can be used, as config.toml and `env` give them
        (the store scrubs them from an old store's texts when it migrates)."""
        keys: list[str] = []
        for name in self.declared_providers():
            try:
                key = self.resolve_provider(name, env).api_key
            except TuiChatError:  # a section that cannot be used has no key to give
                continue
            if key is not None:
                keys.append(key.get_secret_value())
        return keys

    def require_key(self, provider: Provider) -> str | None:
        """The provider's key, ready to send; None for one that needs no key (MissingKeyError
        when it has none, InvalidKeyError or InvalidURLError when it is configured in a way
        that cannot work)."""
        if provider.url_error is not None:
            raise InvalidURLError(provider.url_error)
        if not provider.spec.needs_key:
            return None
        if provider.key_error is not None:
            raise InvalidKeyError(provider.key_error)
        if provider.api_key is None:
            raise MissingKeyError(f"No API key is set for {provider.display_name}.").hinted(
                Hint.KEY, provider.name, provider.spec.api_key_env)
        return provider.api_key.get_secret_value()


def _merged_spec(name: str, override: ProviderConfig | None,
                 declared: Sequence[str]) -> ProviderSpec:
    base = BUILTIN_PROVIDERS.get(name)
    if base is None:
        if override is None or override.base_url is None:
            known = ", ".join(declared)
            raise UnknownProviderError(
                f"Unknown provider '{name}': use one of {known}, or declare it with a base_url "
                f"under [providers.{name}] in config.toml."
            )
        base = ProviderSpec(name=name, display_name=name, base_url=override.base_url)
    if override is None:
        return base
    # Read field by field, not with model_dump: that would import pydantic to build the
    # section's serializer before the app's first frame.
    changes: dict[str, Any] = {
        item.name: getattr(override, item.name) for item in dataclasses.fields(override)
        if item.name != "api_key" and getattr(override, item.name) is not None
    }
    if "headers" in changes:
        changes["headers"] = dict(changes["headers"])
    if "models" in changes:
        changes["models"] = tuple(changes["models"])
    return msgspec.structs.replace(base, **changes)


def _find_key(
    spec: ProviderSpec, override: ProviderConfig | None, env: Mapping[str, str]
) -> tuple[Secret | None, str | None, str | None]:
    """(key, where it came from, why it cannot be used). A key that cannot be sent is not
    returned (the environment's does not fall back to the file's: the user meant it)."""
    value, source, where = None, None, ""
    if not spec.needs_key:
        return None, None, None
    if spec.api_key_env and env.get(spec.api_key_env, "").strip():
        value, source, where = env[spec.api_key_env].strip(), "environment", spec.api_key_env
    elif override is not None and override.api_key is not None:
        value, source = override.api_key.get_secret_value(), "config"
        where = f"api_key under [providers.{spec.name}] in config.toml"
    if value is None:
        return None, None, None
    secrets.remember(value)
    problem = secrets.key_problem(value)
    if problem is not None:
        return None, source, (f"The API key for {spec.display_name} in {where} {problem}; "
                              "copy the key again from the provider's site.")
    return Secret(value), source, None


def defaults() -> Settings:
    """The settings of a missing config file."""
    return Settings()


def load_settings(path: Path) -> Settings:
    """Read and validate `path`; a missing file is the defaults. Raises ConfigError."""
    try:
        raw = read_bounded(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return defaults()
    except FileTooLargeError:
        raise ConfigError(
            f"The config file {path} is larger than the {MAX_CONFIG_BYTES // 1024} KiB a "
            "config file may be; fix it or move it away."
        ) from None
    except NotAFileError as error:
        raise ConfigError(
            f"Cannot read the config file {path}: {error.strerror}; move it away."
        ) from None
    except OSError as error:
        raise ConfigError(
            f"Cannot read the config file {path}: {error.strerror}; fix its permissions."
        ) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except ValueError as error:  # TOMLDecodeError, UnicodeDecodeError, an int too long
        raise ConfigError(
            f"The config file {path} is not valid TOML ({error}); fix it or move it away."
        ) from None
    except RecursionError:
        raise ConfigError(
            f"The config file {path} is nested too deeply to read; fix it or move it away."
        ) from None
    plain = plainly_valid(data)
    if plain is not None:
        return plain
    from pydantic import ValidationError

    from tui_chat.core.validation import first_problem

    try:
        return Settings.model_validate(data)
    except ValidationError as error:
        key, problem = first_problem(error, Settings)
        raise ConfigError(
            f"The config file {path} has a problem at '{key}': {problem}; fix it or remove it."
        ) from None


def load_settings_or_defaults(path: Path) -> tuple[Settings, str | None]:
    """For the app, which must start anyway: the settings in `path`, or the defaults and the
    sentence to show when the file cannot be used (the file itself is left alone)."""
    try:
        return load_settings(path), None
    except ConfigError as error:
        return defaults(), (f"{error.message.rstrip('.')} (tui-chat uses the default settings "
                            "until then; saving Settings moves the file aside first).")


def save_settings(settings: Settings, path: Path, *, base: Settings | None = None
                  ) -> Path | None:
    """Write `settings` into the config file atomically, mode 0600 (it may hold keys).

    Only what differs between `base` (default: what the file holds now) and `settings` is
    written; everything else in the file (comments, order, other keys) is kept as it was. A
    symbolic link is written through to its target. A file already there that cannot be read
    as settings (not TOML, invalid, a folder) is the user's: it is moved aside first, never
    overwritten; returns where it went (else None). Raises OSError."""
    import tomlkit  # only a save needs it: not on the app's start-up path

    target = real_path(path)
    moved = None
    try:
        current = _read_document(target)
    except ConfigError:
        moved = move_aside(target)
        current = None
    if current is None:
        document, before = tomlkit.document(), Settings()
    else:
        document, before = current
    _apply_changes(document, _plain(base or before), _plain(settings))
    write_private_file(target, tomlkit.dumps(document))
    return moved


def _read_document(path: Path) -> tuple[TOMLDocument, Settings] | None:
    """The file as a tomlkit document and as settings; None when there is none. Raises
    ConfigError when it cannot be used."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    if not path.exists() and not path.is_dir():
        return None
    settings = load_settings(path)
    try:
        return tomlkit.parse(read_bounded(path, MAX_CONFIG_BYTES).decode("utf-8")), settings
    except (TOMLKitError, OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"The config file {path} cannot be kept as it is ({error}).") from None


def _plain(settings: Settings) -> dict[str, Any]:
    """The settings as TOML-ready data, keys included (mode="json" would mask them)."""
    data = settings.model_dump(mode="json", exclude_none=True)
    for name, section in settings.providers.items():
        if section.api_key is not None:
            data["providers"][name]["api_key"] = section.api_key.get_secret_value()
    return data


def _apply_changes(table: MutableMapping[str, Any], before: Mapping[str, Any],
                   after: Mapping[str, Any]) -> None:
    """Make `table` hold `after`, touching only the keys whose value differs from `before`."""
    for key, value in after.items():
        previous = before.get(key)
        child = table.get(key)
        if isinstance(value, dict) and isinstance(child, MutableMapping):
            _apply_changes(child, previous if isinstance(previous, dict) else {}, value)
        elif value == {} and previous is None:
            continue  # an empty section (a provider with nothing set) is not worth a table
        elif value != previous:
            table[key] = value
    for key in before.keys() - after.keys():
        if key in table:
            del table[key]
