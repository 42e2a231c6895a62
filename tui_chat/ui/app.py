"""The full-screen app: a thin shell over the conversation screen and the core workspace.

`tui_chat.commands.app` builds `AppServices` (settings, store, workspace) as `tui-chat` finds
them and calls `run()`. Tests build `TuiChatApp(AppServices.create(...))` with a tmp store and
a loopback URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import os
import signal
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.driver import Driver
from textual.notifications import SeverityLevel

from tui_chat.core.config import Settings
from tui_chat.core.drafts import Drafts
from tui_chat.core.models import Message
from tui_chat.core.secrets import scrub
from tui_chat.ui import gc_policy, textual_compat
from tui_chat.ui.drafts import DraftKeeper
from tui_chat.ui.messages import ConversationShown
from tui_chat.ui.screens.conversation import ConversationScreen
from tui_chat.ui.services import AppServices, no_key_sentence
from tui_chat.ui.themes import install_themes
from tui_chat.ui.warmup import warm_up
from tui_chat.ui.widgets.message_list import NEWEST

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
STOP_BOUND = 5.0
"""Seconds after a stop signal by which the process is gone, whatever holds it (it usually
takes a fraction of one: this is a backstop, wide enough never to cut a loaded machine's
orderly quit short)."""


def action_commands() -> type[Provider]:
    """The palette's commands, imported when the palette first opens (they import the help
    screen and the key map, which the first frame does not need)."""
    from tui_chat.ui.commands import ActionCommands

    return ActionCommands


class TuiChatApp(App[int]):
    """tui-chat. Services are injected; nothing here talks to a provider or the disk."""

    # The conversation screen's stylesheet is read with the app's own, not as the screen is
    # pushed: Textual re-parses every stylesheet it has (in a new Stylesheet, none cached)
    # when a screen brings a file of its own, and this one is pushed before the first frame.
    CSS_PATH = ["app.tcss", "screens/conversation.tcss"]
    TITLE = "tui-chat"
    ENABLE_COMMAND_PALETTE = True
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {action_commands}
    """tui-chat's commands only (ui.commands: the theme list is among them)."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True,
                tooltip="Quit; everything is already saved (asks first while a reply "
                "streams)"),
        Binding("f1", "help", "Help", id="app.help",
                tooltip="Every key, and what it does where"),
        Binding("f3", "settings", "Settings", id="app.settings",
                tooltip="Keys, providers, the default model, system prompt and parameters, "
                "theme, reading width"),
    ]

    def __init__(self, services: AppServices, *, provider: str | None = None,
                 model: str | None = None, conversation: str | None = None,
                 continue_last: bool = False, theme_dirs: Sequence[Path] | None = None) -> None:
        super().__init__()
        self.services = services
        self._crash: BaseException | None = None
        self._stopping = False
        self._quitting = False
        self._signals_before: dict[int, signal._HANDLER] = {}
        self.user_keymap: dict[str, str] = {}
        """The keys of `[keys]` in config.toml in force (help and palette show them)."""
        self.workspace = services.workspace
        self.drafts = DraftKeeper(Drafts.beside(services.store.path), self.workspace)
        """The prompt's unsent text, per conversation, kept across switches and quits."""
        # Raise here (before the terminal switches mode) for an unknown provider or id.
        self._initial: list[Message] | None = None
        if conversation:  # its newest messages: the rest is read after they are drawn
            self._initial = self.workspace.open_conversation(conversation, newest=NEWEST)
        elif continue_last:
            self._initial = self.workspace.open_latest(newest=NEWEST)
        self._initial_above = (self.workspace.reader_above(self._initial, NEWEST)
                               if self._initial else None)
        if self._initial is not None:
            self.workspace.override(provider, model)  # -p/-m win over the saved model
        self._theme_note = self._install_themes(theme_dirs)

    def get_driver_class(self) -> type[Driver]:
        """Textual's terminal driver, with output that survives the terminal's end
        (`ui.terminal_driver`); any other (the web driver, a test's) as Textual chooses."""
        driver = super().get_driver_class()
        if (driver.__module__, driver.__name__) == ("textual.drivers.linux_driver",
                                                    "LinuxDriver"):
            from tui_chat.ui.terminal_driver import TerminalDriver

            return TerminalDriver
        return driver

    def _install_themes(self, theme_dirs: Sequence[Path] | None) -> str | None:
        """Install the themes and put the chosen one's colours in the stylesheet before the
        app runs, so that nothing is parsed or styled in Textual's default theme (from
        on_mount, the first frame was drawn in it, then every stylesheet parsed again, every
        widget styled and the screen drawn again). The refresh Textual queues for a theme set
        has nothing left to do then: `refresh_css` skips it."""
        default = self.theme
        note = install_themes(self, self.services.settings.theme,  # type: ignore[arg-type]
                              theme_dirs)
        self.watch_theme(self.theme)  # not called when the theme chosen is Textual's first
        self.stylesheet.set_variables(self.get_css_variables())
        self._css_ready_for = self.theme if self.theme != default else None
        return note

    def refresh_css(self, animate: bool = True) -> None:
        ready, self._css_ready_for = self._css_ready_for, None
        if ready is not None and ready == self.theme:  # queued by the theme set in __init__
            return
        super().refresh_css(animate)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every notification passes the key scrubber, whatever put the text together."""
        super().notify(scrub(message), title=scrub(title), severity=severity, timeout=timeout,
                       markup=markup)

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        """Open `url` in the user's browser, and say so; where no browser can be opened (a
        machine without one, over ssh), say that instead and copy the link (OSC 52) so that
        it can be pasted. In a browser tab (textual-serve), the page opens it."""
        if self.is_web:
            super().open_url(url, new_tab=new_tab)
            return
        import webbrowser

        try:
            opened = webbrowser.open(url, new=2 if new_tab else 0)
        except webbrowser.Error:
            opened = False
        if opened:
            self.notify("Opened in your browser.", timeout=3, markup=False)
            return
        self.copy_to_clipboard(url)
        self.notify(f"No browser could be opened here, so the link was copied to the clipboard "
                    f"instead: {url}", severity="warning", markup=False)

    def _handle_exception(self, error: Exception) -> None:
        self._crash = error
        super()._handle_exception(error)

    def _fatal_error(self) -> None:
        """Textual's own crash screen prints a traceback with local variables, which may hold
        an API key: print one sentence instead, and put the scrubbed traceback (no locals) in a
        crash report. (Overrides a private hook: tests/faults/test_app_secrets.py pins it.)"""
        from rich.text import Text

        from tui_chat.core.crash import crash_sentence, write_report

        error = self._crash
        self.bell()
        if error is not None:
            sentence = crash_sentence(error, write_report(error))
            textual_compat.exit_renderables(self).append(Text(sentence))
        textual_compat.close_messages_no_wait(self)

    def get_css_variables(self) -> dict[str, str]:
        """Textual's design variables and tui-chat's colour roles (`ui.colour_roles`)."""
        from tui_chat.ui import colour_roles

        variables = super().get_css_variables()
        return {**variables, **colour_roles.css_variables(self.current_theme, variables)}

    def watch_theme(self, _name: str) -> None:
        """Markdown and the warning rows take their colours from the theme in use (before
        the theme-changed signal redraws the messages)."""
        from tui_chat.ui import colour_roles

        colour_roles.apply(self.console, self.current_theme, no_color=self.no_color)

    async def on_mount(self) -> None:
        self._catch_stop_signals()
        self.apply_keys(self.workspace.settings)
        if self._theme_note:
            self.notify(self._theme_note, title="Themes", severity="warning", markup=False,
                        timeout=10)
        screen = ConversationScreen(self.workspace)
        await self.push_screen(screen)
        if self._initial:
            await screen.show_messages(self._initial, above=self._initial_above)
        if self.services.config_notice:
            self.notify(self.services.config_notice, title="Settings", severity="warning",
                        markup=False, timeout=15)
        if self.services.store.notice:
            self.notify(self.services.store.notice, title="Store", severity="warning",
                        markup=False, timeout=15)
        from tui_chat.core.protection import research_warnings

        for warning in research_warnings(self.workspace.settings, self.workspace.env):
            self.notify(warning, title="Privacy", severity="warning", markup=False, timeout=15)
        hint = no_key_sentence(self.workspace)
        if hint:
            screen.show_first_run(hint)
        self._draft_problem(self.drafts.drafts.notice)
        self.on_conversation_shown()  # the draft of the conversation opened at start
        self.call_after_refresh(gc_policy.after_start_up)
        self.call_after_refresh(self.run_worker, warm_up, thread=True, group="warm-up",
                                exit_on_error=False)
        if self.services.list_models_at_start:
            # The coroutine is made when the call runs: an app that ends before its first
            # refresh would leave one never awaited (a RuntimeWarning at exit).
            self.call_after_refresh(lambda: self.run_worker(
                self._list_models(screen), group="models", exit_on_error=False))

    async def _list_models(self, screen: ConversationScreen) -> None:
        """List the current provider's models once, when they never were: their windows and
        prices are what the status line shows (a failure only leaves them unknown)."""
        workspace = self.workspace
        if workspace.catalog.knows_facts(workspace.provider):
            return
        await asyncio.to_thread(importlib.import_module, "tui_chat.core.client")  # not here
        await workspace.catalog.refresh(workspace.provider)
        screen.context_status.refresh()

    def apply_keys(self, settings: Settings) -> None:
        """Put the user's `[keys]` in force; each problem is one notification."""
        if not settings.keys and not self.user_keymap:
            return  # nothing to check: start-up imports no other screen for it
        from tui_chat.ui.keymap import check_keymap

        keymap, problems = check_keymap(settings.keys, str(self.services.config_path))
        self.user_keymap = keymap
        self.set_keymap(keymap)
        for problem in problems:
            self.notify(problem, title="Keys", severity="warning", markup=False, timeout=15)

    def search_themes(self) -> None:
        """The palette's theme list; a theme chosen there is saved (`ui.theme_choice`)."""
        from tui_chat.ui.theme_choice import theme_palette

        self.push_screen(theme_palette())

    def choose_theme(self, name: str) -> None:
        """Use the theme `name` now and save it to config.toml."""
        from tui_chat.ui.theme_choice import save_theme

        self.theme = name
        self.run_worker(save_theme(self, name), group="theme", exclusive=True,
                        exit_on_error=False)

    def action_help(self) -> None:
        from tui_chat.ui.screens.help import HelpScreen  # not on the start-up path

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_settings(self) -> None:
        from tui_chat.ui.screens.settings import SettingsScreen  # not on the start-up path

        if isinstance(self.screen, SettingsScreen):
            return
        screen = SettingsScreen(self.workspace.settings, path=self.services.config_path,
                                catalog=self.workspace.catalog, env=self.workspace.env)
        self.push_screen(screen, self._settings_saved)

    async def _settings_saved(self, settings: Settings | None) -> None:
        if settings is None:
            return
        change = await self.workspace.apply_settings(settings)
        self.apply_keys(settings)
        conversation = self.conversation_screen
        if conversation is not None:
            await conversation.settings_changed(change, no_key_sentence(self.workspace))
        else:
            self.notify(f"Settings saved to {self.services.config_path}.", markup=False)

    @property
    def conversation_screen(self) -> ConversationScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, ConversationScreen):
                return screen
        return None

    def on_conversation_shown(self, _event: ConversationShown | None = None) -> None:
        screen = self.conversation_screen
        if screen is not None:
            self._draft_problem(self.drafts.shown(screen.prompt,
                                                  editing=screen.editing is not None))

    def _draft_problem(self, sentence: str | None) -> None:
        if sentence:
            self.notify(sentence, title="Drafts", severity="warning", markup=False, timeout=15)

    async def action_quit(self, code: int = 0) -> None:
        """Quit (`quit_now`); while a reply streams, ask first (Ctrl+Q again, or yes, quits;
        the reply is kept either way: stopped, it is saved as interrupted)."""
        from tui_chat.ui.screens.confirm import ConfirmScreen

        screen = self.conversation_screen
        if screen is None or not screen.streaming or isinstance(self.screen, ConfirmScreen):
            await self.quit_now(code)
            return

        async def answered(yes: bool | None) -> None:
            if yes:
                await self.quit_now(code)

        self.push_screen(ConfirmScreen(
            "A reply is still streaming. Quit anyway? What has arrived is kept, saved as "
            "interrupted (Ctrl+Q again quits too).", yes="Quit", no="Keep it streaming"),
            answered)

    async def quit_now(self, code: int = 0) -> None:
        """Keep the prompt's draft, stop a streaming reply (it is saved as interrupted),
        close clients, exit. A draft that could not be written is said after exit. Once:
        a second Ctrl+Q (or a signal) while it runs is the same quit."""
        if self._quitting:
            return
        self._quitting = True
        screen = self.conversation_screen
        problem = None
        if screen is not None:
            problem = self.drafts.keep(screen.prompt, editing=screen.editing is not None)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(screen.stop_streaming(), timeout=2)
        await self.workspace.aclose()
        self.exit(code, message=problem)

    def _catch_stop_signals(self) -> None:
        """SIGTERM, and SIGHUP (the terminal was closed), quit as Ctrl+Q does: the reply in
        progress is saved whole as interrupted, the terminal is restored, and the exit code
        is 128 + the signal's number. (By default either killed the process where it stood.)
        The handler is a plain signal handler, not the event loop's, so that it runs even
        when the loop is stuck: it asks the loop to quit, and arms a backstop that ends the
        process STOP_BOUND seconds later whatever holds it (what was streamed is in the store
        already, but for its last second)."""
        loop = asyncio.get_running_loop()
        for signum in STOP_SIGNALS:
            try:
                self._signals_before[signum] = signal.signal(
                    signum, functools.partial(self._on_stop_signal, loop))
            except ValueError:  # not the main thread: nothing to catch
                return

    def on_unmount(self) -> None:
        """The handlers before the app's, once the app has closed everything (a process
        that runs the app more than once, as tests do, keeps none of them)."""
        for signum, handler in self._signals_before.items():
            signal.signal(signum, handler)
        self._signals_before.clear()

    def _on_stop_signal(self, loop: asyncio.AbstractEventLoop, signum: int, _frame: object
                        ) -> None:
        if self._stopping:
            return
        self._stopping = True
        backstop = threading.Timer(STOP_BOUND, os._exit, (128 + signum,))
        backstop.daemon = True
        backstop.start()
        loop.call_soon_threadsafe(self._stop_signal_received, signum)

    def _stop_signal_received(self, signum: int) -> None:
        self.run_worker(self.quit_now(128 + signum), group="stop", exit_on_error=False)


def run(services: AppServices, *, provider: str | None = None, model: str | None = None,
        conversation: str | None = None, continue_last: bool = False) -> int:
    """Run the app until the user quits; the exit code."""
    app = TuiChatApp(services, provider=provider, model=model, conversation=conversation,
                     continue_last=continue_last)
    return int(app.run() or 0)
