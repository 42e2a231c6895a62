"""A theme chosen in the palette is saved to config.toml, as if chosen in Settings.

Textual's own theme command only sets `App.theme`, which lasts for the session. Ours sets it and
then writes `theme = "NAME"` through the settings' save path (`save_settings`: only that key is
written, comments and order kept). A config file that could not be read at start is not
touched: the theme is then used for the session only, and the user is told why.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import CommandPalette
from textual.theme import ThemeProvider

from tui_chat.core.config import save_settings
from tui_chat.core.files import os_error_advice, os_error_reason

if TYPE_CHECKING:
    from tui_chat.ui.app import TuiChatApp


class SavedThemeProvider(ThemeProvider):
    """Textual's theme list, each choice saved (see the module docstring)."""

    @property
    def commands(self) -> list[tuple[str, Callable[[], None]]]:
        app: TuiChatApp = self.app  # type: ignore[assignment]
        return [(name, partial(app.choose_theme, name)) for name, _ in super().commands]


def theme_palette() -> CommandPalette:
    return CommandPalette(providers=[SavedThemeProvider], placeholder="Search for themes…")


async def save_theme(app: TuiChatApp, name: str) -> None:
    """Write `name` as the theme in config.toml and put it in the settings in force; one
    notification says where it went, or why it could not be saved."""
    workspace, path = app.workspace, app.services.config_path
    settings = workspace.settings
    if settings.theme == name:
        return
    if app.services.config_notice is not None:
        app.notify(f"The theme {name} is used for this session only: {path} could not be "
                   "read at start, so it is left as it is (fix it, or save Settings with F3).",
                   title="Theme", severity="warning", markup=False, timeout=10)
        return
    new = settings.model_copy(update={"theme": name})
    try:
        await asyncio.to_thread(save_settings, new, path, base=settings)
    except OSError as error:
        app.notify(f"The theme {name} is used for this session only: could not save {path}: "
                   f"{os_error_reason(error)}; {os_error_advice(error)}.",
                   title="Theme", severity="warning", markup=False, timeout=10)
        return
    await workspace.apply_settings(new)
    app.notify(f"Theme {name} saved to {path}.", title="Theme", markup=False, timeout=4)
