"""Typed errors. Each carries one sentence for the user: what happened and what to do."""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Self

from tui_chat.core.secrets import scrub


class ExitCode(IntEnum):
    """Exit codes of the command line; documented in the README."""

    OK = 0
    FAILURE = 1
    USAGE = 2
    AUTH = 3
    RATE_LIMIT = 4
    NETWORK = 5
    INTERRUPTED = 6
    REQUEST = 7
    STORE = 8
    BROKEN_PIPE = 141
    """128 + SIGPIPE: what a shell reports for any tool whose reader went away (`| head`)."""


class Hint(StrEnum):
    """What a user can do about an error, for each front-end to word in its own terms (the
    command line names flags and config.toml, the app its keys and screens)."""

    KEY = "key"
    """The provider's key is missing or was rejected."""
    MODEL = "model"
    """No model is chosen, or the provider does not know it."""
    TIMEOUT = "timeout"
    """The stream stalled for longer than the read timeout."""
    CONTEXT = "context"
    """The request would not fit the model's window."""


class TuiChatError(Exception):
    """Base class: `str(error)` is the user-facing sentence of facts (what happened, which
    provider, which setting), with any API key scrubbed out (whatever text went into it: a
    provider's echo, an exception's repr). Advice that depends on the front-end is not in it:
    `hint` says which kind applies, and the front-end adds its own words."""

    exit_code: ExitCode = ExitCode.FAILURE
    retryable: bool = False
    hint: Hint | None = None
    provider: str | None = None
    """The provider's name (as in -p NAME and [providers.NAME]), when one is concerned."""
    key_env: str | None = None
    """The environment variable of that provider's key, if it has one."""

    def __init__(self, message: str) -> None:
        message = scrub(message)
        super().__init__(message)
        self.message = message

    def hinted(self, hint: Hint, provider: str | None = None,
               key_env: str | None = None) -> Self:
        """This error, saying what kind of advice fits it."""
        self.hint, self.provider, self.key_env = hint, provider, key_env
        return self


class ConfigError(TuiChatError):
    exit_code = ExitCode.USAGE


class UnknownProviderError(TuiChatError):
    exit_code = ExitCode.USAGE


class MissingKeyError(TuiChatError):
    exit_code = ExitCode.AUTH


class InvalidKeyError(MissingKeyError):
    """A key that cannot be sent (a character not allowed in an HTTP header): refused."""


class InvalidURLError(ConfigError):
    """A base URL that cannot be used (bad port, no host): named with the setting it came from."""


class ProviderError(TuiChatError):
    """The provider (or the way to it) failed a request."""

    def __init__(self, message: str, *, status: int | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        # A few words for progress lines ("Chutes is rate limiting (429)"), without advice.
        self.summary = self.message.split(";")[0].rstrip(".")


class AuthenticationError(ProviderError):
    exit_code = ExitCode.AUTH


class QuotaError(ProviderError):
    exit_code = ExitCode.RATE_LIMIT


class ModelNotFoundError(ProviderError):
    exit_code = ExitCode.REQUEST


class InvalidRequestError(ProviderError):
    exit_code = ExitCode.REQUEST


class RateLimitError(ProviderError):
    exit_code = ExitCode.RATE_LIMIT
    retryable = True


class ServerError(ProviderError):
    exit_code = ExitCode.NETWORK
    retryable = True


class StreamTimeoutError(ProviderError):
    exit_code = ExitCode.NETWORK


class ConnectionFailedError(ProviderError):
    exit_code = ExitCode.NETWORK
    retryable = True


class CertificateError(ConnectionFailedError):
    """The server's TLS certificate failed the check: retrying cannot help, a setting can."""

    retryable = False


class ProxyRefusedError(ConnectionFailedError):
    """The proxy refused the request (407: it wants credentials; 403: not allowed)."""

    retryable = False


class RedirectError(ProviderError):
    """The provider answered with a redirect; it is not followed (the key stays home)."""

    exit_code = ExitCode.NETWORK


class ProtocolError(ProviderError):
    """The body was not a valid event stream, or an event was not a valid chunk."""

    exit_code = ExitCode.INTERRUPTED


class StreamInterruptedError(ProviderError):
    """The body ended before `[DONE]` or a finish_reason; what arrived so far is kept."""

    exit_code = ExitCode.INTERRUPTED


class StoreError(TuiChatError):
    exit_code = ExitCode.STORE


class UsageError(TuiChatError):
    """The command line or a request was not usable as given."""

    exit_code = ExitCode.USAGE


def unexpected_error_sentence(error: BaseException, action: str = "stopped the reply") -> str:
    """For a bug: what happened in words, the exception's type only (its text may hold
    anything, a key included), and what to do."""
    return (f"An unexpected error ({type(error).__name__}) {action}; what was received so far "
            "is kept. This is a bug: please report it.")
