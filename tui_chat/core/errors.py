"""Typed errors. Each carries one sentence for the user: what happened and what to do."""

from __future__ import annotations

from enum import IntEnum


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
    """Base class: `str(error)` is the user-facing sentence."""

    exit_code: ExitCode = ExitCode.FAILURE
    retryable: bool = False

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigError(TuiChatError):
    exit_code = ExitCode.USAGE


class UnknownProviderError(TuiChatError):
    exit_code = ExitCode.USAGE


class MissingKeyError(TuiChatError):
    exit_code = ExitCode.AUTH


class ProviderError(TuiChatError):
    """The provider (or the way to it) failed a request."""

    def __init__(self, message: str, *, status: int | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        # A few words for progress lines ("Chutes is rate limiting (429)"), without advice.
        self.summary = message.split(";")[0].rstrip(".")


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
