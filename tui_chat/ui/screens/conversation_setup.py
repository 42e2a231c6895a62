"""The conversation's own system prompt and parameters, and personas, for the conversation
screen: the settings screen (F8) and what it returns, the folded system-prompt row, and the
personas (loaded once, off the event loop, after the first frame; broken files named in ONE
notification; each offered in the palette and on an empty conversation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from tui_chat.core.errors import TuiChatError
from tui_chat.core.text import one_line
from tui_chat.ui.key_hints import hint_key

if TYPE_CHECKING:
    from collections.abc import Callable

    from tui_chat.core.personas import Persona
    from tui_chat.ui.screens.conversation import ConversationScreen
    from tui_chat.ui.screens.conversation_settings import ConversationSettings


class ConversationSetup:
    """Per-conversation settings and personas of one conversation screen."""

    def __init__(self, host: ConversationScreen) -> None:
        self.host = host
        self.personas: list[Persona] = []

    # --- personas ------------------------------------------------------------------------

    def load_personas(self) -> None:
        """Read the persona files in a thread; the palette and the empty view offer them
        once read."""
        self.host.run_worker(self._read_personas, thread=True, group="personas",
                             exit_on_error=False)

    def _read_personas(self) -> None:
        from tui_chat.core.personas import load_personas

        personas, problems = load_personas()
        self.host.app.call_from_thread(self._personas_read, personas, problems)

    def _personas_read(self, personas: list[Persona], problems: list[str]) -> None:
        from tui_chat.core.personas import problems_message

        self.personas = personas
        if problems:
            self.host.notify(problems_message(problems), title="Personas", severity="warning",
                             markup=False, timeout=15)
        self.host.refresh_chrome()

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
        return lambda: self.host.run_worker(self.start_with(persona), group="setup",
                                            exit_on_error=False)

    async def start_with(self, persona: Persona) -> None:
        """A new conversation with the persona's prompt, parameters and model (unless the
        one on screen is still empty: then that one)."""
        host = self.host
        if host.workspace.session.is_saved or host.streaming:
            await host.action_new_conversation()
        try:
            host.workspace.apply_persona(persona)
        except TuiChatError as error:
            host.notify(error.message, severity="error", markup=False)
            return
        host.refresh_chrome()
        host.notify(f"New conversation as {one_line(persona.name, 40)}; "
                    f"{hint_key('conversation.settings', 'F8')} shows its system prompt and "
                    "parameters.", markup=False)

    # --- this conversation's settings ----------------------------------------------------

    def open_settings(self) -> None:
        from tui_chat.ui.screens.conversation_settings import ConversationSettingsScreen

        session = self.host.workspace.session
        conversation = session.conversation
        title = conversation.title if session.is_saved else ""
        screen = ConversationSettingsScreen(conversation.system_prompt,
                                            conversation.parameters, personas=self.personas,
                                            title=title, servers=self._tool_servers())
        self.host.app.push_screen(screen, self._apply)

    def _tool_servers(self) -> list[str]:
        return list(self.host.workspace.settings.mcp.enabled_servers())

    def _apply(self, chosen: ConversationSettings | None) -> None:
        if chosen is None:
            return
        workspace = self.host.workspace
        try:
            if chosen.persona is not None:
                workspace.apply_persona(chosen.persona)  # its model; the fields win below
            workspace.session.set_system_prompt(chosen.system_prompt)
            workspace.session.set_parameters(chosen.parameters)
        except TuiChatError as error:
            self.host.notify(error.message, severity="error", markup=False)
            return
        self.host.refresh_chrome()
        self.host.notify("This conversation's system prompt and parameters are saved; they "
                         "apply from its next message.", markup=False)

    def system_row(self) -> Text | None:
        """The folded first row: the conversation's system prompt, when it has one."""
        prompt = self.host.workspace.session.conversation.system_prompt
        if not prompt:
            return None
        row = Text(f"⚙ System prompt ({hint_key('conversation.settings', 'F8')})  ",
                   style="bold")
        row.append(one_line(prompt, 200), style="italic")
        return row
