"""Turning a provider's failure into a typed error with one sentence for the user."""

from __future__ import annotations

import math
import re
import time
from email.utils import parsedate_to_datetime

from tui_chat.core.errors import (
    AuthenticationError,
    Hint,
    InvalidRequestError,
    ModelNotFoundError,
    ProviderError,
    QuotaError,
    RateLimitError,
    ServerError,
)


def classify_status(
    name: str,
    status: int | None,
    detail: str | None,
    *,
    model: str | None = None,
    key_env: str | None = None,
    during_stream: bool = False,
    retry_after: float | None = None,
    provider: str | None = None,
    keyless: bool = False,
) -> ProviderError:
    """The typed error for an HTTP status (None: an error reported inside the stream). `name`
    is the provider's display name, `provider` its name; a rejected key or an unknown model
    carry a hint, for each front-end to say where to fix it. `keyless`: the provider is set
    to need no key, so a 401 is not a rejected key but a request for one."""
    kept = " What arrived before it is kept." if during_stream else ""
    cls: type[ProviderError]
    hint: Hint | None = None
    if status in (401, 403) and keyless:
        section = f"[providers.{provider}]" if provider else "its section"
        cls, head, advice = AuthenticationError, \
            f"{name} refused a request sent without an API key ({status})", \
            (f"It is set to need none (needs_key = false under {section} in config.toml): "
             "if it takes a key, remove that line and set api_key there.")
    elif status in (401, 403):
        cls, head, advice, hint = AuthenticationError, \
            f"{name} rejected the API key ({status})", "", Hint.KEY
    elif status == 402:
        cls, head, advice = QuotaError, f"{name} says the account has no credit left (402)", \
            "Top up the account or switch provider."
    elif status == 404:
        what = f"the model '{model}'" if model else "that endpoint"
        cls, head, advice = ModelNotFoundError, f"{name} does not know {what} (404)", ""
        hint = Hint.MODEL if model else None
    elif status in (400, 422):
        cls, head, advice = InvalidRequestError, f"{name} rejected the request ({status})", \
            "Check the model and its parameters."
    elif status == 429:
        cls, head, advice = RateLimitError, f"{name} is rate limiting or at capacity (429)", \
            (f"Wait {math.ceil(retry_after)} s (the provider's Retry-After) and try again."
             if retry_after else "Wait a moment and try again.") + kept
    elif status == 503:
        cls, head, advice = ServerError, f"{name} has no instance of the model ready (503)", \
            "It may be starting: try again in a minute." + kept
    elif status is not None and status >= 500:
        cls, head, advice = ServerError, f"{name} had a server error ({status})", \
            "Try again shortly." + kept
    elif status is None:
        cls, head, advice = ServerError, f"{name} reported an error during the reply", \
            "Try again or regenerate." + kept
    else:
        cls, head, advice = ProviderError, f"{name} answered with HTTP {status}", "Try again."
    error = cls(f"{with_detail(head, detail)} {advice}".rstrip(), status=status)
    # A few words for notes and progress lines; a keyless provider's keeps what explains it.
    error.summary = (f"{name} refused a request sent without an API key ({status}, with "
                     "needs_key = false)") if status in (401, 403) and keyless else head
    if hint is not None:
        error.hinted(hint, provider, key_env)
    return error


def with_detail(head: str, detail: str | None) -> str:
    if not detail:
        return head + "."
    detail = re.sub(r"\s+", " ", detail).strip()
    if len(detail) > 300:
        detail = detail[:297] + "…"
    return f"{head}: {detail.rstrip('.')}."


def retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def describe(error: Exception) -> str:
    text = str(error).strip()
    return text or type(error).__name__


def preview(text: str) -> str:
    text = re.sub(r"\s+", " ", text)
    return repr(text[:60] + ("…" if len(text) > 60 else ""))
