"""Typed errors. Each carries one sentence for the user: what happened and what to do."""

from __future__ import annotations

from enum import IntEnum

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


class TuiChatError(Exception):
    """Base class: `str(error)` is the user-facing sentence, with any API key scrubbed out
    (whatever text went into it: a provider's echo, an exception's repr)."""

    exit_code: ExitCode = ExitCode.FAILURE
    retryable: bool = False

    def __init__(self, message: str) -> None:
        message = scrub(message)
        super().__init__(message)
        self.message = message


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
