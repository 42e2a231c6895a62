"""Command palette (Ctrl+P): every action that has a described key binding, and every theme.

Commands are gathered from the bindings of the app, the screen the palette was opened on and
tui-chat's widgets on it, so a new binding appears here with no extra work; each runs its
action by name in the node that declares it. Add `ActionCommands` to `App.COMMANDS` (alone:
Textual's own system commands, Maximize, Screenshot, Keys, are not tui-chat's).

What a user scans first is tui-chat's: the screen's commands, its widgets' (titled with the
widget's group, "Prompt: Clear"), the app's, those without a key, then the theme list. A
command's title is its name; the line under it describes it, with its key. Textual's own
bindings (they have no id: Focus Next, Focus Previous, Copy selected text) are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from textual.app import App
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape
from textual.screen import Screen

from tui_chat.ui.screens.help import (
    group_title,
    key_label,
    node_bindings,
    screen_nodes,
    user_keymap,
)

_SKIPPED_ACTIONS = {"command_palette", "app.command_palette"}


@dataclass(frozen=True)
class PaletteCommand:
    """A line of the palette: its title, a help line, and what runs when chosen."""

    title: str
    help: str
    run: Callable[[], Any]


def binding_commands(app: App[Any], screen: Screen[Any] | None) -> list[PaletteCommand]:
    """One command per described binding of tui-chat's (screen and widgets first, then the
    app); Textual's own (no id) are left out."""
    commands: list[PaletteCommand] = []
    seen: set[str] = set()
    for node in [*screen_nodes(screen), app]:
        widget = not isinstance(node, App | Screen)
        for binding in node_bindings(type(node), own_only=widget, keymap=user_keymap(app)):
            if (not binding.description or binding.system or binding.id is None
                    or binding.action in _SKIPPED_ACTIONS):
                continue
            title = f"{group_title(node)}: {binding.description}" if widget \
                else binding.description
            if title in seen:
                continue
            seen.add(title)
            key = key_label(binding)
            help_text = f"{binding.tooltip} · {key}" if binding.tooltip else f"Key: {key}"
            commands.append(PaletteCommand(title, help_text,
                                           partial(app.run_action, binding.action, node)))
    return commands


def theme_commands(app: App[Any]) -> list[PaletteCommand]:
    """A "Theme: NAME" command for each theme: used and saved, as the palette's "Theme" list
    and Settings do (`TuiChatApp.choose_theme`; an app without it only uses it)."""
    choose: Callable[[str], None] | None = getattr(app, "choose_theme", None)
    commands = []
    for name in sorted(app.available_themes):
        if name == "textual-ansi":
            continue
        run = partial(choose, name) if choose is not None else partial(setattr, app, "theme",
                                                                       name)
        commands.append(PaletteCommand(f"Theme: {name}", "Use this theme and keep it", run))
    return commands


def screen_commands(screen: Screen[Any] | None) -> list[PaletteCommand]:
    """Commands a screen offers without a key (its `palette_commands()`)."""
    offered = getattr(screen, "palette_commands", None)
    if offered is None:
        return []
    return [PaletteCommand(title, help_text, run) for title, help_text, run in offered()]


def theme_list_command(app: App[Any]) -> PaletteCommand:
    return PaletteCommand("Theme", "Pick a theme: each is shown as you move to it, and the one "
                          "chosen is kept", app.action_change_theme)


def all_commands(app: App[Any], screen: Screen[Any] | None) -> list[PaletteCommand]:
    return [*binding_commands(app, screen), *screen_commands(screen), theme_list_command(app),
            *theme_commands(app)]


class ActionCommands(Provider):
    """Every key-bound action of the app and current screen, and every theme."""

    _commands: list[PaletteCommand] | None = None

    async def startup(self) -> None:
        # Gathered once per opening of the palette, not at every keystroke.
        self._commands = all_commands(self.app, self.screen)

    def commands(self) -> Iterable[PaletteCommand]:
        if self._commands is None:
            self._commands = all_commands(self.app, self.screen)
        return self._commands

    async def discover(self) -> Hits:
        for command in self.commands():
            if not command.title.startswith("Theme: "):
                yield DiscoveryHit(Content(command.title), command.run,
                                   help=escape(command.help))  # help is read as markup

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self.commands():
            score = matcher.match(command.title)
            if score > 0:
                yield Hit(score, matcher.highlight(command.title), command.run,
                          text=command.title, help=escape(command.help))
