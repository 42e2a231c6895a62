"""The model picker against the loopback providers: groups, filter, fallback, recent, choice."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.widgets import Input

from tests.fakeprovider import FakeProvider
from tests.ui.conftest import wait_until
from tui_chat.core.config import ProviderConfig, Settings
from tui_chat.core.model_catalog import ModelCatalog
from tui_chat.core.models import ModelInfo
from tui_chat.core.providers import Provider
from tui_chat.ui.screens.model_picker import MAX_SHOWN, ModelChoice, ModelPickerScreen


def settings_for(chutes: FakeProvider, sutra: FakeProvider) -> Settings:
    # SUTRA has no /models: claim it has one so the picker must fall back after a 404.
    return Settings(providers={
        "chutes": ProviderConfig(base_url=chutes.url),
        "sutra": ProviderConfig(base_url=sutra.url, has_models_endpoint=True),
    })


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.results: list[Any] = []


async def open_picker(app: Host, pilot: Any, screen: ModelPickerScreen) -> ModelPickerScreen:
    app.push_screen(screen, app.results.append)
    await pilot.pause()
    await wait_until(pilot, lambda: not screen._refreshing)  # both providers' refresh
    await pilot.pause()
    return screen


def labels(screen: ModelPickerScreen) -> list[str]:
    return [str(option.prompt).strip() for option in screen.option_list.options]


def words(screen: ModelPickerScreen) -> list[str]:
    """The labels with each run of spaces as one (the columns' padding is tested apart)."""
    return [" ".join(label.split()) for label in labels(screen)]


async def test_groups_live_models_and_falls_back_when_models_fails(
        chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_picker(app, pilot, ModelPickerScreen(
            settings_for(chutes_server, sutra_server)))
        shown = labels(screen)
        assert shown[0].startswith("Chutes (chutes)")
        assert "deepseek-ai/DeepSeek-V3-0324   163,840 ctx  $0.27/M in  $1.1/M out" in shown
        assert "Qwen/Qwen3-235B-A22B" in shown
        sutra_at = next(i for i, text in enumerate(shown) if text.startswith("SUTRA"))
        assert "built-in list" in shown[sutra_at]
        assert shown[sutra_at + 1:] == ["sutra-v2", "sutra-r0"]
        status = str(screen.query_one("#status").render())
        assert "Could not list SUTRA's models" in status
        assert "showing the known ones" in status
        assert any(r.path == "/v1/models" for r in chutes_server.requests)
        assert any(r.path == "/v2/models" for r in sutra_server.requests)


async def test_type_to_filter_and_enter_returns_the_choice(
        chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_picker(app, pilot, ModelPickerScreen(
            settings_for(chutes_server, sutra_server)))
        await pilot.press(*"deepseek r1")
        await pilot.pause()
        assert labels(screen) == ["Chutes (chutes)  no key",
                                  "deepseek-ai/DeepSeek-R1   163,840 ctx"]
        await pilot.press("enter")
        await pilot.pause()
    assert app.results == [ModelChoice("chutes", "deepseek-ai/DeepSeek-R1")]


async def test_no_match_says_so_and_escape_returns_none(
        chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_picker(app, pilot, ModelPickerScreen(
            settings_for(chutes_server, sutra_server)))
        await pilot.press(*"zzz nothing")
        await pilot.pause()
        assert labels(screen) == []  # with a space it cannot be a model id either
        assert "No model matches the filter." in str(screen.query_one("#status").render())
        await pilot.press("enter")  # nothing to choose: stays open
        assert app.screen is screen
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_a_model_id_no_list_has_can_be_used_as_typed(
        chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    """Providers add models before their lists show them; SUTRA's list is the known few."""
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_picker(app, pilot, ModelPickerScreen(
            settings_for(chutes_server, sutra_server)))
        await pilot.press(*"org/brand-new-model")
        await pilot.pause()
        assert labels(screen) == ["Use the model id you typed",
                                  "org/brand-new-model   on Chutes, as typed",
                                  "org/brand-new-model   on SUTRA, as typed"]
        status = str(screen.query_one("#status").render())
        assert "No listed model matches the filter." in status
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.results == [ModelChoice("sutra", "org/brand-new-model")]
        screen = await open_picker(app, pilot, ModelPickerScreen(
            settings_for(chutes_server, sutra_server)))
        await pilot.press(*"sutra-v2")  # listed by SUTRA: offered as typed for Chutes only
        await pilot.pause()
        assert labels(screen)[-2:] == ["Use the model id you typed",
                                       "sutra-v2   on Chutes, as typed"]


async def test_recent_first_and_arrow_keys_move_from_the_filter(
        chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    app = Host()
    recent = [ModelChoice("sutra", "sutra-r0"), ModelChoice("chutes", "Qwen/Qwen3-235B-A22B")]
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_picker(app, pilot, ModelPickerScreen(
            settings_for(chutes_server, sutra_server), recent=recent))
        shown = words(screen)
        assert shown[:3] == ["Recently used", "sutra-r0 · SUTRA",
                             "Qwen/Qwen3-235B-A22B · Chutes"]
        assert screen.highlighted_choice() == recent[0]
        await pilot.press("down", "enter")
        await pilot.pause()
    assert app.results == [recent[1]]


async def test_recent_rows_say_which_provider_when_two_share_a_model_id(
        chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    app = Host()
    recent = [ModelChoice("sutra", "deepseek-ai/DeepSeek-V3-0324"),
              ModelChoice("chutes", "deepseek-ai/DeepSeek-V3-0324")]
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await open_picker(app, pilot, ModelPickerScreen(
            settings_for(chutes_server, sutra_server), recent=recent))
        shown = words(screen)
        assert shown[:3] == [
            "Recently used", "deepseek-ai/DeepSeek-V3-0324 · SUTRA",
            "deepseek-ai/DeepSeek-V3-0324 · Chutes 163,840 ctx $0.27/M in $1.1/M out"]


async def test_current_model_is_marked_and_highlighted() -> None:
    app = Host()
    current = ModelChoice("chutes", "deepseek-ai/DeepSeek-R1")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = ModelPickerScreen(Settings(), current=current, refresh=False)
        app.push_screen(screen, app.results.append)
        await pilot.pause()
        assert screen.highlighted_choice() == current
        assert "● deepseek-ai/DeepSeek-R1" in labels(screen)
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_untrusted_model_ids_are_shown_literally_without_controls() -> None:
    nasty = "[bold red]x[/] \x1b]52;c;ZXZpbA==\x07[@click=app.quit]y[/] x[/]"

    async def fetch(provider: Provider) -> list[ModelInfo]:
        return [ModelInfo(id=nasty, provider=provider.name, price="[i]free[/]\x1b[2J")]

    app = Host()
    catalog = ModelCatalog(Settings(), fetch=fetch)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await open_picker(app, pilot, ModelPickerScreen(Settings(), catalog=catalog))
        shown = labels(screen)
        line = next(" ".join(text.split()) for text in shown if "[bold red]" in text)
        assert line == "[bold red]x[/] ]52;c;ZXZpbA==[@click=app.quit]y[/] x[/] [i]free[/][2J"
        assert "\x1b" not in "".join(shown)
        await pilot.press("enter")
        await pilot.pause()
        assert app.is_running
    assert app.results == [ModelChoice("chutes", nasty)]


async def test_a_fresh_list_is_not_asked_again_and_ctrl_r_forces_it(
        chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    settings = settings_for(chutes_server, sutra_server)
    catalog = ModelCatalog(settings)
    app = Host()

    def asked() -> int:
        return sum(r.path == "/v1/models" for r in chutes_server.requests)

    async with app.run_test(size=(100, 30)) as pilot:
        await open_picker(app, pilot, ModelPickerScreen(settings, catalog=catalog))
        await pilot.press("escape")
        screen = await open_picker(app, pilot, ModelPickerScreen(settings, catalog=catalog))
        assert asked() == 1
        assert "163,840 ctx" in "".join(labels(screen))  # from memory, at once
        await pilot.press("ctrl+r")
        await open_picker(app, pilot, screen)  # waits for the refresh
        assert asked() == 2


async def test_typing_while_the_list_has_focus_goes_to_the_filter() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = ModelPickerScreen(Settings(), refresh=False)
        app.push_screen(screen, app.results.append)
        await pilot.pause()
        screen.option_list.focus()
        await pilot.press("r", "0")
        await pilot.pause()
        assert screen.query_one("#filter", Input).value == "r0"
        assert labels(screen)[:2] == ["SUTRA (sutra)  built-in list  no key", "sutra-r0"]
        assert labels(screen)[2] == "Use the model id you typed"  # "r0" itself, listed by none


async def test_a_very_long_list_is_capped_and_says_so() -> None:
    async def fetch(provider: Provider) -> list[ModelInfo]:
        return [ModelInfo(id=f"org/model-{i}", provider=provider.name) for i in range(700)]

    app = Host()
    catalog = ModelCatalog(Settings(), fetch=fetch)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_picker(app, pilot, ModelPickerScreen(Settings(), catalog=catalog))
        rows = [o for o in screen.option_list.options if not o.disabled]
        assert len(rows) == MAX_SHOWN
        status = str(screen.query_one("#status").render())
        assert f"Showing {MAX_SHOWN} models; 202 more match: type to narrow the list." in status
        await pilot.press(*"model-69")
        await pilot.pause()
        assert [str(o.prompt).strip() for o in screen.option_list.options][1:12] == [
            "org/model-69", *(f"org/model-69{i}" for i in range(10))]


CHUTES_LIST = [
    {"id": "a/short", "context_length": 8192, "quantization": "fp8",
     "max_output_length": 4096, "supported_features": ["tools", "reasoning", "json_mode"],
     "confidential_compute": True, "input_modalities": ["text", "image"],
     "pricing": {"prompt": 0.2, "completion": 1.25}},
    {"id": "b/a-much-longer-model-id", "context_length": 163840,
     "pricing": {"prompt": 12, "completion": 0.5}},
    {"id": "c/unpriced", "quantization": "bf16"},
]


async def chutes_picker(app: Host, pilot: Any, server: FakeProvider,
                        **options: Any) -> ModelPickerScreen:
    server.models_list = {"object": "list", "data": CHUTES_LIST}
    settings = Settings(providers={"chutes": ProviderConfig(base_url=server.url)})
    screen = await open_picker(app, pilot, ModelPickerScreen(settings, **options))
    await pilot.press(*"/")  # "/" is in every id here: the Chutes group only
    await pilot.pause()
    return screen


async def test_the_columns_line_up_and_say_what_the_list_says(
        chutes_server: FakeProvider) -> None:
    """Issue 25/27: context and prices in columns; quantization, the longest reply, what the
    model supports and TEE from /v1/models."""
    app = Host()
    async with app.run_test(size=(140, 30)) as pilot:
        screen = await chutes_picker(app, pilot, chutes_server)
        rows = [label for label in labels(screen) if "/" in label][:3]
        short, long, unpriced = rows
        assert short.split("   ", 1)[1].split() == [
            "8,192", "ctx", "$0.2/M", "in", "$1.25/M", "out", "fp8", "·", "out", "4,096", "·",
            "tools", "images", "reasoning", "json", "·", "TEE"]
        assert "bf16" in unpriced
        # The columns start (or, for figures, end) at the same place on each row.
        assert short.index("ctx") == long.index("ctx")
        assert short.index("/M in") == long.index("/M in")
        assert short.index("/M out") == long.index("/M out")
        assert short.index("fp8") == unpriced.index("bf16")


async def test_a_routing_pool_is_picked_as_one_model(chutes_server: FakeProvider) -> None:
    app = Host()
    async with app.run_test(size=(140, 30)) as pilot:
        screen = await chutes_picker(app, pilot, chutes_server)
        await pilot.press("ctrl+o", "down", "down", "ctrl+o", "up")
        await pilot.pause()
        assert [c.model for c in screen.pool] == ["a/short", "c/unpriced"]
        assert screen.query_one("#picker").border_title == "Pick a routing pool"
        marks = [str(option.prompt)[:2] for option in screen.option_list.options
                 if (option.id or "").startswith("p-chutes:") and "header" not in option.id]
        assert marks == ["1+", "  ", "2+"]
        await pilot.press("ctrl+l")
        await pilot.pause()
        status = str(screen.query_one("#status").render())
        assert "Pool (latency: the quickest to its first token): a/short, c/unpriced" in status
        await pilot.press("enter")  # the highlighted one joins the pool
        await pilot.pause()
    assert app.results == [ModelChoice("chutes", "a/short,c/unpriced,b/a-much-longer-model-id"
                                                 ":latency")]


async def test_a_pool_is_chutes_only_and_not_while_comparing(
        chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    app = Host()
    async with app.run_test(size=(140, 30), notifications=True) as pilot:
        screen = await open_picker(app, pilot, ModelPickerScreen(
            settings_for(chutes_server, sutra_server)))
        await pilot.press(*"sutra-v2", "ctrl+o")
        await pilot.pause()
        assert screen.pool == []
        assert any("Only Chutes takes routing pools; SUTRA does not." in str(n.message)
                   for n in app._notifications)
        await pilot.press("escape")
        await pilot.pause()
        comparing = await open_picker(app, pilot, ModelPickerScreen(
            settings_for(chutes_server, sutra_server), several=True))
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert comparing.pool == []
