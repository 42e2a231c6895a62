"""A footer that fits: the keys of the focused pane first, then the screen's, then the app's,
as many as the width holds, with F1 Help and the command palette always there (everything
left out is in both). Textual's own Footer shows every key and cuts the row off at the
right edge: at 80 columns the main screen lost Quit, Help and Settings, and even at 120 the
sidebar's and message mode's rows were cut mid-word.

Keys that do nothing now (an action its widget disables) are left out rather than dimmed;
the row is composed again when the bindings change and when its width does. Only the keys
that changed are mounted or removed (`recompose`): every reply brings Esc Stop and takes it
away, and mounting the whole row again (each key styled anew) cost more CPU than the first
chunks of the reply.
"""

from __future__ import annotations

import weakref

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer

from tui_chat.ui import textual_compat
from tui_chat.ui.textual_compat import FooterKey

ALWAYS = ("help",)
"""Actions whose keys are shown whatever the width: what leads to everything else."""
_KEY_PADDING = 3  # " key " around the key and a space after the description
_PALETTE_CHROME = 3  # a space between key and word, its left border, its right padding


def key_width(key_display: str, description: str) -> int:
    return cell_len(key_display) + cell_len(description) + _KEY_PADDING


def palette_width(key_display: str, description: str) -> int:
    """The palette's key is drawn compact (as in Textual's Footer), with a border."""
    return cell_len(key_display) + cell_len(description) + _PALETTE_CHROME


def fitting(bindings: list[tuple[Binding, str]], width: int) -> list[Binding]:
    """The bindings that fit in `width` cells, in their order, those in ALWAYS kept first."""
    kept = [binding for binding, _ in bindings if binding.action in ALWAYS]
    room = width - sum(key_width(shown, b.description) for b, shown in bindings
                       if b in kept)
    for binding, shown in bindings:
        if binding in kept:
            continue
        needed = key_width(shown, binding.description)
        if needed <= room:
            kept.append(binding)
            room -= needed
        else:
            room = -1  # keep the order: nothing after the first key that does not fit
    return [binding for binding, _ in bindings if binding in kept]


class FittedFooter(Footer):
    """Footer that shows only the keys that fit (see the module docstring)."""

    def compose(self) -> ComposeResult:
        if not textual_compat.footer_bindings_ready(self):
            return
        active = self.screen.active_bindings
        shown: list[tuple[Binding, str]] = []
        actions: set[str] = set()
        for _node, binding, enabled, _tooltip in active.values():
            if binding.show and enabled and binding.action not in actions:
                actions.add(binding.action)
                shown.append((binding, self.app.get_key_display(binding)))
        width = self.size.width or self.app.size.width
        palette = (active.get(self.app.COMMAND_PALETTE_BINDING)
                   if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE else None)
        if palette is not None:
            shown = [(b, key) for b, key in shown if b is not palette.binding]
            width -= palette_width(self.app.get_key_display(palette.binding),
                                   palette.binding.description)
        tooltips = {id(item.binding): item.tooltip for item in active.values()}
        for binding in fitting(shown, width):
            key = FooterKey(binding.key, self.app.get_key_display(binding),
                            binding.description, binding.action,
                            tooltip=tooltips.get(id(binding)) or binding.tooltip)
            key.set_reactive(FooterKey.compact, self.compact)  # see watch_compact
            yield _made(key)
        if palette is not None:
            yield _made(FooterKey(palette.binding.key,
                                  self.app.get_key_display(palette.binding),
                                  palette.binding.description, palette.binding.action,
                                  classes="-command-palette", disabled=not palette.enabled,
                                  tooltip=palette.binding.tooltip
                                  or palette.binding.description), palette=True)

    async def recompose(self) -> None:
        """Mount and remove only the keys that changed, in place; the whole row again
        (Textual's way) when the keys kept would change order."""
        if not self.is_attached or textual_compat.is_pruning(self):
            return
        wanted = [key for key in self.compose() if isinstance(key, FooterKey)]
        shown = list(self.query_children(FooterKey))
        wanted_keys = [_MADE.get(key) for key in wanted]
        shown_keys = [_MADE.get(key) for key in shown]
        kept = [key for key in shown_keys if key in wanted_keys]
        unknown = None in wanted_keys or None in shown_keys
        repeated = len(set(wanted_keys)) != len(wanted_keys)
        if (unknown or repeated or len(shown) != len(self.children)
                or kept != [key for key in wanted_keys if key in shown_keys]):
            await super().recompose()
            return
        if wanted_keys == shown_keys:
            return
        async with self.batch():
            gone = [key for key, identity in zip(shown, shown_keys, strict=True)
                    if identity not in wanted_keys]
            if gone:
                await self.remove_children(gone)
            by_identity = dict(zip(shown_keys, shown, strict=True))
            following: FooterKey | None = None
            for key, identity in reversed(list(zip(wanted, wanted_keys, strict=True))):
                if not self.is_attached:  # its screen closed meanwhile (the app is quitting)
                    return
                if identity in by_identity:
                    following = by_identity[identity]
                elif following is None:
                    await self.mount(key)
                    following = key
                else:
                    await self.mount(key, before=following)
                    following = key

    def watch_compact(self, compact: bool) -> None:
        """The keys follow the footer's `compact` (Textual's Footer binds each key to it
        with `data_bind`: the footer then keeps every key ever composed in its watchers,
        pruned only when `compact` changes, which it never does here; every reply mounts
        Esc Stop and removes it, one widget kept a reply)."""
        for key in self.query_children(FooterKey):
            if "-command-palette" not in key.classes:
                key.compact = compact

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != getattr(self, "_composed_width", None):
            self._composed_width = event.size.width
            self.call_after_refresh(self.recompose)


_MADE: weakref.WeakKeyDictionary[FooterKey, tuple[object, ...]] = weakref.WeakKeyDictionary()
"""What each key composed here shows and does, as composed (its classes change once
mounted): equal ones need not be mounted again."""


def _made(key: FooterKey, *, palette: bool = False) -> FooterKey:
    _MADE[key] = (key.key, key.key_display, key.description, key.action, key.tooltip,
                  key.disabled, palette)
    return key
