"""Textual's and Rich's private parts that tui-chat relies on, in one place.

The speed work, the crash screen, the terminal driver and the cell widths each lean on a
part of Textual (or Rich, or textual-serve) that is not public: an attribute, a module, a
method overridden. Every such use goes through this module, by a function named for what it
does, and `tests/unit/test_textual_compat.py` has one test per hook, named after it, that
fails if the installed release moved or changed it. To move the UI pin (pyproject.toml), run
that file first: each failure names the hook and the call sites to look at (`grep` this
module's function). ARCHITECTURE.md, "Moving the Textual pin", has the whole procedure.

Two kinds of hook:
- attributes read or written, and private modules: the functions and names below;
- private methods tui-chat *overrides* (a subclass cannot reach them through a module): they
  are listed in `OVERRIDDEN` with the signature they are written against, and each override's
  docstring says why it exists.

Nothing here is imported before it is needed by its callers, and nothing here draws.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, Protocol

from textual.widgets._footer import FooterKey  # not exported by textual.widgets

if TYPE_CHECKING:
    from rich.cells import CellTable
    from rich.console import RenderableType
    from textual.app import App
    from textual.css.styles import RenderStyles
    from textual.dom import DOMNode
    from textual.drivers.linux_driver import LinuxDriver
    from textual.geometry import Size
    from textual.layouts.stream import StreamLayout
    from textual.scrollbar import ScrollBar
    from textual.widget import Widget
    from textual.widgets import Footer, TextArea
    from textual.widgets.text_area import TextAreaTheme

__all__ = ["OVERRIDDEN", "FooterKey", "Override"]


# --- The app ------------------------------------------------------------------------------


def running_app() -> App[object] | None:
    """The app running in this context (what `widget.app` reads), None outside one."""
    from textual._context import active_app

    try:
        return active_app.get()
    except LookupError:
        return None


def app_thread_id(app: App[Any]) -> int:
    """The id of the thread `app` runs its event loop in (`App._thread_id`)."""
    return app._thread_id


def exit_renderables(app: App[Any]) -> list[RenderableType]:
    """What `app` prints to the terminal once it has left it (`App._exit_renderables`)."""
    return app._exit_renderables


def close_messages_no_wait(app: App[Any]) -> None:
    """End `app` now, from its crash path (`App._close_messages_no_wait`)."""
    app._close_messages_no_wait()


def inherits_bindings(node_type: type[DOMNode]) -> bool:
    """Whether `node_type`'s own class declaration keeps its bases' bindings
    (`DOMNode._inherit_bindings`, set by `inherit_bindings=False` in the class statement)."""
    return bool(node_type.__dict__.get("_inherit_bindings", True))


# --- Layout and painting ------------------------------------------------------------------


def anchor_released(widget: Widget) -> bool:
    """An anchored container the user has scrolled away from its end
    (`Widget._anchor_released`)."""
    return widget._anchor_released


def follows_end(widget: Widget) -> bool:
    """A container anchored to its end that the user has not scrolled away from."""
    return widget.is_anchored and not anchor_released(widget)


def clear_styles_cache(widget: Widget) -> None:
    """Forget the rows Textual painted for `widget` last (`Widget._styles_cache`)."""
    widget._styles_cache.clear()


def replace_get_inner_outer(function: Callable[[Any, Any], Any]) -> None:
    """Make `textual._styles_cache.StylesCache.get_inner_outer` (a method Textual caches
    with `lru_cache`, keyed by each widget's cache: ui/widgets/line_cache.py says why) the
    plain function `function(base_background, background)`; once, however often called."""
    from textual._styles_cache import StylesCache

    current = StylesCache.__dict__.get("get_inner_outer")
    if not (isinstance(current, staticmethod) and current.__func__ is function):
        StylesCache.get_inner_outer = staticmethod(function)  # type: ignore[method-assign,assignment]


def clear_arrangement_cache(widget: Widget) -> None:
    """Forget a container's last arrangements (`Widget._clear_arrangement_cache`)."""
    widget._clear_arrangement_cache()


def forget_stream_placements(layout: StreamLayout) -> None:
    """Forget the placements a stream layout keeps (`StreamLayout._cached_placements`)."""
    layout._cached_placements = None


def laid_out_size(widget: Widget) -> Size:
    """The size `widget` was given by the last layout (`Widget._size`)."""
    return widget._size


def set_laid_out_size(widget: Widget, size: Size) -> None:
    """Take `size` as the widget's without Textual's refresh for it (`Widget._size`)."""
    widget._size = size


def laid_out_container_size(widget: Widget) -> Size:
    """The container size of the last layout (`Widget._container_size`)."""
    return widget._container_size


def vertical_scrollbar(widget: Widget) -> ScrollBar | None:
    """The vertical scrollbar, if one was made (`Widget._vertical_scrollbar`): reading
    `widget.vertical_scrollbar` would make one."""
    return widget._vertical_scrollbar


def skip_scrollbar_repaint(bar: ScrollBar) -> None:
    """The scrollbar is repainted by the frame already coming: no frame of its own
    (`ScrollBar._repaint_required`)."""
    bar._repaint_required = False


def is_pruning(widget: Widget) -> bool:
    """`widget` is being removed (`Widget._pruning`)."""
    return widget._pruning


# --- Widgets ----------------------------------------------------------------------------------


def footer_bindings_ready(footer: Footer) -> bool:
    """The footer has read the screen's bindings once (`Footer._bindings_ready`)."""
    return footer._bindings_ready


def text_area_theme(area: TextArea) -> TextAreaTheme | None:
    """The theme a TextArea draws with (`TextArea._theme`)."""
    return area._theme


def component_styles(widget: Widget) -> dict[str, RenderStyles]:
    """A widget's component classes' styles (`DOMNode._component_styles`)."""
    return widget._component_styles


# --- The terminal driver ---------------------------------------------------------------------


def driver_output(driver: LinuxDriver) -> IO[str] | None:
    """The file Textual's writer thread writes the terminal's bytes to (`Driver._file`)."""
    return driver._file


class TextOutput(Protocol):
    """What the writer thread and the driver use of the terminal's file."""

    def write(self, text: str, /) -> int: ...
    def flush(self) -> None: ...
    def fileno(self) -> int: ...
    def isatty(self) -> bool: ...


def set_driver_output(driver: LinuxDriver, file: TextOutput) -> None:
    """Make Textual's writer thread write to `file` instead."""
    driver._file = file  # type: ignore[assignment]  # any text file will do


# --- Rich's cell widths ----------------------------------------------------------------------


def replace_cell_table(loader: Callable[[str], CellTable]) -> None:
    """Make every width Rich (and Textual through it) measures come from `loader`'s table.

    `rich.cells` reads its table through the module global `load_cell_table` (from the
    private `rich._unicode_data`) in every function, per character and per string; replace
    that global and forget what the two cached functions remembered."""
    import rich.cells

    rich.cells.__dict__["load_cell_table"] = loader
    rich.cells.get_character_cell_size.cache_clear()
    rich.cells.cached_cell_len.cache_clear()


# --- Private methods overridden ---------------------------------------------------------------


class Override:
    """A private method tui-chat overrides: where it is defined, the parameters it is written
    against, and the overrides (for the reader moving the pin)."""

    __slots__ = ("module", "name", "overrides", "owner", "parameters")

    def __init__(self, module: str, owner: str, name: str, parameters: tuple[str, ...],
                 overrides: tuple[str, ...]) -> None:
        self.module = module
        self.owner = owner
        self.name = name
        self.parameters = parameters
        self.overrides = overrides

    def __repr__(self) -> str:
        return f"{self.module}.{self.owner}.{self.name}"


OVERRIDDEN = (
    Override("textual.widget", "Widget", "_size_updated",
             ("self", "size", "virtual_size", "container_size", "layout"),
             ("tui_chat.ui.widgets.message_list.MessageList",
              "tui_chat.ui.widgets.reply_view.ReplyView")),
    Override("textual.app", "App", "_handle_exception", ("self", "error"),
             ("tui_chat.ui.app.TuiChatApp",)),
    Override("textual.app", "App", "_fatal_error", ("self",), ("tui_chat.ui.app.TuiChatApp",)),
    Override("textual.widgets._text_area", "TextArea", "_on_key", ("self", "event"),
             ("tui_chat.ui.widgets.prompt_input.PromptInput",)),
    # PromptInput.render_lines calls Widget's render_lines past TextArea's, which must do
    # nothing but apply its theme's CSS (the test reads its source).
    Override("textual.widgets._text_area", "TextArea", "render_lines", ("self", "crop"),
             ("tui_chat.ui.widgets.prompt_input.PromptInput",)),
    Override("textual_serve.server", "Server", "_make_app", ("self",),
             ("tui_chat.commands.serve.make_server",)),
)
"""The private methods tui-chat overrides (see the module doc)."""
