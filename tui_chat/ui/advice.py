"""What the app adds to a core error: the advice that fits someone in the app (its keys and
screens), where the command line names flags and config.toml."""

from __future__ import annotations

from tui_chat.core.errors import Hint, MissingKeyError, ModelNotFoundError, TuiChatError
from tui_chat.core.secrets import scrub
from tui_chat.core.text import sanitize


def advice(error: TuiChatError) -> str:
    """The app's advice for `error`, or "" when its sentence says it already."""
    variable = error.key_env
    if error.hint is Hint.KEY:
        if isinstance(error, MissingKeyError):
            return ("Press F3 (Settings) and paste a key"
                    + (f", or set {variable} before starting tui-chat." if variable else "."))
        return ("Check the key in Settings (F3)"
                + (f", or {variable}, which wins over it." if variable else "."))
    if error.hint is Hint.MODEL:
        return ("Press F2 to pick another model." if isinstance(error, ModelNotFoundError)
                else "Press F2 to pick one.")
    if error.hint is Hint.TIMEOUT:
        return "Try again, or raise the read timeout in Settings (F3)."
    if error.hint is Hint.CONTEXT:
        return "Press F2 to pick a model with a larger window, or Ctrl+N for a new conversation."
    return ""


def sentence(error: TuiChatError) -> str:
    """What the app shows for `error`: its facts, then the advice; never a key."""
    text = error.message
    extra = advice(error)
    if extra:
        text = f"{text.rstrip()} {extra}"
    return sanitize(scrub(text))
