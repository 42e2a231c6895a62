"""What the command line adds to a core error: the advice that fits a shell user (flags,
environment variables, config.toml), where the app points at its own keys and screens."""

from __future__ import annotations

from tui_chat.core.errors import Hint, MissingKeyError, ModelNotFoundError, TuiChatError
from tui_chat.core.secrets import scrub
from tui_chat.core.text import sanitize


def advice(error: TuiChatError) -> str:
    """The command line's advice for `error`, or "" when its sentence says it already."""
    name = error.provider
    section = f"[providers.{name}]" if name else "its [providers.NAME] section"
    if error.hint is Hint.KEY:
        where = f"{error.key_env} or api_key under {section}" if error.key_env else \
            f"api_key under {section}"
        verb = "Set" if isinstance(error, MissingKeyError) else "Check"
        return f"{verb} {where} in config.toml."
    if error.hint is Hint.MODEL:
        if isinstance(error, ModelNotFoundError):
            return f"List its models with: tui-chat models -p {name}." if name else ""
        return f"Pass -m MODEL, or set default_model under {section} in config.toml."
    if error.hint is Hint.TIMEOUT:
        return "Try again, or raise the timeout with --timeout."
    if error.hint is Hint.CONTEXT:
        return "Start a new conversation, or pass -m with a model that has a larger window."
    return ""


def sentence(error: TuiChatError) -> str:
    """The one line a user sees for `error`: its facts, then the advice; never a key."""
    text = error.message
    extra = advice(error)
    if extra:
        text = f"{text.rstrip()} {extra}"
    return sanitize(scrub(text))
