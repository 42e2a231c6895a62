"""`tui-chat ask` puts a tool server's request for input (MCP elicitation) to the terminal.

Form mode: the server's message, then "Answer it? [y/N]" (no: declined), then a plain
prompt per field of the requested schema (`core.mcp.elicitation.form_fields`): its title,
what it is, the server's default in brackets (an empty line keeps it); a boolean takes y or
n, a choice its number or its value, several choices their numbers separated by commas. An
answer the schema refuses is said in its sentence and the field asked again, at most
`TRIES` times; then the form is cancelled. URL mode: the message, the page's domain and its
address, "Open it? [y/N]"; only a yes opens it (in the browser, through `webbrowser`).
With no terminal: declined, in one sentence on stderr. Everything the server sent is shown
through `sanitize` (no escape sequence reaches the terminal).
"""

from __future__ import annotations

import webbrowser
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui_chat.core.mcp.elicitation import (
    ElicitAnswer,
    ElicitRequest,
    Entered,
    Field,
    checked,
    domain,
    form_fields,
    url_problem,
)
from tui_chat.core.text import one_line, sanitize

if TYPE_CHECKING:
    from tui_chat.commands.ask_terminal import TerminalAsker

TRIES = 3
"""Times a field is asked before the form is cancelled."""
_YES = {"y", "yes"}


async def elicit_on_terminal(asker: TerminalAsker, request: ElicitRequest,
                             open_page: Callable[[str], object] = webbrowser.open
                             ) -> ElicitAnswer:
    """The user's answer to `request`, asked on `asker`'s terminal (see the module)."""
    from tui_chat.commands.ask_terminal import NoTerminal

    server = one_line(request.server, 64)
    head = f"The tool server {server} asks: {sanitize(request.message[:2000])}"
    try:
        if request.url is not None:
            return await _page(asker, request.url, head, open_page)
        fields = form_fields(request.schema)
        if isinstance(fields, str):
            asker.say(f"The tool server {server} asked for input, declined: {fields}.")
            return "decline", None
        return await _form(asker, fields, head)
    except NoTerminal:
        asker.say(f"The tool server {server} asked for input, declined: there is no "
                  "terminal to ask on.")
        return "decline", None


async def _page(asker: TerminalAsker, url: str, head: str,
                open_page: Callable[[str], object]) -> ElicitAnswer:
    problem = url_problem(url)
    where = (f"It asks you to open a page on {one_line(domain(url) or '(no domain)', 100)}: "
             f"{one_line(url, 300)}")
    if problem is not None:
        asker.say(f"{where}; declined: {problem}.")
        return "decline", None
    answer = await asker.read_answer(f"{head}\n{where}\nOpen it? [y/N] ")
    if answer.strip().lower() not in _YES:
        return "decline", None
    open_page(url)
    return "accept", None


async def _form(asker: TerminalAsker, fields: list[Field], head: str) -> ElicitAnswer:
    answer = await asker.read_answer(f"{head}\nAnswer it? [y/N] ")
    if answer.strip().lower() not in _YES:
        return "decline", None
    content: dict[str, object] = {}
    for field in fields:
        for _ in range(TRIES):
            typed = await asker.read_answer(_prompt(field))
            value, problem = _value(field, typed)
            if problem is None:
                part, problems = checked([field], {field.name: value})
                problem = problems.get(field.name)
            if problem is None:
                content.update(part)
                break
            await asker.write(f"  {problem}\n")
        else:
            asker.say("The form was cancelled: a field was not answered as it asks.")
            return "cancel", None
    return "accept", content


def _prompt(field: Field) -> str:
    title = one_line(field.title, 80) + (" *" if field.required else "")
    hints = [one_line(field.description, 200)] if field.description.strip() else []
    if field.bounds():
        hints.append(field.bounds())
    lines = [f"{title}" + (f" ({'; '.join(hints)})" if hints else "")]
    initial = field.initial()
    if field.kind in ("choice", "choices"):
        lines += [f"  {n}. {one_line(label, 80)}" for n, (_, label) in
                  enumerate(field.options, start=1)]
        chosen = [str(n) for n, (value, _) in enumerate(field.options, start=1)
                  if value == initial or (isinstance(initial, list) and value in initial)]
        ask = "Numbers, separated by commas" if field.kind == "choices" else "Number"
        lines.append(f"{ask} [{','.join(chosen)}]: ")
    elif field.kind == "boolean":
        lines.append(f"y or n [{'y' if initial else 'n'}]: ")
    else:
        lines.append(f"[{one_line(str(initial), 80)}]: " if initial else ": ")
    return "\n".join(lines)


def _value(field: Field, typed: str) -> tuple[Entered, str | None]:
    """What `typed` means for `field` (empty: the field's initial value), or why it means
    nothing."""
    text = typed.strip()
    if not text:
        return field.initial(), None
    if field.kind == "boolean":
        if text.lower() in ("y", "yes", "n", "no"):
            return text.lower().startswith("y"), None
        return None, f"{one_line(field.title, 80)} takes y or n."
    if field.kind in ("choice", "choices"):
        picked = [_option(field, part.strip()) for part in text.split(",")] \
            if field.kind == "choices" else [_option(field, text)]
        if any(value is None for value in picked):
            return None, f"{one_line(field.title, 80)} must be among the choices offered."
        values = [value for value in picked if value is not None]
        return (values if field.kind == "choices" else values[0]), None
    return typed, None


def _option(field: Field, typed: str) -> str | None:
    if typed.isdigit() and 1 <= int(typed) <= len(field.options):
        return field.options[int(typed) - 1][0]
    return typed if any(typed == value for value, _ in field.options) else None
