"""Ctrl+E: the prompt's text in the user's editor, with the terminal handed over.

`App.suspend()` (Textual 8) restores the terminal as it was before the app started, stops
reading input, and on leaving switches back and redraws everything. While suspended the app
must not draw (Textual does not hold its output back), so the editor runs blocking the event
loop, as in Textual's own example; the screen therefore does not open it while a reply
streams. Textual's headless driver (tests) cannot suspend, and has no terminal to hand over:
the editor, a stand-in there, simply runs. In a browser (textual-serve) there is no terminal
for an editor at all: one sentence says so.

On return the text is in the prompt, not sent, replacing what was there as one edit (Ctrl+Z
brings the old text back). A failure is one notification, and the prompt keeps its text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual.app import App, SuspendNotSupported

from tui_chat.core.editor import EditorError, edit_text
from tui_chat.ui.widgets.prompt_input import PromptInput


def edit_in_terminal(app: App[Any], text: str, env: Mapping[str, str]) -> str:
    """`text` as the user left it in their editor, the terminal handed over meanwhile.
    Raises EditorError."""
    if app.is_web:
        raise EditorError("An editor needs a terminal, and this app runs in a browser: "
                          "write the prompt here, or run tui-chat in a terminal.")
    if app.is_headless:
        return edit_text(text, env)
    outcome: str | BaseException
    try:
        with app.suspend():
            try:  # caught inside: an exception through suspend() would never resume the app
                outcome = edit_text(text, env)
            except BaseException as error:  # re-raised below, once the app has resumed
                outcome = error
    except SuspendNotSupported:
        raise EditorError("This terminal cannot be handed over to an editor; write the "
                          "prompt here instead.") from None
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome


def compose_in_editor(app: App[Any], prompt: PromptInput, env: Mapping[str, str]) -> None:
    """Put the prompt's text through the user's editor (see the module doc)."""
    try:
        text = edit_in_terminal(app, prompt.text, env)
    except EditorError as error:
        app.notify(f"{error.message} The prompt is unchanged.", title="Editor",
                   severity="error", markup=False, timeout=10)
        return
    if text != prompt.text:
        prompt.replace(text, prompt.document.start, prompt.document.end)
    prompt.move_cursor(prompt.document.end)
    prompt.focus()
