"""Runs in a fresh process for the start-up and history benchmarks; writes JSON to OUT.

`python -m benchmarks.ui_driver startup OUT LAUNCHED`: `tui-chat` as a user starts it
(`tui_chat.cli.main([])`, imports included) but headless at 120×40; writes `ready` = the
wall-clock time (time.time) of the first frame painted with the conversation screen up and
the prompt focused, and `cpu_s` = the process's CPU time then (steadier than the wall time on
a loaded machine), then quits. The parent passes LAUNCHED, its time.time() just before it
started this process, so the figure includes the interpreter's start and every import.

`python -m benchmarks.ui_driver bare OUT LAUNCHED`: the reference for that figure, a bare
Textual app (a TextArea and a Footer, nothing else) started the same way to its first frame
with the text area focused.

`python -m benchmarks.ui_driver history OUT CONVERSATION_ID ROUNDS`: the app on TUI_CHAT_DB,
then opens the conversation as the sidebar does (posts ConversationChosen) and times: to the
first frame with its newest page drawn (`open_s`: the view of the path's last message, its id
read beforehand through a connection of its own, drawn at the bottom of the list); to the
moment the whole path is read (`whole_s`: the message list holds all of it, so Home, branch
keys and sends no longer wait; it is read newest first, the rest after that first frame);
VmRSS after; then ROUNDS × Home and End in the focused message list, each to the first frame
at the top (the first message drawn, scroll 0) and at the bottom (the last message drawn,
scrolled to the end).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

SIZE = (120, 40)
AT_FRAME: Callable[[], None] | None = None
"""Called at the first ready frame of `startup` and `bare`, before anything else
(benchmarks/instructions.py ends the process there)."""


def startup(out: Path, launched: float) -> None:
    """Nothing of the app is imported before `cli.main` runs, as in `tui-chat` itself (which
    pauses collections for its imports): the app class is patched as it is imported."""
    from tui_chat import cli

    result: dict[str, float] = {}

    def painted(app: Any) -> None:
        from tui_chat.ui.screens.conversation import ConversationScreen

        if ("ready" not in result and isinstance(app.screen, ConversationScreen)
                and app.focused is not None and app.focused.id == "prompt"):
            if AT_FRAME is not None:
                AT_FRAME()
            result["ready"] = time.time()
            result["cpu_s"] = time.process_time()
            app.exit(0)

    def headless(app_class: Any) -> None:
        from textual.app import App

        def headless_run(app: App[Any], **kwargs: Any) -> Any:
            return App.run(app, headless=True, size=SIZE)

        app_class.post_display_hook = painted
        app_class.run = headless_run

    sys.meta_path.insert(0, _WhenImported("tui_chat.ui.app", lambda m: headless(m.TuiChatApp)))
    code = cli.main([])
    result["launched"] = launched
    result["ready_s"] = result["ready"] - launched
    result["code"] = code
    out.write_text(json.dumps(result))


class _WhenImported(importlib.abc.MetaPathFinder):
    """Calls `then(module)` once the module `name` has been imported (executed)."""

    def __init__(self, name: str, then: Callable[[ModuleType], None]) -> None:
        self.name, self.then = name, then

    def find_spec(self, name: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if name != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.loader is not None
        loader, then = spec.loader, self.then

        class Patching(importlib.abc.Loader):
            def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
                return loader.create_module(spec)

            def exec_module(self, module: ModuleType) -> None:
                loader.exec_module(module)
                then(module)

        spec.loader = Patching()
        return spec


def bare(out: Path, launched: float) -> None:
    from textual.app import App, ComposeResult
    from textual.widgets import Footer, TextArea

    result: dict[str, float] = {}

    class Bare(App[int]):
        def compose(self) -> ComposeResult:
            yield TextArea(id="prompt")
            yield Footer()

        def post_display_hook(self) -> None:
            if "ready" not in result and isinstance(self.focused, TextArea):
                if AT_FRAME is not None:
                    AT_FRAME()
                result["ready"] = time.time()
                result["cpu_s"] = time.process_time()
                self.exit(0)

    code = Bare().run(headless=True, size=SIZE)
    result.update(launched=launched, ready_s=result["ready"] - launched, code=code or 0)
    out.write_text(json.dumps(result))


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def history(out: Path, conversation_id: str, rounds: int) -> dict[str, Any]:
    import asyncio

    from benchmarks.common import timer
    from benchmarks.ui_harness import FrameClock, last_view, running_app, send_key
    from tui_chat.core import paths
    from tui_chat.core.store import Store
    from tui_chat.ui.widgets.conversation_list import ConversationList
    from tui_chat.ui.widgets.message_view import MessageView

    result: dict[str, Any] = {"home_s": [], "end_s": []}
    with Store.open(paths.store_file()) as own:  # not the app's: its cache stays cold
        newest = own.get_messages(conversation_id, limit=1)
        last_id = newest[-1].id if newest else None
    async with running_app("http://127.0.0.1:9/v1", Path(out).parent,
                           store_path=paths.store_file()) as (app, pilot, screen):
        clock = FrameClock(app)
        messages = screen.message_list

        def at_bottom() -> bool:
            view = last_view(screen)
            total = len(messages.messages)
            return (total > 0 and view is not None and view.message is messages.messages[-1]
                    and messages.scroll_y >= messages.max_scroll_y)

        def at_top() -> bool:
            first = messages.children[0] if messages.children else None
            return (isinstance(first, MessageView) and bool(messages.messages)
                    and first.message is messages.messages[0] and messages.scroll_y == 0)

        def newest_drawn() -> bool:
            view = last_view(screen)
            return (view is not None and view.message.id == last_id
                    and messages.scroll_y >= messages.max_scroll_y)

        result["rss_before_mb"] = rss_mb()
        shown = clock.when(newest_drawn)
        began = timer()
        screen.post_message(ConversationList.ConversationChosen(conversation_id))
        result["open_s"] = await asyncio.wait_for(shown, 60) - began
        await asyncio.wait_for(messages.whole_path(), 60)
        result["whole_s"] = timer() - began
        await pilot.pause()
        result["rss_mb"] = rss_mb()
        result["messages"] = len(messages.messages)
        messages.focus()
        await pilot.pause()
        for _ in range(rounds):
            for key, check, bucket in (("home", at_top, "home_s"), ("end", at_bottom, "end_s")):
                await pilot.pause(0.1)
                seen = clock.when(check)
                began = timer()
                send_key(app, key)
                result[bucket].append(await asyncio.wait_for(seen, 30) - began)
    return result


def main(argv: list[str]) -> None:
    mode, out = argv[0], Path(argv[1])
    if mode in ("startup", "bare"):
        (startup if mode == "startup" else bare)(out, float(argv[2]))
    else:
        import asyncio

        out.write_text(json.dumps(asyncio.run(history(out, argv[2], int(argv[3])))))


if __name__ == "__main__":
    main(sys.argv[1:])
