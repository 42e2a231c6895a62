"""The settings screen: a form generated from the Settings model, validated by pydantic.

Dismisses with the new `Settings` (after saving them when a path is given) or None on Esc.
The theme is previewed live while choosing and restored on cancel. Keys set in the environment
are shown as "from environment" and cannot be edited here (the environment wins anyway).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import ClassVar

from pydantic import ValidationError
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Input, Label, OptionList, Select, Static, TextArea

from tui_chat.core.config import Settings, save_settings
from tui_chat.core.errors import TuiChatError
from tui_chat.core.files import os_error_advice, os_error_reason
from tui_chat.core.model_catalog import ModelCatalog
from tui_chat.core.text import one_line
from tui_chat.ui.screens.model_picker import Comparison, ModelChoice, ModelPickerScreen
from tui_chat.ui.screens.settings_form import (
    FieldSpec,
    build_settings,
    env_override,
    error_messages,
    field_for,
    general_fields,
    initial_value,
    provider_fields,
)
from tui_chat.ui.themes import available_theme_names

FieldPath = tuple[str, ...]


class SettingsScreen(ModalScreen[Settings | None]):
    """Edit every setting. `path`: where to save (atomically, mode 0600) before dismissing."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="settings.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="settings.cancel"),
    ]

    def __init__(self, settings: Settings, *, path: Path | None = None,
                 catalog: ModelCatalog | None = None, env: Mapping[str, str] | None = None
                 ) -> None:
        super().__init__()
        self.settings = settings
        self.env = env
        self.path = path
        self.catalog = catalog
        self.specs: list[FieldSpec] = general_fields()
        for name in settings.provider_names():
            self.specs += provider_fields(name, self._display_name(name))
        self._ids: dict[FieldPath, str] = {spec.path: f"field-{index}"
                                           for index, spec in enumerate(self.specs)}
        self._locked: set[FieldPath] = set()
        self._original_theme: str | None = None
        self._unplaced: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="settings") as box:
            box.border_title = "Settings"
            # Not a stop of its own for Tab (a stop without a cue, before the first field):
            # the form scrolls to the field that has focus.
            with VerticalScroll(id="form", can_focus=False):
                section = None
                for spec in self.specs:
                    if spec.section != section:
                        section = spec.section
                        yield Static(Text(one_line(section), style="bold"), classes="section")
                    yield from self._row(spec)
            yield Static("", id="summary", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Save", id="save", variant="primary")

    def _row(self, spec: FieldSpec) -> ComposeResult:
        field_id = self._ids[spec.path]
        with Horizontal(classes="row"):
            yield Label(spec.label, classes="label", markup=False)
            with Vertical(classes="cell"):
                if spec.path == ("default_model",):
                    with Horizontal(classes="with-button"):
                        yield self._editor(spec, field_id)
                        yield Button("Choose…", id="choose-model", compact=True)
                else:
                    yield self._editor(spec, field_id)
                note = self._note(spec)
                if note:
                    yield Static(note, classes="help", markup=False)
                yield Static("", classes="error", id=f"error-{field_id}", markup=False)

    def _note(self, spec: FieldSpec) -> str:
        if spec.path in self._locked:
            variable = env_override(self.settings, spec.path[1], spec.path[2], self.env)
            return f"Set by {variable}, which wins over config.toml; change it there."
        return spec.help

    def _editor(self, spec: FieldSpec, field_id: str) -> Widget:
        value = initial_value(self.settings, spec.path)
        if spec.kind == "provider":
            providers = [(Text(one_line(f"{self._display_name(name) or name} ({name})", 60)),
                          name) for name in self.settings.provider_names()]
            return Select(providers, value=value, allow_blank=False, id=field_id, compact=True)
        if spec.kind == "theme":
            names = available_theme_names(self.app.available_themes.values())
            if value not in names:
                names.insert(0, value)
            return Select([(Text(one_line(n, 40)), n) for n in names], value=value,
                          allow_blank=False, id=field_id, compact=True)
        if spec.kind == "multiline":
            return TextArea(value, id=field_id, soft_wrap=True, compact=True)
        if spec.kind in ("secret", "url"):
            variable = env_override(self.settings, spec.path[1], spec.path[2], self.env)
            if variable is not None:
                self._locked.add(spec.path)
                return Input("", placeholder=f"from environment ({variable})",
                             password=spec.kind == "secret", disabled=True, id=field_id,
                             compact=True)
            placeholder = ("not set" if spec.kind == "secret"
                           else self._builtin_url(spec.path[1]))
            return Input(value, placeholder=placeholder, password=spec.kind == "secret",
                         id=field_id, compact=True)
        kinds = {"float": "number", "int": "integer"}
        return Input(value, id=field_id, type=kinds.get(spec.kind, "text"),  # type: ignore[arg-type]
                     placeholder="provider default" if spec.optional else "", compact=True)

    def _display_name(self, name: str) -> str | None:
        try:
            return self.settings.resolve_provider(name, env={}).display_name
        except TuiChatError:
            return None

    def _builtin_url(self, name: str) -> str:
        try:
            return self.settings.resolve_provider(name, env={}).spec.base_url
        except TuiChatError:  # a provider declared without a base URL: it needs one
            return "https://…"

    def on_mount(self) -> None:
        self._original_theme = self.app.theme
        self.query_one(f"#{self._ids[('default_provider',)]}").focus()
        themes = self.query_one(f"#{self._ids[('theme',)]}", Select)
        overlay = themes.query_one("SelectOverlay", OptionList)
        # Preview each theme as the highlight moves in the open list, not only once chosen.
        self.watch(overlay, "highlighted", partial(self._theme_highlighted, themes, overlay),
                   init=False)
        self.watch(themes, "expanded", partial(self._theme_list_toggled, themes), init=False)

    def _theme_highlighted(self, themes: Select[str], overlay: OptionList,
                           index: int | None) -> None:
        if themes.expanded and index is not None:
            name = str(overlay.get_option_at_index(index).prompt)
            if name in self.app.available_themes:
                self.app.theme = name

    def _theme_list_toggled(self, themes: Select[str], expanded: bool) -> None:
        if not expanded and isinstance(themes.value, str):
            self.app.theme = themes.value  # closed without choosing: back to the chosen one

    def on_select_changed(self, event: Select.Changed) -> None:
        value = event.value
        if (event.select.id == self._ids[("theme",)] and isinstance(value, str)
                and value in self.app.available_themes):
            self.app.theme = value  # live preview

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "save":
            await self.action_save()
        elif event.button.id == "cancel":
            self.action_cancel()
        elif event.button.id == "choose-model":
            self._choose_model()

    def _choose_model(self) -> None:
        def chosen(choice: ModelChoice | Comparison | None) -> None:
            if isinstance(choice, ModelChoice):
                provider = self.query_one(f"#{self._ids[('default_provider',)]}", Select)
                provider.value = choice.provider
                model = self.query_one(f"#{self._ids[('default_model',)]}", Input)
                model.value = choice.model

        self.app.push_screen(ModelPickerScreen(self.settings, catalog=self.catalog), chosen)

    def values(self) -> dict[FieldPath, str]:
        """What the form holds now (locked fields left out: they keep their saved value)."""
        result: dict[FieldPath, str] = {}
        for spec in self.specs:
            if spec.path in self._locked:
                continue
            widget = self.query_one(f"#{self._ids[spec.path]}")
            if isinstance(widget, TextArea):
                result[spec.path] = widget.text
            elif isinstance(widget, Select):
                result[spec.path] = "" if widget.value is Select.NULL else str(widget.value)
            elif isinstance(widget, Input):
                result[spec.path] = widget.value
        return result

    async def action_save(self) -> None:
        for error in self.query(".error").results(Static):
            error.update("")
            error.remove_class("shown")
        self.query(".-invalid").remove_class("-invalid")
        try:
            settings = build_settings(self.settings, self.values(),
                                      {spec.path: spec for spec in self.specs})
        except ValidationError as error:
            self._show_errors(error_messages(error, Settings))
            return
        if self.path is not None:
            try:
                moved = await asyncio.to_thread(save_settings, settings, self.path,
                                                base=self.settings)
            except OSError as error:
                self._summary(f"Could not save {self.path}: {os_error_reason(error)}; "
                              f"{os_error_advice(error)}. Nothing was changed.")
                return
            if moved is not None:
                self.notify(f"The old {self.path} could not be read, so it was moved to "
                            f"{moved} before saving.", title="Settings", severity="warning",
                            markup=False, timeout=15)
        self.dismiss(settings)

    def _show_errors(self, messages: dict[FieldPath, str]) -> None:
        """Each failure on the field it is about: its editor marked, its own error line."""
        first: Widget | None = None
        said: dict[str, list[str]] = {}
        for path, message in messages.items():
            field = field_for(path, list(self._ids))
            if field is None:  # about nothing the form shows: the summary says it
                self._unplaced.append(message)
                continue
            said.setdefault(self._ids[field], []).append(message)
        for field_id in [field_id for field_id in self._ids.values() if field_id in said]:
            shown = self.query_one(f"#error-{field_id}", Static)  # top first: focus goes there
            shown.update(" ".join(said[field_id]))
            shown.add_class("shown")
            editor = self.query_one(f"#{field_id}")
            editor.add_class("-invalid")
            first = first or editor
        count = len(messages)
        noun = "setting needs" if count == 1 else "settings need"
        self._summary(" ".join([f"{count} {noun} fixing (marked in red); nothing was saved "
                                "yet. Fix and press Ctrl+S, or Esc to cancel.",
                                *self._unplaced]))
        self._unplaced = []
        if first is not None:
            first.focus()
            first.scroll_visible()

    def _summary(self, text: str) -> None:
        self.query_one("#summary", Static).update(text)

    def action_cancel(self) -> None:
        if self._original_theme is not None and self.app.theme != self._original_theme:
            self.app.theme = self._original_theme
        self.dismiss(None)
