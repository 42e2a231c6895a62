"""This conversation's own settings (F8): its system prompt and parameters, and a persona to
fill them in. Distinct from Settings (F3), whose values are the defaults for new conversations.

Dismisses with a `ConversationSettings` (validated by `Parameters`) or None on Esc; the
conversation screen applies it. Picking a persona fills the fields (and, when it names one,
chooses its model on saving); the fields can still be edited after.

The tool servers configured (enabled under [mcp.servers] in config.toml) are listed with a
checkbox each (Tab to it, Space or Enter toggles): one unchecked is not offered to this
conversation (`Parameters.tools_off`, kept with it). A server it turned off that is no
longer configured stays off, unseen.

Reasoning (`Parameters.reasoning`, also the reasoning key, F9): the model's default, off,
low, medium or high; sent only to a model known to take it (core.dialect).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from pydantic import ValidationError
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, Static, TextArea

from tui_chat.core.models import Parameters
from tui_chat.core.personas import Persona
from tui_chat.core.text import one_line, sanitize
from tui_chat.ui.screens.settings_form import HELP, error_messages

NUMBERS: tuple[tuple[str, str], ...] = (
    ("temperature", "Temperature"), ("max_tokens", "Max tokens"), ("top_p", "Top p"),
    ("presence_penalty", "Presence penalty"), ("frequency_penalty", "Frequency penalty"))
NO_PERSONA = "(none)"
PROVIDER_DEFAULT = "provider default"
"""What an empty parameter field shows: nothing is sent, the provider's default holds."""
PROVIDERS_CHOICE = "provider"
E2EE_CHOICES: tuple[tuple[str, str], ...] = (
    ("As the provider's setting says", PROVIDERS_CHOICE),
    ("Off: sent as any request", "off"),
    ("Auto: encrypted where the model's chute supports it", "auto"),
    ("Required: never sent in plain text", "required"))
REASONING_LABELS: tuple[tuple[str, str], ...] = (
    ("The model's default", "default"), ("Off: answer without thinking", "off"),
    ("Low", "low"), ("Medium", "medium"), ("High", "high"))


@dataclass(frozen=True)
class ConversationSettings:
    """What the screen returns: the conversation's new system prompt and parameters, and the
    persona picked to fill them, if any (its provider and model, if it has them, are then
    chosen too)."""

    system_prompt: str | None
    parameters: Parameters
    persona: Persona | None = None


def stop_text(stop: Sequence[str] | None) -> str:
    """Stop sequences, one per line, a line break in one written as \\n."""
    return "\n".join(s.replace("\\", "\\\\").replace("\n", "\\n") for s in stop or ())


def parse_stop(text: str) -> list[str] | None:
    lines = [line for line in text.splitlines() if line]
    decoded = [line.replace("\\\\", "\0").replace("\\n", "\n").replace("\0", "\\")
               for line in lines]
    return decoded or None


class ConversationSettingsScreen(ModalScreen[ConversationSettings | None]):
    """Edit the conversation's system prompt and parameters; see the module docstring."""

    DEFAULT_CSS = """
    ConversationSettingsScreen { align: center middle; }
    ConversationSettingsScreen > Vertical {
        width: 90; max-width: 95%; height: 90%;
        border: thick $primary 70%; border-title-align: center;
        background: $surface; padding: 0 1;
    }
    ConversationSettingsScreen .intro { color: $text-muted; margin-bottom: 1; }
    ConversationSettingsScreen VerticalScroll { height: 1fr; }
    ConversationSettingsScreen .row { height: auto; margin-bottom: 1; }
    ConversationSettingsScreen .label { width: 20; padding: 0 1; }
    ConversationSettingsScreen .cell { width: 1fr; height: auto; }
    ConversationSettingsScreen TextArea { height: 6; }
    ConversationSettingsScreen .cell Input.-textual-compact,
    ConversationSettingsScreen .cell TextArea.-textual-compact { background: $panel; }
    ConversationSettingsScreen .cell Input.-textual-compact:focus,
    ConversationSettingsScreen .cell TextArea.-textual-compact:focus {
        background: $primary 25%;
    }
    ConversationSettingsScreen #stop { height: 3; }
    ConversationSettingsScreen .servers { height: auto; }
    ConversationSettingsScreen .help { color: $text-muted; }
    ConversationSettingsScreen .error { color: $error; text-style: bold; display: none; }
    ConversationSettingsScreen .error.shown { display: block; }
    ConversationSettingsScreen #summary { height: auto; color: $warning; }
    ConversationSettingsScreen #buttons { height: auto; align-horizontal: right; }
    ConversationSettingsScreen #buttons Button { margin-left: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="conversation_settings.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="conversation_settings.cancel"),
    ]

    def __init__(self, system_prompt: str | None, parameters: Parameters, *,
                 personas: Sequence[Persona] = (), title: str = "",
                 servers: Sequence[str] = ()) -> None:
        super().__init__()
        self.servers = list(servers)
        """The tool servers configured, each with a checkbox."""
        self.system_prompt = system_prompt
        self.parameters = parameters
        self.personas = list(personas)
        self.title_text = title
        self._persona: Persona | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "This conversation's settings"
            about = f"“{one_line(self.title_text, 60)}”: " if self.title_text else ""
            yield Static(f"{about}its own system prompt and parameters, sent with every "
                         "message of it. Settings (F3) holds the defaults for new "
                         "conversations.", classes="intro", markup=False)
            with VerticalScroll():
                if self.personas:
                    options = [(Text(NO_PERSONA), NO_PERSONA)] + [
                        (Text(one_line(f"{p.name} — {p.description}" if p.description
                                       else p.name, 70)), p.name) for p in self.personas]
                    yield from self._row("Persona", Select(
                        options, value=NO_PERSONA, allow_blank=False, id="persona",
                        compact=True), "Fills the fields below (and its model, if it has one).")
                yield from self._row("System prompt", TextArea(
                    sanitize(self.system_prompt or ""), id="system_prompt", soft_wrap=True,
                    compact=True), "Sent first with every message; empty: none.")
                for name, label in NUMBERS:
                    value = getattr(self.parameters, name)
                    yield from self._row(label, Input(
                        "" if value is None else str(value), id=name, compact=True,
                        placeholder=PROVIDER_DEFAULT),
                        HELP.get(("parameters", name), ""))
                yield from self._row("Stop", TextArea(
                    stop_text(self.parameters.stop), id="stop", compact=True,
                    placeholder=PROVIDER_DEFAULT),
                    "Sequences that end the reply, one per line (\\n for a line break).")
                yield from self._row("Encryption", Select(
                    [(Text(label), value) for label, value in E2EE_CHOICES],
                    value=self.parameters.e2ee or PROVIDERS_CHOICE, allow_blank=False,
                    id="e2ee", compact=True),
                    "Encrypted to the machine that runs the model (Chutes only): the relays "
                    "on the way cannot read the messages or the replies; that machine can.")
                yield from self._row("Reasoning", Select(
                    [(Text(label), value) for label, value in REASONING_LABELS],
                    value=self.parameters.reasoning or "default", allow_blank=False,
                    id="reasoning", compact=True),
                    "How much the model thinks before answering; sent only to a model "
                    "known to take it (F9 cycles it).")
                if self.servers:
                    yield from self._row("Tool servers", self._server_boxes(),
                                         "Offered to the model in this conversation when "
                                         "checked; each call still asks first (config.toml "
                                         "says which need not).")
            yield Static("", id="summary", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Save", id="save", variant="primary")

    def _server_boxes(self) -> Widget:
        off = set(self.parameters.tools_off or ())
        return Vertical(*(Checkbox(Text(one_line(name, 60)), name not in off,
                                   id=f"tool-server-{index}", compact=True)
                          for index, name in enumerate(self.servers)),
                        id="tool_servers", classes="servers")

    def tools_off(self) -> list[str] | None:
        """The servers turned off: those unchecked, and those off that are not listed."""
        off = [name for name in self.parameters.tools_off or () if name not in self.servers]
        off += [name for index, name in enumerate(self.servers)
                if not self.query_one(f"#tool-server-{index}", Checkbox).value]
        return off or None

    def _row(self, label: str, editor: Widget, help_text: str) -> ComposeResult:
        with Horizontal(classes="row"):
            yield Label(label, classes="label", markup=False)
            with Vertical(classes="cell"):
                yield editor
                if help_text:
                    yield Static(help_text, classes="help", markup=False)
                yield Static("", classes="error", id=f"error-{editor.id}", markup=False)

    def on_mount(self) -> None:
        self.query_one("#system_prompt", TextArea).focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id != "persona":
            return
        event.stop()
        persona = self._persona = next((p for p in self.personas if p.name == event.value),
                                       None)
        if persona is None:
            return
        self.query_one("#system_prompt", TextArea).load_text(persona.system_prompt)
        parameters = persona.parameters or Parameters()
        for name, _ in NUMBERS:
            value = getattr(parameters, name)
            self.query_one(f"#{name}", Input).value = "" if value is None else str(value)
        self.query_one("#stop", TextArea).load_text(stop_text(parameters.stop))
        if parameters.reasoning is not None:
            self.query_one("#reasoning", Select).value = parameters.reasoning

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "save":
            await self.action_save()
        else:
            self.action_cancel()

    def values(self) -> ConversationSettings:
        """The form as settings (ValidationError naming the fields that are wrong)."""
        data: dict[str, object] = {name: self.query_one(f"#{name}", Input).value.strip() or None
                                   for name, _ in NUMBERS}
        data["stop"] = parse_stop(self.query_one("#stop", TextArea).text)
        e2ee = self.query_one("#e2ee", Select).value
        data["e2ee"] = None if e2ee == PROVIDERS_CHOICE else e2ee
        data["tools_off"] = self.tools_off()
        reasoning = self.query_one("#reasoning", Select).value
        data["reasoning"] = None if reasoning == "default" else reasoning
        prompt = self.query_one("#system_prompt", TextArea).text
        return ConversationSettings(prompt if prompt.strip() else None,
                                    Parameters.model_validate(data), self._persona)

    async def action_save(self) -> None:
        for error in self.query(".error").results(Static):
            error.update("")
            error.remove_class("shown")
        try:
            chosen = self.values()
        except ValidationError as error:
            messages = error_messages(error, Parameters)
            for path, message in messages.items():
                shown = self.query(f"#error-{path[0]}")
                if shown:
                    shown.first(Static).update(message)
                    shown.first(Static).add_class("shown")
            self.query_one("#summary", Static).update(
                f"{len(messages)} value(s) need fixing (marked in red); nothing was changed. "
                "Fix and press Ctrl+S, or Esc to cancel.")
            return
        self.dismiss(chosen)

    def action_cancel(self) -> None:
        self.dismiss(None)
