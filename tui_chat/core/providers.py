"""Providers are data: a record per OpenAI-compatible endpoint, built-in or from config.toml.

Frozen msgspec Structs, not records: they are made only by tui-chat itself (the built-ins
here, the rest from a `[providers.NAME]` section that `core.config` has validated), so there
is nothing to validate. A Struct rather than a dataclass, as every value class on the app's
start-up path: its class is made in C, where a dataclass compiles generated methods (about
3 M instructions a class, a tenth of the first frame's over a bare Textual app for tui-chat's
fifty; benchmarks/instruction_phases.py --kinds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from msgspec import Struct, field

from tui_chat.core import dialect as dialects
from tui_chat.core.dialect import Dialect

if TYPE_CHECKING:
    from tui_chat.core.secrets import Secret


class ProviderSpec(Struct, frozen=True, kw_only=True):
    """What tui-chat knows about a provider before any key or override is applied."""

    name: str
    display_name: str
    base_url: str
    api_key_env: str | None = None
    needs_key: bool = True
    """False for a server that takes no key (a local one): no key is looked for or sent."""
    base_url_env: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    models: tuple[str, ...] = ()
    default_model: str | None = None
    # Quirks: is `stream_options: {include_usage: true}` accepted? Is there GET /models?
    supports_stream_options: bool = True
    has_models_endpoint: bool = True
    continue_final_message: bool = False
    """Whether the server continues a final assistant message when asked
    (`continue_final_message`, vLLM and SGLang; core.continuation)."""
    dialect: Dialect = dialects.OPENAI_COMPATIBLE
    """How its streamed chunks depart from OpenAI's (core.dialect)."""
    # The way there (tui_chat.core.transport): a proxy URL, or False for none (None: the
    # environment decides); a CA file to trust; verify=False turns certificate checks off.
    proxy: str | Literal[False] | None = None
    ca_file: str | None = None
    verify: bool = True
    e2ee: str = "off"
    """End-to-end encryption (tui_chat.core.e2ee): "off", "auto" or "required"."""


CHUTES = ProviderSpec(
    name="chutes",
    display_name="Chutes",
    base_url="https://llm.chutes.ai/v1",
    api_key_env="CHUTES_API_KEY",
    base_url_env="CHUTES_BASE_URL",
    models=(
        "deepseek-ai/DeepSeek-V3-0324",
        "deepseek-ai/DeepSeek-R1",
        "Qwen/Qwen3-235B-A22B",
        "chutesai/Mistral-Small-3.1-24B-Instruct-2503",
    ),
    default_model="deepseek-ai/DeepSeek-V3-0324",
    # Its API description sends usage on the final chunk "when usage reporting is enabled":
    # asked for; a refusal (400 or 422) is retried at once without it and remembered.
    supports_stream_options=True,
    # Not in its API description; its vLLM and SGLang chutes pass the body to the engine,
    # which takes it (core.continuation).
    continue_final_message=True,
    dialect=dialects.CHUTES,
)

SUTRA = ProviderSpec(
    name="sutra",
    display_name="SUTRA",
    base_url="https://api.two.ai/v2",
    api_key_env="SUTRA_API_KEY",
    base_url_env="SUTRA_BASE_URL",
    models=("sutra-v2", "sutra-r0"),
    default_model="sutra-v2",
    # Its documentation does not say whether it reports usage: asked for, since a refusal
    # (400 or 422) is retried at once without it and remembered (tui_chat.core.client).
    supports_stream_options=True,
    has_models_endpoint=False,
    dialect=dialects.SUTRA,
)

BUILTIN_PROVIDERS: dict[str, ProviderSpec] = {p.name: p for p in (CHUTES, SUTRA)}


class Provider(Struct, frozen=True, kw_only=True):
    """A provider ready to use: spec, effective base URL, and its key (never printed)."""

    spec: ProviderSpec
    base_url: str
    api_key: Secret | None = None
    key_source: str | None = None  # "environment" | "config" | None
    key_error: str | None = None
    """Why the key found cannot be sent (it is then not kept): one sentence naming where it came
    from, never quoting it."""
    url_error: str | None = None
    """Why the base URL cannot be used: one sentence naming the setting."""

    @property
    def problem(self) -> str | None:
        """Why this provider cannot be used as configured, else None."""
        return self.url_error or self.key_error

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def ready(self) -> bool:
        """Whether it has what a request needs: a key, or no need of one."""
        return self.api_key is not None or not self.spec.needs_key

    @property
    def display_name(self) -> str:
        return self.spec.display_name

    @property
    def default_model(self) -> str | None:
        return self.spec.default_model or (self.spec.models[0] if self.spec.models else None)


def url_problem(url: str) -> str | None:
    """Why `url` cannot be a base URL (no scheme, no host, a bad port), else None."""
    from urllib.parse import urlsplit

    if not url.startswith(("http://", "https://")):
        return "must start with http:// or https://"
    if any(char.isspace() or ord(char) < 0x20 or ord(char) == 0x7F for char in url):
        return "contains a space or a control character"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        return f"is not a valid URL ({str(error).rstrip('.').lower()})"
    if not parts.hostname:
        return "has no host name"
    if port == 0:
        return "has port 0"
    return None


def mask_key(key: str | None) -> str:
    """A key as it may be shown: its first 4 characters at most, never its tail."""
    if not key:
        return "(not set)"
    return f"{key[:4]}…" if len(key) > 12 else "…"
