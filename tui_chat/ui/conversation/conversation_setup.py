"""The conversation's own system prompt and parameters, and personas, for the conversation's
view: the settings screen (F8) and what it returns, the folded system-prompt row, and the
personas (loaded once, off the event loop, after the first frame; broken files named in ONE
notification; each offered in the palette and on an empty conversation).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text

from tui_chat.core.errors import TuiChatError
from tui_chat.core.text import one_line
from tui_chat.ui.key_hints import hint_key

if TYPE_CHECKING:
    from collections.abc import Callable

    from tui_chat.core.personas import Persona
    from tui_chat.core.workspace import Workspace
    from tui_chat.ui.conversation.controller import ConversationController
    from tui_chat.ui.conversation.dialogs import ChosenSettings
    from tui_chat.ui.conversation.view import ConversationUI


class ConversationSetup:
    """Per-conversation settings and personas of one conversation."""

    def __init__(self, controller: ConversationController, view: ConversationUI) -> None:
        self.controller = controller
        self.view = view
        self.personas: list[Persona] = []

    @property
    def workspace(self) -> Workspace:
        return self.controller.workspace

    # --- personas ------------------------------------------------------------------------

    def load_personas(self) -> None:
        """Read the persona files in a thread; the palette and the empty view offer them
        once read."""
        self.view.run_worker(self._read_personas(), group="personas", exit_on_error=False)

    async def _read_personas(self) -> None:
        from tui_chat.core.personas import load_personas

        personas, problems = await asyncio.to_thread(load_personas)
        self._personas_read(personas, problems)

    def _personas_read(self, personas: list[Persona], problems: list[str]) -> None:
        from tui_chat.core.personas import problems_message

        self.personas = personas
        if problems:
            self.view.say(problems_message(problems), title="Personas", severity="warning",
                          timeout=15)
        self.view.refresh_chrome()

    def persona_hint(self) -> str:
        """For the empty view of a new conversation."""
        if not self.personas:
            return ""
        names = ", ".join(p.name for p in self.personas[:6])
        return (f"Personas: {names}. {hint_key('conversation.settings', 'F8')} (or Ctrl+P, "
                "“Persona”) starts this conversation as one.")

    def palette_commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        return [(f"Persona: {one_line(p.name, 40)}",
                 one_line(p.description, 80) or "A new conversation with this persona",
                 self._starter(p)) for p in self.personas]

    def _starter(self, persona: Persona) -> Callable[[], object]:
        return lambda: self.view.run_worker(self.start_with(persona), group="setup",
                                            exit_on_error=False)

    async def start_with(self, persona: Persona) -> None:
        """A new conversation with the persona's prompt, parameters and model (unless the
        one on screen is still empty: then that one)."""
        if self.workspace.session.is_saved or self.controller.streaming:
            await self.controller.new_conversation()
        try:
            self.workspace.apply_persona(persona)
        except TuiChatError as error:
            self.view.say(error.message, severity="error")
            return
        self.view.refresh_chrome()
        self.view.say(f"New conversation as {one_line(persona.name, 40)}; "
                      f"{hint_key('conversation.settings', 'F8')} shows its system prompt and "
                      "parameters.")

    # --- this conversation's settings ----------------------------------------------------

    def open_settings(self) -> None:
        session = self.workspace.session
        conversation = session.conversation
        title = conversation.title if session.is_saved else ""
        self.view.open_conversation_settings(conversation.system_prompt,
                                             conversation.parameters, self.personas, title,
                                             self._tool_servers(), self._apply)

    def _tool_servers(self) -> list[str]:
        return list(self.workspace.settings.mcp.enabled_servers())

    def _apply(self, chosen: ChosenSettings | None) -> None:
        if chosen is None:
            return
        workspace = self.workspace
        try:
            if chosen.persona is not None:
                workspace.apply_persona(chosen.persona)  # its model; the fields win below
            workspace.session.set_system_prompt(chosen.system_prompt)
            workspace.session.set_parameters(chosen.parameters)
        except TuiChatError as error:
            self.view.say(error.message, severity="error")
            return
        self.view.refresh_chrome()
        self.view.say("This conversation's system prompt and parameters are saved; they "
                      "apply from its next message.")
        note = workspace.reasoning_note()  # a reasoning setting this model is not sent
        if note is not None:
            self.view.say(note, title="Reasoning", severity="warning")

    def system_row(self) -> Text | None:
        """The folded first row: the conversation's system prompt, when it has one."""
        prompt = self.workspace.session.conversation.system_prompt
        if not prompt:
            return None
        row = Text(f"⚙ System prompt ({hint_key('conversation.settings', 'F8')})  ",
                   style="bold")
        row.append(one_line(prompt, 200), style="italic")
        return row
