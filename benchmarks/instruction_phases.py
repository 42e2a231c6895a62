"""Where the instructions to the first frame go, phase by phase: one callgrind run of each side
(tui-chat as benchmarks.instructions starts it, and the bare Textual app), with a profile dump
at every phase boundary. A boundary calls `os.getpgrp()`, which nothing else calls on the way,
and callgrind is told to dump before it (`--dump-before=getpgrp`), so each dump's total is
what one phase cost, to the instruction.

The imports are taken apart by importing, first and in this order, the modules the plain run
has loaded by its first frame (listed by a run without valgrind), group by group: what the
bare app loads, pydantic, `tui_chat.core.models`, the rest of tui-chat's core, the other
third-party and standard modules, Textual's modules beyond the bare app's, tui-chat's UI. Then
the app runs as usual, with its CSS parsing, CSS applying, composing, layout and rendering
wrapped in phases (innermost wins). Its totals differ from benchmarks.instructions's by the
few per cent the phase marks and the pre-imports cost.

Run: `python -m benchmarks.instruction_phases [--config] [--detail] [--kinds]` (needs
valgrind; about a minute; PHASES_EACH_DATACLASS=1 with --kinds: a phase per dataclass).
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DETAIL = bool(os.environ.get("PHASES_DETAIL"))
"""One phase per tui_chat module imported (`--detail`)."""
KINDS = bool(os.environ.get("PHASES_KINDS"))
"""Phases for kinds of work wherever they happen (`--kinds`), innermost first."""
_stack = ["interpreter start"]
_segments: list[str] = []
BARE_SET = ("textual.app", "textual.widgets._text_area", "textual.widgets._footer")


def _boundary() -> None:
    _segments.append(_stack[-1])
    os.getpgrp()  # callgrind dumps here (--dump-before=getpgrp)


@contextmanager
def phase(label: str) -> Iterator[None]:
    _boundary()
    _stack.append(label)
    try:
        yield
    finally:
        _boundary()
        _stack.pop()


def wrap(owner: Any, name: str, label: str) -> None:
    """`owner.name` (a function or an instance method, sync or async) runs as phase `label`."""
    function: Callable[..., Any] = getattr(owner, name)
    wrapped: Callable[..., Any]
    if inspect.iscoroutinefunction(function):
        async def wrapped_async(*args: Any, **kwargs: Any) -> Any:
            with phase(label):
                return await function(*args, **kwargs)
        wrapped = functools.wraps(function)(wrapped_async)
    else:
        def wrapped_sync(*args: Any, **kwargs: Any) -> Any:
            with phase(label):
                return function(*args, **kwargs)
        wrapped = functools.wraps(function)(wrapped_sync)
    setattr(owner, name, wrapped)


def _import_all(names: list[str]) -> None:
    import importlib

    for name in names:
        if name in sys.modules or name == "__main__":
            continue
        try:
            importlib.import_module(name)
        except Exception:
            continue


def _groups(mode: str, loaded: list[str]) -> list[tuple[str, list[str]]]:
    bare_loaded = set(json.loads(os.environ["PHASES_BARE_MODULES"]))
    pydantic = [m for m in loaded if m.split(".")[0] in (
        "pydantic", "pydantic_core", "annotated_types", "typing_inspection")]
    if mode == "bare":
        return [("imports: the bare app's", list(BARE_SET) + loaded)]
    return [
        ("imports: the bare app's", list(BARE_SET) + [m for m in loaded if m in bare_loaded]),
        ("imports: pydantic", pydantic),
        ("imports: tui_chat.core.models", ["tui_chat.core.models"]),
        ("imports: other tui_chat.core", [m for m in loaded if m.startswith("tui_chat.core")]),
        ("imports: other non-Textual", [m for m in loaded if not m.startswith(
            ("tui_chat", "textual"))]),
        ("imports: Textual beyond the bare app's", [m for m in loaded
                                                     if m.startswith("textual")]),
        ("imports: tui_chat UI, commands", [m for m in loaded if m.startswith("tui_chat")]),
    ]


def _wrap_textual() -> None:
    import textual.app
    import textual.widget
    from textual._compositor import Compositor
    from textual.css.stylesheet import Stylesheet
    from textual.screen import Screen
    from textual.widget import Widget

    wrap(Stylesheet, "parse", "css: parse")
    wrap(Stylesheet, "reparse", "css: parse")
    wrap(Stylesheet, "update_nodes", "css: apply to nodes")
    wrap(textual.app.App, "refresh_css", "css: refresh (theme set)")
    wrap(textual.app.App, "get_css_variables", "css: variables")
    wrap(textual.widget, "compose", "compose (widgets built)")
    wrap(textual.app, "compose", "compose (widgets built)")
    wrap(Screen, "_refresh_layout", "layout")
    wrap(Compositor, "render_update", "render")
    wrap(Widget, "_post_register", "register (DEFAULT_CSS added)")


def _wrap_kinds() -> None:
    """Work of a kind, wherever it happens (`--kinds`): defining dataclasses and named
    tuples, compiling regular expressions."""
    import collections
    import dataclasses
    import re

    if os.environ.get("PHASES_EACH_DATACLASS"):  # one phase per dataclass, by module
        process = dataclasses._process_class  # type: ignore[attr-defined]

        def each(cls: type, *args: Any, **kwargs: Any) -> Any:
            with phase(f"  dataclass {cls.__module__}.{cls.__qualname__}"):
                return process(cls, *args, **kwargs)

        dataclasses._process_class = each  # type: ignore[attr-defined]
    else:
        wrap(dataclasses, "_process_class", "kind: dataclass defined")
    wrap(collections, "namedtuple", "kind: namedtuple defined")
    if os.environ.get("PHASES_EACH_REGEX"):  # one phase per compiling module
        compile_regex = re.compile

        def each_regex(pattern: Any, flags: Any = 0) -> Any:
            caller = sys._getframe(1).f_globals.get("__name__", "?")
            with phase(f"  regex in {caller}"):
                return compile_regex(pattern, flags)

        re.compile = each_regex  # type: ignore[assignment]
    else:
        wrap(re, "compile", "kind: regex compiled")


def child(mode: str, out: str, loaded: list[str]) -> None:
    from benchmarks import ui_driver

    if KINDS:
        _wrap_kinds()

    for label, names in _groups(mode, loaded):
        if DETAIL and "tui_chat" in label:  # each module after those it imports: its own cost
            for name in [n for n in names if n not in sys.modules]:
                with phase(f"  {name}"):
                    _import_all([name])
        with phase(label):
            _import_all(names)
    _wrap_textual()
    if mode == "startup":
        from tui_chat.commands import app as commands_app
        from tui_chat.ui import app as ui_app
        from tui_chat.ui import colour_roles, themes

        wrap(commands_app, "build_services", "tui-chat: settings, store, workspace")
        wrap(ui_app.TuiChatApp, "__init__", "tui-chat: app constructed")
        wrap(themes, "install_themes", "tui-chat: themes installed")
        ui_app.install_themes = themes.install_themes
        wrap(colour_roles, "apply", "tui-chat: colour roles")
        wrap(colour_roles, "css_variables", "tui-chat: colour roles")
    _stack.append("run: other (messages, mounting, events)")

    def at_frame() -> None:
        _boundary()
        Path(out).write_text(json.dumps(_segments))
        os._exit(0)

    ui_driver.AT_FRAME = at_frame
    if mode == "startup":
        _run_startup(ui_driver)
    else:
        ui_driver.bare(Path(out + ".json"), 0.0)


def _run_startup(ui_driver: Any) -> None:
    """ui_driver.startup, for an app class already imported."""
    from textual.app import App

    from tui_chat import cli
    from tui_chat.ui import app as ui_app
    from tui_chat.ui.screens.conversation import ConversationScreen

    def painted(app: Any) -> None:
        if (isinstance(app.screen, ConversationScreen) and app.focused is not None
                and app.focused.id == "prompt" and ui_driver.AT_FRAME is not None):
            ui_driver.AT_FRAME()

    ui_app.TuiChatApp.post_display_hook = painted
    ui_app.TuiChatApp.run = lambda self, **_: App.run(self, headless=True,
                                                      size=ui_driver.SIZE)
    cli.main([])


LIST = ("import json, os, sys; from pathlib import Path; from benchmarks import ui_driver\n"
        "def at_frame():\n"
        "    Path(sys.argv[2]).write_text(json.dumps(list(sys.modules))); os._exit(0)\n"
        "ui_driver.AT_FRAME = at_frame\n"
        "getattr(ui_driver, sys.argv[1])(Path(sys.argv[2] + '.json'), 0.0)\n")
CHILD = ("import json, sys; from benchmarks import instruction_phases as p\n"
         "p.child(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]))\n")


def measure(mode: str, *, config: bool = False, detail: bool = False, kinds: bool = False
            ) -> tuple[dict[str, int], int]:
    """Instructions per phase for `mode` (startup or bare), and their total."""
    from benchmarks.bench_ui_startup import ROOT  # not in the child: they import
    from benchmarks.instructions import start_env  # tui-chat's store

    with tempfile.TemporaryDirectory(prefix="tui-chat-phases-") as name:
        folder = Path(name)
        env = start_env(folder, config=config)
        lists = {}
        for side in ("bare", mode):
            listed = subprocess.run(
                [sys.executable, "-X", "importtime", "-c", LIST, side, str(folder / side)],
                env=env, cwd=ROOT, check=True, timeout=120, capture_output=True, text=True)
            lists[side] = json.dumps(_post_order(listed.stderr, (folder / side).read_text()))
        env["PHASES_BARE_MODULES"] = lists["bare"]
        if detail:
            env["PHASES_DETAIL"] = "1"
        if kinds:
            env["PHASES_KINDS"] = "1"
        dump = folder / "callgrind.out"
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", "--dump-before=getpgrp",
             f"--callgrind-out-file={dump}", sys.executable, "-c", CHILD, mode,
             str(folder / "segments"), lists[mode]],
            env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
        segments = json.loads((folder / "segments").read_text())
        costs: dict[str, int] = defaultdict(int)
        for index, label in enumerate(segments, start=1):
            costs[label] += _total(Path(f"{dump}.{index}"))
        leftover = _total(dump) if dump.exists() else 0  # after the last mark: os._exit
        total = sum(costs.values()) + leftover
        assert result.returncode == 0, result.stderr[-2000:]
        return dict(costs), total


def _post_order(importtime: str, modules: str) -> list[str]:
    """The modules loaded, each after those it imported (-X importtime prints a module as its
    import ends), so that importing them in this order costs each module its own work."""
    loaded = json.loads(modules)
    ordered = [line.rsplit("|", 1)[1].strip() for line in importtime.splitlines()
               if line.startswith("import time:") and "|" in line]
    wanted = set(loaded)
    ordered = [name for name in dict.fromkeys(ordered) if name in wanted]
    return ordered + [name for name in loaded if name not in set(ordered)]


def _total(path: Path) -> int:
    with path.open() as lines:
        for line in lines:
            if line.startswith("totals:"):
                return int(line.split()[1])
    raise ValueError(f"no totals in {path}")


def main(argv: list[str]) -> int:
    config, detail, kinds = "--config" in argv, "--detail" in argv, "--kinds" in argv
    bare, bare_total = measure("bare", kinds=kinds)
    app, app_total = measure("startup", config=config, detail=detail, kinds=kinds)
    labels = list(dict.fromkeys([*app, *bare]))
    print(f"{'phase':<48} {'bare M':>9} {'tui-chat M':>11} {'extra M':>9}")
    for label in labels:
        one, other = bare.get(label, 0) / 1e6, app.get(label, 0) / 1e6
        print(f"{label:<48} {one:>9,.1f} {other:>11,.1f} {other - one:>9,.1f}")
    print(f"{'total':<48} {bare_total / 1e6:>9,.1f} {app_total / 1e6:>11,.1f} "
          f"{(app_total - bare_total) / 1e6:>9,.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
