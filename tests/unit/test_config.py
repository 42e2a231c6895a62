from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tui_chat.core.config import (
    ProviderConfig,
    Settings,
    load_settings,
    move_aside,
    save_settings,
)
from tui_chat.core.errors import ConfigError, MissingKeyError, UnknownProviderError
from tui_chat.core.providers import mask_key
from tui_chat.core.secrets import Secret


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    settings = load_settings(tmp_path / "none.toml")
    assert settings.default_provider == "chutes"
    assert settings.timeouts.first_byte >= 300  # cold starts take minutes


def test_not_toml_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", "this is = = not toml")
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    assert str(path) in caught.value.message
    assert "not valid TOML" in caught.value.message


def test_wrong_type_names_the_key(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", '[parameters]\ntemperature = "hot"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    assert "parameters.temperature" in caught.value.message


def test_unknown_key_is_named(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", "colour = 'red'\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    assert "'colour'" in caught.value.message and "unknown key" in caught.value.message


def test_unreadable_file_is_reported(tmp_path: Path) -> None:
    # Tests run as root in CI, where mode 000 is still readable: a directory in the file's
    # place fails the read the same way (OSError) for every user.
    path = tmp_path / "config.toml"
    path.mkdir()
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    assert str(path) in caught.value.message and "Cannot read" in caught.value.message


def test_environment_key_wins_over_config() -> None:
    settings = Settings(providers={"chutes": ProviderConfig(api_key=Secret("cpk_fromfile"))})
    provider = settings.resolve_provider("chutes", env={"CHUTES_API_KEY": " cpk_fromenv\n"})
    assert provider.api_key is not None
    assert provider.api_key.get_secret_value() == "cpk_fromenv"
    assert provider.key_source == "environment"
    assert settings.resolve_provider("chutes", env={}).key_source == "config"


def test_pasted_key_is_trimmed() -> None:
    settings = Settings.model_validate({"providers": {"sutra": {"api_key": "  sk-x \n"}}})
    assert settings.require_key(settings.resolve_provider("sutra", env={})) == "sk-x"


def test_base_url_environment_override() -> None:
    settings = Settings()
    provider = settings.resolve_provider("sutra", env={"SUTRA_BASE_URL": "http://127.0.0.1:9/v2/"})
    assert provider.base_url == "http://127.0.0.1:9/v2"
    assert settings.resolve_provider("sutra", env={}).base_url == "https://api.two.ai/v2"


def test_custom_provider_from_config(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", """
[providers.local]
display_name = "Local"
base_url = "http://127.0.0.1:8080/v1"
api_key_env = "LOCAL_KEY"
models = ["llama"]
""")
    settings = load_settings(path)
    provider = settings.resolve_provider("local", env={"LOCAL_KEY": "k"})
    assert (provider.display_name, provider.base_url, provider.default_model) == (
        "Local", "http://127.0.0.1:8080/v1", "llama")
    assert "local" in settings.provider_names()


def test_unknown_provider_is_one_sentence() -> None:
    with pytest.raises(UnknownProviderError) as caught:
        Settings().resolve_provider("nope", env={})
    assert "nope" in caught.value.message and "chutes" in caught.value.message


def test_missing_key_names_the_variable() -> None:
    settings = Settings()
    with pytest.raises(MissingKeyError) as caught:
        settings.require_key(settings.resolve_provider("chutes", env={}))
    # The facts, and where the key goes for each front-end (tests/unit/test_advice.py).
    assert caught.value.key_env == "CHUTES_API_KEY" and caught.value.provider == "chutes"
    assert "Chutes" in caught.value.message


def test_save_is_private_and_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "config.toml"
    settings = Settings.model_validate({
        "default_provider": "sutra", "system_prompt": "Be brief.",
        "parameters": {"temperature": 0.5},
        "providers": {"sutra": {"api_key": "sk-secret"}},
    })
    save_settings(settings, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = load_settings(path)
    assert again.default_provider == "sutra"
    assert again.parameters.temperature == 0.5
    assert again.require_key(again.resolve_provider("sutra", env={})) == "sk-secret"
    path.chmod(0o600)
    save_settings(again.model_copy(update={"system_prompt": "x"}), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["config.toml"]  # no temp files left


def test_move_aside_keeps_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", "broken")
    moved = move_aside(path)
    assert not path.exists()
    assert moved.read_text() == "broken" and moved.name.startswith("config.toml.broken-")


def test_mask_never_shows_the_tail() -> None:
    key = "cpk_0123456789abcdef.secret"
    assert "secret" not in mask_key(key) and mask_key(None) == "(not set)"


def test_reading_width_defaults_to_100_columns_and_refuses_a_narrow_one(tmp_path: Path) -> None:
    assert Settings().reading_width == 100
    assert load_settings(write(tmp_path / "a.toml", "reading_width = 0\n")).reading_width == 0
    assert load_settings(write(tmp_path / "b.toml", "reading_width = 20\n")).reading_width == 20
    with pytest.raises(ConfigError) as caught:
        load_settings(write(tmp_path / "c.toml", "reading_width = 19\n"))
    assert "'reading_width'" in caught.value.message
    assert "0 (the whole width) or at least 20 columns" in caught.value.message
