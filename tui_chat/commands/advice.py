"""What the command line adds to a core error: the advice that fits a shell user (flags,
config.toml), where the app would point at its own keys and screens."""

from __future__ import annotations

from tui_chat.core.errors import TuiChatError
from tui_chat.core.secrets import scrub
from tui_chat.core.text import sanitize
from tui_chat.core.workspace import NoModelError


def advice(error: TuiChatError) -> str:
    """The command line's advice for `error`, or "" when its sentence says it already."""
    if isinstance(error, NoModelError):
        provider = error.provider
        return (f"Pass -m MODEL, or set default_model under [providers.{provider.name}] in "
                "config.toml.")
    return ""


def sentence(error: TuiChatError) -> str:
    """The one line a user sees for `error`: its facts, then the advice; never a key."""
    text = error.message
    extra = advice(error)
    if extra:
        text = f"{text.rstrip()} {extra}"
    return sanitize(scrub(text))
