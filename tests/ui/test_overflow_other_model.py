"""The overflow dialog's "Other model" (m) opens the picker filtered to the models whose
window is larger than what the message needs (core.context.needed_window), of every
provider, largest first; the filter still narrows them, and a model picked sends the
message."""

from __future__ import annotations

import copy
from typing import Any

from tests.fakeprovider import PRICED_MODELS, FakeProvider
from tests.ui.conftest import AppFactory, conversation, wait_idle, wait_until
from tests.ui.test_context_cost import LONG, send
from tui_chat.ui.screens.context_offer import ContextOverflowScreen
from tui_chat.ui.screens.model_picker import ModelPickerScreen

WINDOWS = {"fake/tiny": 1024, "fake/mid": 4096, "fake/huge": 262144}


async def listed(app: Any, server: FakeProvider) -> None:
    models = copy.deepcopy(PRICED_MODELS)
    models["data"] += [{"id": name, "object": "model", "context_length": window}
                       for name, window in WINDOWS.items()]
    server.models_list = models
    server.count_usage = True
    await app.workspace.catalog.refresh(app.workspace.provider)


def rows(picker: ModelPickerScreen) -> list[tuple[str, int | None]]:
    listing = picker.option_list
    shown = [picker._rows[o.id] for o in listing.options if o.id in picker._rows]
    return [(row.choice.model, row.info.context_length if row.info else None)
            for row in shown]


async def overflowed_picker(pilot: Any, screen: Any) -> ModelPickerScreen:
    app = pilot.app
    await send(pilot, LONG)
    screen.prompt.load_text(LONG * 12)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, ContextOverflowScreen))
    await pilot.press("m")
    await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
    picker = app.screen
    assert isinstance(picker, ModelPickerScreen)
    await wait_until(pilot, lambda: bool(rows(picker)))
    return picker


async def test_other_model_lists_only_larger_windows_largest_first(
        make_app: AppFactory, chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/small")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = conversation(app)
        picker = await overflowed_picker(pilot, screen)
        needed = picker.min_window
        assert needed is not None and 2048 < needed < 4096  # more than fake/small's window
        shown = rows(picker)
        assert [model for model, _ in shown] == [
            "fake/huge", "fake/large", "fake/unpriced", "fake/mid"]
        windows = [window for _, window in shown]
        assert windows == sorted(windows, reverse=True)  # type: ignore[type-var]
        assert all(window is not None and window > needed for window in windows)
        assert picker.query_one("#picker").border_title == "Pick a model with a larger window"
        await pilot.press(*"large")  # the filter still narrows them
        await wait_until(pilot, lambda: [m for m, _ in rows(picker)] == ["fake/large"])
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is screen)
        await wait_idle(pilot)
        body = chutes_server.requests[-1].body
        assert body["model"] == "fake/large" and body["messages"][-1]["content"] == LONG * 12


async def test_f2_still_lists_every_model(make_app: AppFactory,
                                          chutes_server: FakeProvider) -> None:
    app = make_app(model="fake/small")
    await listed(app, chutes_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        picker = app.screen
        assert isinstance(picker, ModelPickerScreen) and picker.min_window is None
        await wait_until(pilot, lambda: {"fake/tiny", "fake/small"}
                         <= {m for m, _ in rows(picker)})
