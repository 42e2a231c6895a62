"""Comparing models in the app, headless at 120×40, against the fake provider in its own process:
two floods at once cost at most twice one.

- one: a 2,000-chunk Markdown reply (benchmarks/textgen.py, `bench/markdown-2000`) at full
  loopback speed, sent as usual: from Enter to the first frame painted (ui_harness) with the
  finished reply in the message list (as `ui_stream` measures it);
- two: the same prompt compared on two providers at once (Chutes and a second provider
  configured on the same fake server), each streaming the same 2,000-chunk reply: from Enter
  to the first frame with both columns finished (each a message view holding the whole text).

Figure: median(two) / median(one) ≤ 2.0 (both medians printed, RUNS fresh apps each).
Run: `python -m benchmarks ui_compare`.
"""

from __future__ import annotations

# isort: off
import tui_chat.ui  # noqa: F401  (before Textual: it sets the app's frame rate)
# isort: on
import asyncio
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from benchmarks.common import (
    Figure,
    fake_provider_process,
    figure,
    info,
    machine_reference,
    median,
    report,
    timer,
)
from benchmarks.textgen import markdown_chunks
from benchmarks.ui_harness import SIZE, FrameClock, reply_shown
from tui_chat.core.config import ProviderConfig, Settings
from tui_chat.core.secrets import Secret
from tui_chat.core.store import Store
from tui_chat.ui.app import TuiChatApp
from tui_chat.ui.screens.conversation import ConversationScreen
from tui_chat.ui.services import AppServices
from tui_chat.ui.widgets.message_view import MessageView

RUNS = 3
MODEL = "bench/markdown-2000"


@asynccontextmanager
async def two_provider_app(url: str, folder: Path
                           ) -> AsyncIterator[tuple[TuiChatApp, Pilot[Any], ConversationScreen]]:
    settings = Settings(providers={"mirror": ProviderConfig(
        base_url=url, api_key=Secret("bench-key"), models=[MODEL])})
    with Store.open(folder / "store.sqlite3") as store:
        services = AppServices.create(settings, store, config_path=folder / "config.toml",
                                      env={"CHUTES_BASE_URL": url, "CHUTES_API_KEY": "bench"},
                                      model=MODEL)
        app = TuiChatApp(services)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()  # the warm-up thread, as a user finds it
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ConversationScreen)
            yield app, pilot, screen


def both_shown(screen: ConversationScreen, expected: str) -> Callable[[], bool]:
    def shown() -> bool:
        view = screen.comparison
        if view is None or view.streaming:
            return False
        columns = view.columns
        return len(columns) == 2 and all(
            column.reply is None and any(isinstance(w, MessageView) and w.is_mounted
                                         and w.message.content == expected
                                         for w in column.children)
            for column in columns)
    return shown


async def once(url: str, expected: str, *, compare: bool) -> float:
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        async with two_provider_app(url, Path(name)) as (app, pilot, screen):
            clock = FrameClock(app)
            if compare:
                screen.workspace.choose_several([("chutes", MODEL), ("mirror", MODEL)])
            screen.prompt.load_text("go")
            done = clock.when(both_shown(screen, expected) if compare
                              else reply_shown(screen, expected))
            began = timer()
            await pilot.press("enter")
            return await asyncio.wait_for(done, 120) - began


async def measure(url: str) -> dict[str, Figure]:
    reference = machine_reference()
    expected = "".join(markdown_chunks(2000))
    await once(url, expected, compare=False)  # warm up
    ones, twos = [], []
    for _ in range(RUNS):
        ones.append(await once(url, expected, compare=False))
        twos.append(await once(url, expected, compare=True))
    print(f"  one: {[round(v, 2) for v in ones]} s; two at once: "
          f"{[round(v, 2) for v in twos]} s", flush=True)
    return {
        "ui.compare_machine_reference_s": info(reference, "s"),
        "ui.compare_one_flood_s": info(median(ones), "s"),
        "ui.compare_two_floods_s": info(median(twos), "s"),
        "ui.compare_two_over_one": figure(median(twos) / median(ones), 2.0, "x"),
    }


def run() -> dict[str, Figure]:
    with fake_provider_process() as url:
        return asyncio.run(measure(url))


if __name__ == "__main__":
    report("ui_compare", run())
