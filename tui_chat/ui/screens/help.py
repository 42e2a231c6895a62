"""The help screen (F1): every key binding of the app and the screen below, from the bindings.

Nothing here is hand-written except the prompt keys that are not bindings (Enter sends,
Ctrl+J and Alt+Enter insert a newline: TextArea swallows Enter, so the prompt handles them in
`_on_key`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from tui_chat.core.text import one_line
from tui_chat.ui import textual_compat
from tui_chat.ui.keymap import remapped

PROMPT_KEYS: tuple[tuple[str, str], ...] = (
    ("enter", "Send the prompt"),
    ("ctrl+j", "Insert a new line in the prompt (in every terminal)"),
    ("alt+enter", "Insert a new line (in terminals that report Alt+Enter)"),
    ("up", "Recall the previous prompt (when the prompt is empty)"),
    ("tab", "Complete the path after @ (an @path attaches the file)"),
)
"""Keys the prompt handles itself rather than through bindings."""


@dataclass(frozen=True)
class KeyHelp:
    """One row of the help: a group, the keys as displayed, what they do."""

    group: str
    keys: str
    description: str


def node_bindings(node_type: type[DOMNode], *, own_only: bool = False,
                  keymap: Mapping[str, str] | None = None) -> list[Binding]:
    """The bindings a class has, merged through its bases as Textual merges them, with the
    user's keys (`keymap`, see ui/keymap.py) in place of the declared ones.

    `own_only`: only those declared by tui-chat's classes (not a widget's built-in scrolling).
    """
    merged: dict[str, Binding] = {}
    for base in reversed(node_type.__mro__):
        if not (isinstance(base, type) and issubclass(base, DOMNode)):
            continue
        if not textual_compat.inherits_bindings(base):
            merged.clear()
        if own_only and not base.__module__.startswith("tui_chat."):
            continue
        declared: Iterable[BindingType] = base.__dict__.get("BINDINGS", [])
        for binding in remapped(Binding.make_bindings(declared), keymap or {}):
            merged[binding.key] = binding
    return list(merged.values())


_KEY_NAMES = {"escape": "Esc", "enter": "Enter", "up": "↑", "down": "↓", "left": "←",
              "right": "→", "pageup": "PgUp", "pagedown": "PgDn", "delete": "Del",
              "backspace": "Backspace", "tab": "Tab", "space": "Space", "slash": "/",
              "home": "Home", "end": "End", "insert": "Ins"}


def key_label(binding: Binding) -> str:
    """"ctrl+shift+a" as "Ctrl+Shift+A", "escape" as "Esc": the way the help and README say it."""
    if binding.key_display:
        return binding.key_display
    parts = binding.key.split("+")
    *modifiers, key = parts
    if len(key) == 1:
        name = key.upper() if modifiers else key
    else:
        name = _KEY_NAMES.get(key, key.upper() if re.fullmatch(r"f\d+", key) else key.title())
    return "+".join([*(m.title() for m in modifiers), name])


def user_keymap(app: App[object]) -> Mapping[str, str]:
    """The keys the user remapped (`[keys]` in config.toml), as the app applied them."""
    keymap: Mapping[str, str] = getattr(app, "user_keymap", {})
    return keymap


def group_title(node: DOMNode) -> str:
    if isinstance(node, App):
        return "App"
    title = getattr(node, "BINDING_GROUP_TITLE", None)
    if title:
        return str(title)
    words = re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", type(node).__name__)
    return " ".join([words[0], *(w.lower() for w in words[1:])]) if words else "Screen"


def screen_nodes(screen: Screen[object] | None) -> list[DOMNode]:
    """`screen` and one widget of each tui-chat widget class on it, or to be mounted on it
    when needed (its `later_widgets()`): the nodes whose bindings the help screen and the
    command palette list."""
    if screen is None:
        return []
    nodes: list[DOMNode] = [screen]
    seen: set[type[DOMNode]] = {type(screen)}
    later: list[DOMNode] = getattr(screen, "later_widgets", list)()  # not mounted yet
    for widget in [*screen.walk_children(), *later]:
        kind = type(widget)
        if kind not in seen and kind.__module__.startswith("tui_chat."):
            seen.add(kind)
            nodes.append(widget)
    return nodes


def collect_key_help(app: App[object], screen: Screen[object] | None,
                     extra: Sequence[tuple[str, str]] = PROMPT_KEYS,
                     extra_group: str = "Prompt") -> list[KeyHelp]:
    """Rows for every described binding of `app`, `screen` and tui-chat's widgets on it."""
    nodes: list[DOMNode] = [app, *screen_nodes(screen)]
    rows: list[KeyHelp] = []
    for node in nodes:
        rows.extend(_rows_for(app, node))
    if extra:
        rows.extend(KeyHelp(extra_group, _display(app, key), text) for key, text in extra)
    return rows


def _rows_for(app: App[object], node: DOMNode) -> list[KeyHelp]:
    bindings = node_bindings(type(node), own_only=not isinstance(node, App | Screen),
                             keymap=user_keymap(app))
    if isinstance(node, App) and node.ENABLE_COMMAND_PALETTE and not any(
        b.action in ("command_palette", "app.command_palette") for b in bindings
    ):
        bindings.append(Binding(node.COMMAND_PALETTE_BINDING, "command_palette",
                                "Command palette", key_display=node.COMMAND_PALETTE_DISPLAY))
    by_action: dict[tuple[str, str], list[str]] = {}
    for binding in bindings:
        if binding.description and not binding.system:
            keys = by_action.setdefault((binding.action, binding.description), [])
            shown = key_label(binding)
            if shown not in keys:
                keys.append(shown)
    group = group_title(node)
    return [KeyHelp(group, " / ".join(keys), description)
            for (_, description), keys in by_action.items()]


def _display(app: App[object], key: str) -> str:
    return key_label(Binding(key, "", ""))


def key_table(rows: Sequence[KeyHelp]) -> Group:
    """Each group: its title, then a two-column table of keys and what they do."""
    parts: list[Text | Table] = []
    groups: dict[str, list[KeyHelp]] = {}
    for row in rows:
        groups.setdefault(row.group, []).append(row)
    for index, (group, members) in enumerate(groups.items()):
        title = Text(("\n" if index else "") + one_line(group), style="bold underline")
        table = Table(box=None, expand=True, show_header=False, padding=(0, 1))
        table.add_column("keys", style="bold", no_wrap=True, width=18)
        table.add_column("description", ratio=1)
        for row in members:
            table.add_row(Text(row.keys), Text(one_line(row.description, 200)))
        parts += [title, table]
    return Group(*parts)


class HelpScreen(ModalScreen[None]):
    """Every key, generated from the bindings of the app and of `screen`.

    `screen` defaults to the screen below this one when it is pushed.
    """

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
    }
    HelpScreen > Vertical {
        width: 84;
        max-width: 95%;
        height: 90%;
        border: thick $primary 70%;
        border-title-align: center;
        background: $surface;
        padding: 0 1;
    }
    HelpScreen VerticalScroll {
        height: 1fr;
    }
    HelpScreen .hint {
        color: $text-muted;
        height: 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "close", "Close help", id="help.close"),
    ]

    def __init__(self, screen: Screen[object] | None = None,
                 extra: Sequence[tuple[str, str]] = PROMPT_KEYS) -> None:
        super().__init__()
        self._target = screen
        self._extra = extra

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Keys"
            with VerticalScroll(id="help-keys"):
                yield Static(id="help-table")
            yield Static("Ctrl+P opens the command palette with every action. Esc closes.",
                         classes="hint", markup=False)

    def on_mount(self) -> None:
        target = self._target
        if target is None:
            stack = self.app.screen_stack
            below = [screen for screen in stack if screen is not self]
            target = below[-1] if below else None
        rows = collect_key_help(self.app, target, self._extra)
        self.query_one("#help-table", Static).update(key_table(rows))
        self.query_one("#help-keys", VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
