"""Each private part of Textual, Rich or textual-serve that tui-chat relies on, one test each
(`tui_chat/ui/textual_compat.py`): a release that moves or changes one fails the test named
after it, not the app. Then two guards: nothing else in tui-chat reaches a private part, and
every private method overridden is listed in `OVERRIDDEN`.

Run this file first when moving the UI pin (ARCHITECTURE.md, "Moving the Textual pin")."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
import rich.cells
from rich.cells import CellTable
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.layouts.stream import StreamLayout
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import Footer, Static, TextArea
from textual.widgets.text_area import TextAreaTheme

from tui_chat.ui import textual_compat
from tui_chat.ui.textual_compat import OVERRIDDEN, FooterKey, Override

ROOT = Path(__file__).resolve().parents[2] / "tui_chat"


class Tall(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("\n".join(map(str, range(200))))


# --- The app ------------------------------------------------------------------------------


async def test_textual_context_active_app_is_what_running_app_reads() -> None:
    assert textual_compat.running_app() is None
    app = Tall()
    async with app.run_test():
        assert textual_compat.running_app() is app
        assert app.screen.app is app  # what `widget.app` reads too


async def test_app_thread_id_is_the_event_loop_thread() -> None:
    app = Tall()
    async with app.run_test():
        assert textual_compat.app_thread_id(app) == threading.get_ident()


def test_app_exit_renderables_are_printed_after_the_app() -> None:
    app = App[None]()
    renderables = textual_compat.exit_renderables(app)
    assert renderables == []
    renderables.append(Text("one sentence"))
    assert "_exit_renderables" in inspect.getsource(App._print_error_renderables)


def test_app_close_messages_no_wait_takes_nothing() -> None:
    assert list(inspect.signature(App._close_messages_no_wait).parameters) == ["self"]


def test_dom_node_inherit_bindings_follows_the_class_statement() -> None:
    class Fresh(Widget, inherit_bindings=False):
        pass

    class Inherits(Widget):
        pass

    assert textual_compat.inherits_bindings(Inherits)
    assert not textual_compat.inherits_bindings(Fresh)


# --- Layout and painting ------------------------------------------------------------------


async def test_widget_anchor_released_follows_release_anchor() -> None:
    app = Tall()
    async with app.run_test() as pilot:
        scroll = app.query_one(VerticalScroll)
        scroll.anchor()
        await pilot.pause()
        assert not textual_compat.anchor_released(scroll)
        scroll.release_anchor()
        assert textual_compat.anchor_released(scroll)


def test_widget_styles_cache_clears() -> None:
    widget = Widget()
    textual_compat.clear_styles_cache(widget)  # a StylesCache with clear()
    assert type(widget._styles_cache).__name__ == "StylesCache"


async def test_widget_clear_arrangement_cache_forgets_the_arrangement() -> None:
    app = Tall()
    async with app.run_test():
        scroll = app.query_one(VerticalScroll)
        arranged = scroll.arrange(scroll.size)
        assert scroll.arrange(scroll.size) is arranged  # kept
        textual_compat.clear_arrangement_cache(scroll)
        assert scroll.arrange(scroll.size) is not arranged


def test_stream_layout_cached_placements_is_forgotten() -> None:
    layout = StreamLayout()
    assert hasattr(layout, "_cached_placements")
    textual_compat.forget_stream_placements(layout)
    assert layout._cached_placements is None


async def test_widget_size_and_container_size_are_the_last_layout() -> None:
    app = Tall()
    async with app.run_test(size=(40, 12)):
        scroll = app.query_one(VerticalScroll)
        assert textual_compat.laid_out_size(scroll) == scroll.region.size == Size(40, 12)
        assert textual_compat.laid_out_container_size(scroll) == Size(40, 12)
        textual_compat.set_laid_out_size(scroll, Size(40, 13))
        assert textual_compat.laid_out_size(scroll) == Size(40, 13)


async def test_widget_vertical_scrollbar_is_none_until_made() -> None:
    assert textual_compat.vertical_scrollbar(Widget()) is None
    app = Tall()
    async with app.run_test(size=(40, 12)):
        scroll = app.query_one(VerticalScroll)
        assert textual_compat.vertical_scrollbar(scroll) is scroll.vertical_scrollbar


def test_scrollbar_repaint_required_is_a_flag() -> None:
    bar = ScrollBar()
    bar._repaint_required = True
    textual_compat.skip_scrollbar_repaint(bar)
    assert bar._repaint_required is False
    assert "if self._repaint_required:" in inspect.getsource(Widget)  # read when painting


async def test_widget_pruning_while_removed() -> None:
    app = Tall()
    async with app.run_test():
        scroll = app.query_one(VerticalScroll)
        assert textual_compat.is_pruning(scroll) is False
        removing = scroll.remove()
        assert textual_compat.is_pruning(scroll) is True
        await removing


# --- Widgets ----------------------------------------------------------------------------------


def test_footer_key_is_made_as_fitted_footer_makes_it() -> None:
    assert issubclass(FooterKey, Widget)
    key = FooterKey("f1", "F1", "Help", "help", disabled=False, tooltip="", classes="x")
    assert (key.key, key.key_display, key.description, key.action) == ("f1", "F1", "Help",
                                                                         "help")


async def test_footer_bindings_ready_once_mounted() -> None:
    assert textual_compat.footer_bindings_ready(Footer()) is False

    class WithFooter(App[None]):
        def compose(self) -> ComposeResult:
            yield Footer()

    app = WithFooter()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert textual_compat.footer_bindings_ready(app.query_one(Footer)) is True


async def test_text_area_theme_and_component_styles() -> None:
    class WithArea(App[None]):
        def compose(self) -> ComposeResult:
            yield TextArea()

    app = WithArea()
    async with app.run_test():
        area = app.query_one(TextArea)
        assert isinstance(textual_compat.text_area_theme(area), TextAreaTheme)
        assert "text-area--cursor" in textual_compat.component_styles(area)


# --- The terminal driver ---------------------------------------------------------------------


async def test_linux_driver_file_is_what_its_writer_thread_writes_to() -> None:
    from textual.drivers.linux_driver import LinuxDriver

    driver = LinuxDriver(App[None]())
    output = textual_compat.driver_output(driver)
    assert output is not None and hasattr(output, "write")
    textual_compat.set_driver_output(driver, output)
    source = inspect.getsource(LinuxDriver.start_application_mode)
    assert "WriterThread(self._file)" in source


# --- Rich's cell widths ----------------------------------------------------------------------


def test_rich_cells_load_cell_table_is_read_by_every_width() -> None:
    before = rich.cells.__dict__["load_cell_table"]
    was = rich.cells.cell_len("x\u0940")
    asked: list[str] = []
    original = before("auto")
    # A spacing vowel sign, no cell for Rich: one here (as tui_chat.ui.cells counts it).
    one_cell = CellTable(original.unicode_version, [(0x0940, 0x0940, 1)], frozenset())

    def load(unicode_version: str = "auto") -> CellTable:
        asked.append(unicode_version)
        return one_cell

    try:
        textual_compat.replace_cell_table(load)
        assert rich.cells.get_character_cell_size("\u0940") == 1
        assert rich.cells.cell_len("x\u0940") == 2
        assert asked
    finally:
        textual_compat.replace_cell_table(before)
    assert rich.cells.cell_len("x\u0940") == was


# --- Private methods overridden ---------------------------------------------------------------


def _resolve(override: Override) -> Callable[..., object]:
    owner = getattr(importlib.import_module(override.module), override.owner)
    method: Callable[..., object] = getattr(owner, override.name)
    return method


@pytest.mark.parametrize("override", OVERRIDDEN, ids=repr)
def test_overridden_private_method_has_the_signature_written_against(override: Override
                                                                     ) -> None:
    method = _resolve(override)
    assert list(inspect.signature(method).parameters) == list(override.parameters), override


def test_text_area_render_lines_only_applies_the_theme_css() -> None:
    """PromptInput.render_lines skips TextArea's and applies its theme's CSS itself."""
    source = inspect.cleandoc("\n" + inspect.getsource(TextArea.render_lines))
    body = ast.parse(source).body[0]
    assert isinstance(body, ast.FunctionDef)
    assert [type(statement).__name__ for statement in body.body] == ["Assign", "If", "Return"]
    assert "apply_css(self)" in source and "super().render_lines(crop)" in source


def _ui_classes() -> list[type]:
    import tui_chat.ui

    classes: list[type] = []
    for module_info in pkgutil.walk_packages(tui_chat.ui.__path__, "tui_chat.ui."):
        module = importlib.import_module(module_info.name)
        classes += [value for value in vars(module).values()
                    if inspect.isclass(value) and value.__module__ == module.__name__]
    return classes


def test_every_private_method_overridden_is_listed() -> None:
    """A private method of Textual's that a tui-chat class defines again is in OVERRIDDEN."""
    listed = {(override.name, path) for override in OVERRIDDEN for path in override.overrides}
    found = set()
    for cls in _ui_classes():
        for name, value in vars(cls).items():
            if not (name.startswith("_") and not name.startswith("__")
                    and inspect.isfunction(value)):
                continue
            for base in cls.__mro__[1:]:
                if base.__module__.split(".")[0] in ("textual", "rich") and name in vars(base):
                    found.add((name, f"{cls.__module__}.{cls.__qualname__}"))
    assert found <= listed, sorted(found - listed)


# --- Nothing else reaches a private part ------------------------------------------------------

ALLOWED = {"_replace", "_exit"}  # namedtuple's and os's, public despite the underscore


@cache
def _their_private_names() -> frozenset[str]:
    """The private names Textual, Rich and textual-serve define (methods, attributes set,
    class attributes)."""
    names: set[str] = set()
    for package in ("textual", "rich", "textual_serve"):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin is not None
        for path in Path(spec.origin).parent.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(node.name)
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                    names.add(node.attr)
                elif isinstance(node, ast.ClassDef):
                    names.update(_class_level_names(node))
    return frozenset(name for name in names
                     if name.startswith("_") and not name.startswith("__"))


def _class_level_names(node: ast.ClassDef) -> set[str]:
    names: set[str] = set()
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(statement.name)
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names.add(statement.target.id)
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
                    if target.id == "__slots__":
                        names.update(str(element.value) for element in ast.walk(statement.value)
                                     if isinstance(element, ast.Constant))
    return names


def _own_names(tree: ast.Module) -> set[str]:
    """What a module's own classes define: methods, class attributes, slots, and attributes
    set in `__init__`."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        names.update(_class_level_names(node))
        for statement in node.body:
            if isinstance(statement, ast.FunctionDef) and statement.name == "__init__":
                names.update(target.attr for target in ast.walk(statement)
                             if isinstance(target, ast.Attribute)
                             and isinstance(target.ctx, ast.Store))
    return names


def _private_module(name: str) -> bool:
    parts = name.split(".")
    return parts[0] in ("textual", "rich", "textual_serve") and any(
        part.startswith("_") for part in parts[1:])


def test_nothing_else_reaches_a_private_part() -> None:
    theirs = _their_private_names()
    reached = []
    for path in sorted(ROOT.rglob("*.py")):
        if path.name == "textual_compat.py" or "core" in path.relative_to(ROOT).parts:
            continue
        tree = ast.parse(path.read_text("utf-8"))
        own = _own_names(tree)
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT.parent)}:{getattr(node, 'lineno', 0)}"
            if (isinstance(node, ast.Attribute) and node.attr in theirs
                    and node.attr not in own and node.attr not in ALLOWED):
                reached.append(f"{where} .{node.attr}")
            elif isinstance(node, ast.ImportFrom) and _private_module(node.module or ""):
                reached.append(f"{where} from {node.module}")
            elif isinstance(node, ast.Import):
                reached += [f"{where} import {alias.name}" for alias in node.names
                            if _private_module(alias.name)]
    assert reached == [], "reach these through tui_chat/ui/textual_compat.py: " + str(reached)


def test_styles_cache_get_inner_outer_is_replaced_by_a_plain_function() -> None:
    """`StylesCache.get_inner_outer` (textual._styles_cache) exists, is what `render_line`
    calls, and is replaced once, however often asked."""
    import inspect

    from textual._styles_cache import StylesCache
    from textual.color import Color

    assert "self.get_inner_outer(" in inspect.getsource(StylesCache.render_line)
    calls: list[tuple[Color, Color]] = []

    def inner_outer(base: Color, background: Color) -> tuple[str, str]:
        calls.append((base, background))
        return ("inner", "outer")

    before = StylesCache.__dict__["get_inner_outer"]
    try:
        textual_compat.replace_get_inner_outer(inner_outer)
        replaced = StylesCache.__dict__["get_inner_outer"]
        textual_compat.replace_get_inner_outer(inner_outer)
        assert StylesCache.__dict__["get_inner_outer"] is replaced
        red, blue = Color(255, 0, 0), Color(0, 0, 255)
        assert StylesCache().get_inner_outer(red, blue) == ("inner", "outer")
        assert calls == [(red, blue)]
    finally:
        StylesCache.get_inner_outer = before  # type: ignore[method-assign]
