"""What the app adds to a core error: the advice that fits someone in the app (its keys and
screens), where the command line names flags and config.toml."""

from __future__ import annotations

from tui_chat.core.errors import Hint, MissingKeyError, ModelNotFoundError, TuiChatError
from tui_chat.core.secrets import scrub
from tui_chat.core.text import sanitize
from tui_chat.ui.key_hints import hint_key


def advice(error: TuiChatError) -> str:
    """The app's advice for `error`, or "" when its sentence says it already."""
    variable = error.key_env
    settings, model = hint_key("app.settings", "F3"), hint_key("conversation.model", "F2")
    if error.hint is Hint.KEY:
        if isinstance(error, MissingKeyError):
            return (f"Press {settings} (Settings) and paste a key"
                    + (f", or set {variable} before starting tui-chat." if variable else "."))
        return (f"Check the key in Settings ({settings})"
                + (f", or {variable}, which wins over it." if variable else "."))
    if error.hint is Hint.MODEL:
        return (f"Press {model} to pick another model." if isinstance(error, ModelNotFoundError)
                else f"Press {model} to pick one.")
    if error.hint is Hint.TIMEOUT:
        return f"Try again, or raise the read timeout in Settings ({settings})."
    if error.hint is Hint.CONTEXT:
        return (f"Press {model} to pick a model with a larger window, or "
                f"{hint_key('conversation.new', 'Ctrl+N')} for a new conversation.")
    return ""


def sentence(error: TuiChatError) -> str:
    """What the app shows for `error`: its facts, then the advice; never a key."""
    text = error.message
    extra = advice(error)
    if extra:
        text = f"{text.rstrip()} {extra}"
    return sanitize(scrub(text))
