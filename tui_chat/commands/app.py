"""Plain `tui-chat`: the full-screen app, built here from the context (settings, store,
workspace) and run until the user quits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_chat.commands.context import Context

if TYPE_CHECKING:  # the UI is imported only when the app runs
    from tui_chat.ui.services import AppServices


def run_app(context: Context, *, provider: str | None = None, model: str | None = None,
            conversation: str | None = None, continue_last: bool = False) -> int:
    """The app starts even with a broken config file (the defaults, and a notification naming
    the file) or an unusable store (a temporary one that says so). An unknown provider or
    conversation id stops it before the terminal changes mode, with one sentence. The
    terminal is asked how wide it draws a few characters (cell_probe) while this loads."""
    from tui_chat.commands.cell_probe import CellProbe

    if "TUI_CHAT_SERVED_BY" in context.env:  # started by `tui-chat serve`: end with it
        from tui_chat.commands.serve import follow_the_server

        follow_the_server(context.env)
    probe = CellProbe.start()  # answered while the UI imports (see cell_probe)
    try:
        from tui_chat.ui import app, cells

        services = build_services(context, provider=provider, model=model)
    finally:
        widths = probe.finish() if probe is not None else None
    if widths is not None:
        cells.install(cells.model_from_widths(widths))
    try:
        if conversation:
            conversation = services.workspace.store.resolve_id(conversation)
        return app.run(services, provider=provider, model=model, conversation=conversation,
                       continue_last=continue_last)
    finally:
        services.workspace.store.close()


def build_services(context: Context | None = None, *, provider: str | None = None,
                   model: str | None = None) -> AppServices:
    """Settings, store and workspace as `tui-chat` finds them; the app starts whatever state
    they are in."""
    from tui_chat.ui.services import AppServices

    context = context or Context()
    settings, notice = context.settings_or_defaults()
    store = context.open_store_or_temporary(settings)
    try:
        return AppServices.create(settings, store, config_path=context.config_path,
                                  env=context.env, config_notice=notice, provider=provider,
                                  model=model, list_models_at_start=True)
    except BaseException:
        store.close()
        raise
