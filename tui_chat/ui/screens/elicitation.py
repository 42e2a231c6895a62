"""Input a tool server asks for in the middle of a call (MCP elicitation, issue 23).

Two modals, each dismissed with a `core.mcp.elicitation.ElicitAnswer`:

- `ElicitFormScreen` (form mode): the server's message, then one row per field of the
  requested schema (`core.mcp.elicitation.form_fields`): text and numbers in an Input, a
  boolean a Checkbox, a choice a Select, several choices a SelectionList; the server's
  defaults filled in; required fields marked `*`, a number's bounds or a text's length
  named. Enter (in a field) or Ctrl+S accepts: the answers are checked against the schema
  (`checked`) and each bad field gets its sentence under it, the form staying up with
  everything entered; Ctrl+N declines; Esc cancels.
- `ElicitUrlScreen` (URL mode): the message and the page's domain, the address below it;
  `o` says yes (the caller opens the page: nothing is opened from here, nor without that
  yes), `d` declines, Esc cancels. A page that is not http(s) cannot be opened: only
  declining is offered.

Everything drawn comes from the server and is untrusted: `Content` / `rich.text.Text` of
`sanitize`d text, never markup; fields are named by their position (`field-3`), never by
the server's names.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static

from tui_chat.core.mcp.elicitation import (
    ElicitAnswer,
    ElicitRequest,
    Entered,
    Field,
    checked,
    domain,
    url_problem,
)
from tui_chat.core.text import one_line, sanitize

MESSAGE_CHARS = 2_000
"""Characters of the server's message shown."""
LABEL_CHARS = 80
URL_CHARS = 300

_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 84; max-width: 95%; height: auto; max-height: 90%;
    border: thick $accent 70%; border-title-align: center;
    background: $surface; padding: 0 1;
}}
{name} .message {{ height: auto; margin-bottom: 1; }}
{name} #fields {{ height: auto; max-height: 24; }}
{name} .label {{ height: auto; text-style: bold; }}
{name} .hint {{ height: auto; color: $text-muted; }}
{name} .problem {{ height: auto; color: $error; }}
{name} .problem.-none {{ display: none; }}
{name} Input, {name} Select, {name} SelectionList, {name} Checkbox {{ margin-bottom: 1; }}
{name} SelectionList {{ height: auto; max-height: 8; }}
{name} #buttons {{ height: auto; margin-top: 1; }}
{name} #buttons Button {{ margin-right: 1; min-width: 10; }}
{name} .keys {{ color: $text-muted; height: auto; }}
{name} #url-box {{ height: auto; max-height: 4; }}
"""


def message_text(request: ElicitRequest) -> Text:
    """"The tool server NAME asks:" and its message, literal."""
    text = Text("The tool server ")
    text.append(one_line(request.server, 64), style="bold")
    text.append(" asks: ")
    text.append(sanitize(request.message[:MESSAGE_CHARS]))
    return text


def _label(field: Field) -> Text:
    label = Text(one_line(field.title, LABEL_CHARS))
    if field.required:
        label.append(" *", style="bold")
    return label


def _hint(field: Field) -> str:
    parts = [one_line(field.description, 200)] if field.description.strip() else []
    if field.bounds():
        parts.append(field.bounds())
    if field.format:
        parts.append(one_line(field.format, 20))
    return " · ".join(parts)


def _option(label: str) -> Content:
    return Content(one_line(label, LABEL_CHARS))


class ElicitFormScreen(ModalScreen[ElicitAnswer]):
    """A server's form; see the module's docstring."""

    DEFAULT_CSS = _CSS.format(name="ElicitFormScreen")
    BINDINGS: ClassVar[list[BindingType]] = [
        # Not priority bindings: those run as the key arrives, ahead of the keys typed just
        # before it that the focused field has not taken yet (a fast "Pune" then Ctrl+S
        # would send the form without "Pune"). No field binds these keys.
        Binding("ctrl+s", "accept", "Send the answers", id="elicit_form.accept"),
        Binding("ctrl+n", "decline", "Decline to answer", id="elicit_form.decline"),
        Binding("escape", "cancel", "Cancel", id="elicit_form.cancel"),
    ]

    def __init__(self, request: ElicitRequest, fields: list[Field]) -> None:
        super().__init__()
        self.request = request
        self.fields = fields

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "A tool server asks for input"
            yield Static(message_text(self.request), classes="message")
            with VerticalScroll(id="fields"):
                for index, field in enumerate(self.fields):
                    if field.kind != "boolean":  # a checkbox carries its title
                        yield Static(_label(field), classes="label")
                    hint = _hint(field)
                    if hint:
                        yield Static(Text(hint), classes="hint")
                    yield self._widget(index, field)
                    yield Static("", id=f"problem-{index}", classes="problem -none",
                                 markup=False)
            with Horizontal(id="buttons"):
                yield Button("Ctrl+S  Send", id="accept", variant="primary", compact=True)
                yield Button("Ctrl+N  Decline", id="decline", compact=True)
                yield Button("Esc  Cancel", id="cancel", compact=True)
            yield Static(Text("Enter or Ctrl+S sends · Ctrl+N declines · Esc cancels "
                              "(the server is told which)"), classes="keys")

    @staticmethod
    def _widget(index: int, field: Field) -> Widget:
        wid, initial = f"field-{index}", field.initial()
        if field.kind == "boolean":
            return Checkbox(Content.from_text(_label(field)), bool(initial), id=wid,
                            compact=True)
        if field.kind == "choice":
            options = [(_option(label), value) for value, label in field.options]
            return Select(options, id=wid, compact=True, allow_blank=True,
                          value=initial if isinstance(initial, str) else Select.NULL)
        if field.kind == "choices":
            chosen = initial if isinstance(initial, list) else []
            return SelectionList[str](*((_option(label), value, value in chosen)
                                        for value, label in field.options), id=wid)
        return Input(str(initial or ""), id=wid, compact=True,
                     placeholder="a number" if field.kind in ("number", "integer") else "")

    def on_mount(self) -> None:
        if self.fields:
            self.query_one("#field-0").focus()

    def entered(self) -> dict[str, Entered]:
        """What the form holds now, by field name."""
        values: dict[str, Entered] = {}
        for index, field in enumerate(self.fields):
            widget = self.query_one(f"#field-{index}")
            value: Any
            if isinstance(widget, Checkbox):
                value = widget.value
            elif isinstance(widget, Select):
                value = None if widget.value is Select.NULL else widget.value
            elif isinstance(widget, SelectionList):
                value = list(widget.selected)
            else:
                value = widget.value if isinstance(widget, Input) else None
            values[field.name] = value
        return values

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {"accept": self.action_accept, "decline": self.action_decline}.get(
            event.button.id or "", self.action_cancel)()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_accept()

    def action_accept(self) -> None:
        content, problems = checked(self.fields, self.entered())
        first: Widget | None = None
        for index, field in enumerate(self.fields):
            shown = self.query_one(f"#problem-{index}", Static)
            problem = problems.get(field.name)
            shown.update(Text(problem or ""))
            shown.set_class(problem is None, "-none")
            if problem is not None and first is None:
                first = self.query_one(f"#field-{index}")
        if first is not None:
            first.focus()
            return
        self.dismiss(("accept", content))

    def action_decline(self) -> None:
        self.dismiss(("decline", None))

    def action_cancel(self) -> None:
        self.dismiss(("cancel", None))


class ElicitUrlScreen(ModalScreen[ElicitAnswer]):
    """A server asks the user to open a page; see the module's docstring."""

    DEFAULT_CSS = _CSS.format(name="ElicitUrlScreen")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "accept", "Open the page", id="elicit_url.open"),
        Binding("d", "decline", "Decline", id="elicit_url.decline"),
        Binding("escape", "cancel", "Cancel", id="elicit_url.cancel"),
    ]

    def __init__(self, request: ElicitRequest) -> None:
        super().__init__()
        self.request = request
        self.url = request.url or ""
        self.problem = url_problem(self.url)

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Open a page?"
            yield Static(message_text(self.request), classes="message")
            where = Text("It asks you to open a page on ")
            where.append(one_line(domain(self.url) or "(no domain)", 100), style="bold")
            where.append(":")
            yield Static(where, classes="label")
            with VerticalScroll(id="url-box"):
                yield Static(Text(one_line(self.url, URL_CHARS)), id="url", classes="hint")
            if self.problem is not None:
                yield Static(Text(f"Not opened: {self.problem}."), classes="problem")
            with Horizontal(id="buttons"):
                yield Button("o  Open it", id="accept", variant="primary", compact=True,
                             disabled=self.problem is not None)
                yield Button("d  Decline", id="decline", compact=True)
                yield Button("Esc  Cancel", id="cancel", compact=True)
            yield Static(Text("o opens it in your browser · d declines · Esc cancels"),
                         classes="keys")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {"accept": self.action_accept, "decline": self.action_decline}.get(
            event.button.id or "", self.action_cancel)()

    def on_mount(self) -> None:
        # A stray Enter must open nothing: the address (scrollable) has the focus.
        self.query_one("#url-box", VerticalScroll).focus()

    def action_accept(self) -> None:
        if self.problem is None:
            self.dismiss(("accept", None))

    def action_decline(self) -> None:
        self.dismiss(("decline", None))

    def action_cancel(self) -> None:
        self.dismiss(("cancel", None))
