"""API keys: checked where they are read, and scrubbed from every text a user or a file sees.

Two lines of defence:
- `key_problem(key)` says (without quoting it) why a key cannot go in an HTTP header: a
  non-ASCII letter, a line break, a space or another control character. Config resolution
  refuses such a key with one sentence naming where it came from, so it is never sent.
- `scrub(text)` removes every key this process has read (`remember`), in the forms an error
  message may quote it (as is, repr-escaped, line by line), and anything shaped like a bearer
  token or a provider key, whatever bug put it there. Errors (`TuiChatError`), the store's error
  column, notifications, stderr and crash logs all pass through it.
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema
    from pydantic_core.core_schema import SerializationInfo

KEY_HIDDEN = "[key hidden]"
_MIN_SECRET = 8
"""Shorter strings are not scrubbed by value: they would match ordinary words."""
_MIN_FRAGMENT = 6

_known: set[str] = set()
_pattern: re.Pattern[str] | None = None
_lock = threading.Lock()

_CHUTES_KEY = r"\bcpk_[A-Za-z0-9._\-]{6,}"
_KEYS = re.compile(_CHUTES_KEY)

# Shapes of credentials whatever their value: "Bearer <token>", "Authorization: <anything>",
# Chutes keys (cpk_…), OpenAI-style keys (sk-…). `label` is kept, for readability; a bearer
# token is 8 characters or more ("bearer of good news" is not one).
_SHAPES = re.compile(
    r"(?P<label>(?i:\bbearer\s+))(?!\[key hidden\])[^\s'\"\\,;)\]}]{8,}"
    r"|(?P<header>(?i:\bauthorization\s*[:=]\s*))(?!\[key hidden\])[^\n'\"]+"
    rf"|{_CHUTES_KEY}"
    r"|\bsk-[A-Za-z0-9_\-]{16,}"
)


def key_problem(key: str) -> str | None:
    """Why `key` cannot be sent in an HTTP header, in words that never quote it; else None."""
    for position, char in enumerate(key, start=1):
        code = ord(char)
        if 0x21 <= code <= 0x7E:
            continue
        if char in "\r\n":
            what = "a line break"
        elif char in " \t":
            what = "a space"
        elif code < 0x20 or 0x7F <= code < 0xA0:
            what = "a control character"
        else:
            what = "a non-ASCII character"
        return (f"contains {what} (character {position} of {len(key)}), which cannot be "
                "sent in an HTTP header")
    return None


def remember(key: str | None) -> None:
    """Scrub `key` from every text from now on (long enough keys only)."""
    global _pattern
    if not key or len(key.strip()) < _MIN_SECRET:
        return
    with _lock:
        forms = _forms(key) - _known
        if forms:
            _known.update(forms)
            alternatives = sorted(_known, key=len, reverse=True)
            _pattern = re.compile("|".join(re.escape(form) for form in alternatives))


def _forms(key: str) -> set[str]:
    """The ways an error message may quote a key: as is, trimmed, repr- or byte-escaped,
    and each line of a key that holds line breaks."""
    stripped = key.strip()
    forms = {key, stripped, repr(stripped)[1:-1], ascii(stripped)[1:-1],
             str(stripped.encode("utf-8", "backslashreplace"))[2:-1]}
    forms.update(part for part in re.split(r"[\r\n\t ]+", stripped)
                 if len(part) >= _MIN_FRAGMENT)
    return {form for form in forms if len(form) >= _MIN_FRAGMENT}


def scrub(text: str) -> str:
    """`text` with every remembered key and every credential-shaped token hidden."""
    pattern = _pattern
    if pattern is not None:
        text = pattern.sub(KEY_HIDDEN, text)
    return _SHAPES.sub(_hide_shape, text)


def scrub_keys(text: str) -> str:
    """`text` with every remembered key and every Chutes key (`cpk_…`) hidden, and nothing
    else: for what a user or a model wrote, where "Bearer …" or "sk-…" may well be an
    example in a question about HTTP (the store's migration to schema 6 uses it)."""
    pattern = _pattern
    if pattern is not None:
        text = pattern.sub(KEY_HIDDEN, text)
    return _KEYS.sub(KEY_HIDDEN, text)


def _hide_shape(match: re.Match[str]) -> str:
    return (match.group("label") or match.group("header") or "") + KEY_HIDDEN


class Secret:
    """A key that shows as asterisks in reprs, str() and JSON dumps (pydantic's SecretStr,
    which the config records cannot use: they import no pydantic, see core.records)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"Secret('{self}')"

    def __str__(self) -> str:
        return "**********" if self._value else ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __len__(self) -> int:
        return len(self._value)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler
                                     ) -> CoreSchema:
        """A string (or a Secret) in; a Secret out; asterisks in a JSON dump."""
        from pydantic_core import core_schema

        def unwrapped(value: object) -> object:
            return value._value if isinstance(value, Secret) else value

        def dumped(value: Secret, info: SerializationInfo) -> Secret | str:
            return str(value) if info.mode == "json" else value

        return core_schema.no_info_before_validator_function(
            unwrapped, core_schema.no_info_after_validator_function(cls, core_schema.str_schema()),
            serialization=core_schema.plain_serializer_function_ser_schema(dumped,
                                                                            info_arg=True))
