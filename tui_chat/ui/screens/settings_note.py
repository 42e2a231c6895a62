"""What saving Settings did, in a few short sentences for the conversation screen."""

from __future__ import annotations

from tui_chat.core.workspace import SettingsChange

APPLY_HERE = "Apply Settings to this conversation"
AT_ONCE = frozenset({"theme", "reading width"})
"""Settings that change what is on screen, not requests."""


def settings_sentence(change: SettingsChange, *, streaming: bool) -> str:
    """What saving Settings did, in a few short sentences."""
    parts = []
    shown = tuple(name for name in change.now if name in AT_ONCE)
    requests = tuple(name for name in change.now if name not in AT_ONCE)
    if shown:
        parts.append(f"{_listed(shown).capitalize()}: in force at once.")
    if requests:
        parts.append(f"{_listed(requests).capitalize()}: in force from the next request"
                     + (" (the reply in progress finishes as it started)" if streaming else "")
                     + ".")
    if change.here:
        parts.append(f"{_listed(change.here).capitalize()}: applied to this new conversation.")
    if change.later:
        later = _listed(change.later)
        parts.append(f"{later.capitalize()}: for new conversations (Ctrl+N)"
                     + (f"; to use them here, choose “{APPLY_HERE}” in the palette (Ctrl+P)"
                        if set(change.later) & {"system prompt", "parameters"} else "") + ".")
    if change.provider_removed:
        parts.append(f"{change.provider_removed} is no longer configured: the default provider "
                     "is used from now on.")
    return " ".join(parts) or "Nothing changed."


def _listed(items: tuple[str, ...]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
