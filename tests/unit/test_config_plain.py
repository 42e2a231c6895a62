"""`config_checks.plainly_valid` answers as pydantic does, for every config it vouches for:
the same Settings (values, types, and the keys set, at every level); it declines whatever
pydantic refuses; and each check a model adds to pydantic's own is one it makes too."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tui_chat.core.config import ProviderConfig, Settings, Timeouts, load_settings
from tui_chat.core.config_checks import plainly_valid
from tui_chat.core.mcp.config import McpServerConfig, McpSettings
from tui_chat.core.model_facts import ModelSettings
from tui_chat.core.models import Parameters
from tui_chat.core.records import After, Before, Record
from tui_chat.core.secrets import Secret

_SCALARS = st.one_of(
    st.sampled_from(["chutes", "sutra", "", " x ", "http://localhost:8080/v1/",
                     "https://example.com", "http://", "socks5://proxy:1080", "ftp://x",
                     "X-Token", "bad header", "é", "k" * 30]),
    st.booleans(), st.integers(-3, 1200), st.sampled_from([0.0, 0.5, 1.5, 2.0, 2.5, -1.0]),
    st.floats(allow_nan=True, allow_infinity=True), st.lists(st.sampled_from(["a", 1]),
                                                             max_size=2))


def _section(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from([*keys, "unknown"]), _SCALARS, max_size=4)


_TEXT = st.sampled_from(["m", "", " k ", "é", "http://localhost:8080/v1/"])
_PROVIDER = st.fixed_dictionaries({}, optional={
    "api_key": st.one_of(_TEXT, st.sampled_from(["  cpk_abc\n", "   "]), st.integers()),
    "base_url": st.one_of(st.sampled_from(["http://localhost:8080/v1/", "https://x.io",
                                           "ftp://x", "http://", "http://h:0"]), _SCALARS),
    "display_name": _TEXT, "api_key_env": st.sampled_from(["", "LOCAL_KEY"]),
    "needs_key": st.one_of(st.booleans(), st.just("no")), "default_model": _TEXT,
    "headers": st.dictionaries(st.sampled_from(["X-Token", "bad header", "A"]),
                               st.sampled_from(["v", "é", 1]), max_size=2),
    "models": st.lists(st.sampled_from(["m", "n", 1]), max_size=2),
    "supports_stream_options": st.booleans(), "has_models_endpoint": st.booleans(),
    "proxy": st.sampled_from([False, True, " http://p:3128 ", "socks5h://p", "ftp://p", "",
                              "p:3128"]),
    "ca_file": _TEXT, "verify": st.one_of(st.booleans(), st.just(0)), "unknown": _TEXT})
_SERVER = st.fixed_dictionaries({}, optional={
    "command": st.one_of(_TEXT, st.sampled_from(["uvx", "${TOOL}", "${"]), st.integers()),
    "args": st.lists(st.sampled_from(["-m", "${X}", "${1}", 2]), max_size=2),
    "env": st.dictionaries(st.sampled_from(["A", "B"]),
                           st.sampled_from(["v", "${V}", "${V", 1]), max_size=2),
    "cwd": _TEXT, "url": st.sampled_from(["http://h/mcp", "https://x.io/${P}", "ftp://x", ""]),
    "headers": st.dictionaries(st.sampled_from(["Authorization", "bad header"]),
                               st.sampled_from(["Bearer ${T}", "é", "${"]), max_size=2),
    "enabled": st.one_of(st.booleans(), st.just(1)),
    "approve": st.sampled_from(["ask", "read-only", "always", "never", 1]),
    "timeout": _SCALARS, "start_timeout": _SCALARS, "unknown": _TEXT})
_MCP = st.fixed_dictionaries({}, optional={
    "servers": st.dictionaries(st.sampled_from(["time", "web"]), _SERVER, max_size=2),
    "max_result_chars": _SCALARS, "max_steps": _SCALARS, "unknown": _SCALARS})
_CONFIG = st.fixed_dictionaries({}, optional={
    "default_provider": _SCALARS, "default_model": _SCALARS, "system_prompt": _SCALARS,
    "theme": _SCALARS, "reading_width": _SCALARS, "max_retries": _SCALARS,
    "parameters": st.one_of(_section(list(Parameters.model_fields)), _SCALARS),
    "timeouts": _section(list(Timeouts.model_fields)),
    "providers": st.dictionaries(st.sampled_from(["chutes", "local", "sutra"]), _PROVIDER,
                                 max_size=2),
    "keys": st.dictionaries(st.sampled_from(["send", "quit"]),
                            st.one_of(_SCALARS, st.lists(st.sampled_from(["f1", "ctrl+s"]),
                                                         max_size=2)), max_size=2),
    "models": st.dictionaries(st.sampled_from(["chutes:m", "local:m", "nope", "other:m"]),
                              _section(list(ModelSettings.model_fields)), max_size=2),
    "mcp": st.one_of(_MCP, _SCALARS),
    "colour": _SCALARS})


def _pydantic(data: dict[str, Any]) -> Settings | None:
    try:
        return Settings.model_validate(data)
    except ValidationError:
        return None


def _same(mine: object, theirs: object, where: str = "") -> None:
    assert type(mine) is type(theirs), where
    if isinstance(mine, Record):
        for name in type(mine).model_fields:
            _same(getattr(mine, name), getattr(theirs, name), f"{where}.{name}")
    elif isinstance(mine, dict):
        assert isinstance(theirs, dict) and mine.keys() == theirs.keys(), where
        for key in mine:
            _same(mine[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(mine, list):
        assert isinstance(theirs, list) and len(mine) == len(theirs), where
        for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            _same(a, b, f"{where}[{index}]")
    elif isinstance(mine, Secret):
        assert isinstance(theirs, Secret)
        assert mine.get_secret_value() == theirs.get_secret_value(), where
    elif isinstance(mine, float) and math.isnan(mine):
        assert isinstance(theirs, float) and math.isnan(theirs), where
    else:
        assert mine == theirs, where


@settings(max_examples=600, deadline=None)
@given(_CONFIG)
def test_what_it_vouches_for_pydantic_validates_the_same(data: dict[str, Any]) -> None:
    _vouched_alike(data)


def _vouched_alike(data: dict[str, Any]) -> None:
    plain = plainly_valid(data)
    if plain is not None:
        validated = _pydantic(data)
        assert validated is not None, data
        _same(plain, validated)


@settings(max_examples=600, deadline=None)
@given(_MCP)
def test_tool_servers_it_vouches_for_pydantic_validates_the_same(mcp: dict[str, Any]) -> None:
    _vouched_alike({"mcp": mcp})


@settings(max_examples=600, deadline=None)
@given(st.dictionaries(st.sampled_from(["chutes", "local"]), _PROVIDER, max_size=2))
def test_providers_it_vouches_for_pydantic_validates_the_same(providers: dict[str, Any]
                                                               ) -> None:
    _vouched_alike({"providers": providers})


def test_a_full_plain_config_is_vouched_for_as_pydantic_reads_it() -> None:
    data: dict[str, Any] = {
        "default_provider": "local", "default_model": "m", "system_prompt": "Be brief.",
        "theme": "nord", "reading_width": 0, "max_retries": 2,
        "parameters": {"temperature": 1, "max_tokens": 500, "stop": ["END"]},
        "timeouts": {"connect": 5, "read": 30.5},
        "providers": {
            "chutes": {"api_key": "  cpk_abc\n", "proxy": " http://proxy:3128 "},
            "local": {"base_url": "http://localhost:8080/v1/", "needs_key": False,
                      "models": ["m"], "headers": {"X-Team": "a"}, "proxy": False,
                      "verify": False}},
        "keys": {"send": ["ctrl+s", "f5"], "quit": "ctrl+q"},
        "models": {"local:m": {"context_length": 8192, "input_price": 0, "images": True}},
    }
    plain = plainly_valid(data)
    assert plain is not None
    validated = _pydantic(data)
    assert validated is not None
    _same(plain, validated)
    assert plain.providers["local"].base_url == "http://localhost:8080/v1"


def test_it_declines_what_pydantic_refuses() -> None:
    for data in ({"colour": "red"}, {"reading_width": 10}, {"reading_width": 1001},
                 {"parameters": {"temperature": 3}}, {"timeouts": {"read": 0}},
                 {"timeouts": {"read": math.nan}}, {"max_retries": 11},
                 {"providers": {"x": {"base_url": "ftp://x"}}},
                 {"providers": {"x": {"proxy": "ftp://p"}}},
                 {"providers": {"x": {"headers": {"bad header": "v"}}}},
                 {"providers": {"x": {"needs_key": False, "api_key": "k"}}},
                 {"models": {"nope:m": {}}}, {"models": {"chutes:m": {"input_price": -1}}},
                 {"keys": {"send": 1}}):
        assert plainly_valid(data) is None, data
        assert _pydantic(data) is None, data


def test_every_check_a_model_adds_is_one_it_makes() -> None:
    """A validator added to a settings model must be added to plainly_valid too: this list
    is what it knows of."""
    known = {"ProviderConfig": {"proxy", "api_key", "headers", "base_url"},
             "Settings": {"reading_width", "models"},
             "McpServerConfig": {"command", "args", "env", "cwd", "url", "headers"}}
    for model in (Settings, ProviderConfig, Timeouts, Parameters, ModelSettings,
                  McpServerConfig, McpSettings):
        fields = {name for name, info in model.model_fields.items()
                  if any(isinstance(item, Before | After) for item in info.metadata)}
        assert fields == known.get(model.__name__, set()), model.__name__
        whole = model.problem is not Record.problem  # a check of the record as a whole
        assert whole == (model in (ProviderConfig, McpServerConfig)), model.__name__


def test_a_plain_file_imports_no_pydantic(tmp_path: Any) -> None:
    import subprocess
    import sys

    path = tmp_path / "config.toml"
    path.write_text('theme = "nord"\n[providers.chutes]\napi_key = "cpk_abc"\n'
                    '[parameters]\ntemperature = 0.7\n', encoding="utf-8")
    code = ("import sys; from pathlib import Path; from tui_chat.core import config\n"
            "settings = config.load_settings(Path(sys.argv[1]))\n"
            "print(settings.theme, 'pydantic' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                            text=True, check=True, timeout=60)
    assert result.stdout.split() == ["nord", "False"]
    assert load_settings(path).providers["chutes"].api_key == Secret("cpk_abc")


def test_a_file_with_five_tool_servers_imports_no_pydantic(tmp_path: Any) -> None:
    import subprocess
    import sys

    path = tmp_path / "config.toml"
    path.write_text("".join(
        f'[mcp.servers.s{index}]\ncommand = "uvx"\nargs = ["server-{index}"]\n'
        f'env = {{ TOKEN = "${{TOKEN}}" }}\napprove = "read-only"\ntimeout = 30\n'
        for index in range(4)) + '[mcp.servers.web]\nurl = "https://h/mcp"\n'
        'headers = { Authorization = "Bearer ${T}" }\n', encoding="utf-8")
    code = ("import sys; from pathlib import Path; from tui_chat.core import config\n"
            "settings = config.load_settings(Path(sys.argv[1]))\n"
            "print(len(settings.mcp.servers), 'pydantic' in sys.modules, 'mcp' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                            text=True, check=True, timeout=60)
    assert result.stdout.split() == ["5", "False", "False"]
    _same(load_settings(path), Settings.model_validate(
        __import__("tomllib").loads(path.read_text(encoding="utf-8"))))


def test_the_defaults_are_settings_as_pydantic_makes_them(tmp_path: Any) -> None:
    from tui_chat.core.config import defaults

    _same(defaults(), Settings.model_validate({}))
    _same(load_settings(tmp_path / "missing.toml"), Settings.model_validate({}))
