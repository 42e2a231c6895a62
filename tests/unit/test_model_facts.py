"""Model facts: /models entries as Chutes spells them, config.toml's [models] over them, the
catalog answering for one model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeprovider import PRICED_MODELS, FakeProvider
from tui_chat.core.chunks import model_info_from
from tui_chat.core.config import ProviderConfig, Settings, load_settings
from tui_chat.core.errors import ConfigError
from tui_chat.core.model_catalog import ModelCatalog
from tui_chat.core.model_facts import ModelSettings, merged


def test_a_chutes_entry_gives_window_prices_and_modalities() -> None:
    info = model_info_from("chutes", {
        "id": "Qwen/Qwen3-VL", "max_model_len": 65536, "input_modalities": ["text", "image"],
        "price": {"input": {"tao": 0.001, "usd": 0.3}, "output": {"tao": 0.002, "usd": 1.2}},
        "pricing": {"prompt": 0.3, "completion": 1.2}})
    assert info is not None
    assert (info.context_length, info.input_price, info.output_price) == (65536, 0.3, 1.2)
    assert info.input_modalities == ("text", "image") and info.takes_images


@pytest.mark.parametrize("entry", [
    {"id": "a", "pricing": {"prompt": "0.5", "completion": "2"}},
    {"id": "a", "price": {"input": {"usd": 0.5}, "output": {"usd": 2}}},
    {"id": "a", "pricing": {"input": 0.5, "output": "2.0"}},
])
def test_prices_in_each_spelling_are_usd_per_million(entry: dict[str, object]) -> None:
    info = model_info_from("chutes", entry)
    assert info is not None and (info.input_price, info.output_price) == (0.5, 2.0)


@pytest.mark.parametrize("entry", [
    {"id": "a"},
    {"id": "a", "pricing": {"prompt": "free", "completion": 1}},
    {"id": "a", "pricing": {"prompt": -1, "completion": 1}},
    {"id": "a", "pricing": {"prompt": 1}},
    {"id": "a", "pricing": "cheap", "context_length": "lots", "input_modalities": "text"},
    {"id": "a", "context_length": True, "pricing": {"prompt": True, "completion": 1}},
    {"id": "a", "context_length": 1e400},
])
def test_odd_fields_are_unknown_not_an_error(entry: dict[str, object]) -> None:
    info = model_info_from("chutes", entry)
    assert info is not None and info.id == "a"
    assert info.input_price is None and info.output_price is None and not info.priced
    assert info.context_length is None and not info.takes_images


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_config_sets_a_models_facts_by_provider_and_id(tmp_path: Path) -> None:
    settings = load_settings(write_config(tmp_path, """
[models."chutes:deepseek-ai/DeepSeek-V3-0324"]
context_length = 65536
input_price = 0.3
output_price = 1.2
images = true

[models."local:llama3:8b"]
context_length = 8192

[providers.local]
base_url = "http://127.0.0.1:9/v1"
"""))
    own = settings.model_settings("chutes", "deepseek-ai/DeepSeek-V3-0324")
    assert own == ModelSettings(context_length=65536, input_price=0.3, output_price=1.2,
                                images=True)
    assert settings.model_settings("local", "llama3:8b") == ModelSettings(context_length=8192)
    assert settings.model_settings("sutra", "deepseek-ai/DeepSeek-V3-0324") is None


@pytest.mark.parametrize(("text", "where", "problem"), [
    ('[models."deepseek"]\ncontext_length = 1', "models", "must be \"provider:model-id\""),
    ('[models."nope:m"]\ncontext_length = 1', "models", "'nope', which is not configured"),
    ('[models."chutes:m"]\ncontext_length = 0', "models.chutes:m.context_length",
     "greater than 0"),
    ('[models."chutes:m"]\ninput_price = -1', "models.chutes:m.input_price", "greater than"),
    ('[models."chutes:m"]\nimage = true', "models.chutes:m.image", "unknown key"),
])
def test_a_bad_models_entry_is_one_sentence_naming_it(tmp_path: Path, text: str, where: str,
                                                       problem: str) -> None:
    path = write_config(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    assert f"at '{where}'" in caught.value.message and problem in caught.value.message
    assert str(path) in caught.value.message


async def test_the_catalog_gives_listed_facts_with_the_users_over_them(
        chutes_server: FakeProvider, tmp_path: Path) -> None:
    chutes_server.models_list = PRICED_MODELS
    settings = Settings(providers={"chutes": ProviderConfig(base_url=chutes_server.url)},
                        models={"chutes:fake/small": ModelSettings(context_length=4096,
                                                                   images=True),
                                "chutes:not/listed": ModelSettings(input_price=1,
                                                                   output_price=3)})
    catalog = ModelCatalog(settings, cache_file=tmp_path / "models.json")
    chutes = settings.resolve_provider("chutes")
    before = catalog.facts(chutes, "fake/small")  # nothing listed yet: the user's alone
    assert (before.context_length, before.input_price, before.takes_images) == (4096, None, True)
    assert catalog.facts(chutes, "fake/large").context_length is None
    assert not catalog.knows_facts(chutes)
    await catalog.refresh(chutes)
    assert catalog.knows_facts(chutes)
    small = catalog.facts(chutes, "fake/small")
    assert (small.context_length, small.input_price, small.output_price) == (4096, 0.5, 2.0)
    assert small.takes_images and small.input_modalities == ("text", "image")
    large = catalog.facts(chutes, "fake/large")
    assert (large.context_length, large.input_price, large.output_price) == (131072, 0.25, 1.0)
    assert large.takes_images
    unlisted = catalog.facts(chutes, "not/listed")
    assert (unlisted.input_price, unlisted.output_price, unlisted.price) == (1, 3, "in 1 / out 3")
    assert unlisted.context_length is None
    reread = ModelCatalog(settings, cache_file=tmp_path / "models.json")  # from the disk cache
    assert reread.facts(chutes, "fake/large").input_price == 0.25


def test_which_models_take_tools() -> None:
    """Chutes lists "tools" in `supported_features`; `tools = true` in config says so for a
    custom provider's model; without either, a model takes none."""
    listed = model_info_from("chutes", {"id": "a", "supported_features": ["json_mode", "tools"]})
    unlisted = model_info_from("chutes", {"id": "b", "supported_features": ["json_mode"]})
    assert listed is not None and listed.takes_tools
    assert unlisted is not None and not unlisted.takes_tools
    assert not merged(None, "sutra", "sutra-v2", None).takes_tools
    assert merged(None, "mine", "m", ModelSettings(tools=True)).takes_tools
    assert not merged(listed, "chutes", "a", ModelSettings(tools=False)).takes_tools
