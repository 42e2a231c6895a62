"""Keys as hints name them: the user's own (`[keys]` in config.toml, see keymap) where a hint
names a binding's key, so that "F2 picks a model" says F4 once F4 picks it. Kept apart from
keymap, which checks a map against every screen's bindings: this is on the start-up path (the
empty conversation's hint) and imports nothing else of the app."""

from __future__ import annotations

from collections.abc import Mapping

_KEY_NAMES = {"pgup": "PgUp", "pgdn": "PgDn", "esc": "Esc", "del": "Del", "up": "↑",
              "down": "↓", "left": "←", "right": "→", "⏎": "Enter"}


def written_key(key: str) -> str:
    """A Textual key as hints and the README write it: "ctrl+r" → "Ctrl+R", "f4" → "F4",
    "pageup" → "PgUp", "r" → "r"."""
    from textual.keys import format_key

    *modifiers, name = key.split("+")
    shown = format_key(name)
    if shown in _KEY_NAMES:
        shown = _KEY_NAMES[shown]
    elif len(shown) == 1:
        shown = shown.upper() if modifiers else shown
    else:
        shown = shown[:1].upper() + shown[1:]
    return "+".join([*(modifier.capitalize() for modifier in modifiers), shown])


def hint_key(binding_id: str, default: str) -> str:
    """The key a hint names for `binding_id`: the user's first key for it (`[keys]`, in the
    running app), else `default`, the key the binding declares, as the hint writes it."""
    from tui_chat.ui.textual_compat import running_app  # what `widget.app` reads too

    app = running_app()
    if app is None:  # no app running (the command line): the declared keys
        return default
    keymap: Mapping[str, str] = getattr(app, "user_keymap", {})
    keys = [key.strip() for key in keymap.get(binding_id, "").split(",") if key.strip()]
    return written_key(keys[0]) if keys else default
