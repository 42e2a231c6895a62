"""Persona files: the shipped ones load, a broken one gives one sentence naming its file and
key while the others still load, the user's replace shipped ones of the same name."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tui_chat.core import personas
from tui_chat.core.errors import UsageError
from tui_chat.core.models import Parameters
from tui_chat.core.personas import (
    Persona,
    find_persona,
    load_personas,
    problems_message,
    shipped_personas_dir,
)

REPO = Path(__file__).parent.parent.parent


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_shipped_personas_load_and_are_named_after_their_files() -> None:
    loaded, problems = load_personas([shipped_personas_dir()])
    assert problems == []
    assert len(loaded) >= 2
    for persona in loaded:
        assert persona.source is not None and persona.source.stem == persona.name
        assert persona.description and persona.system_prompt.strip()
    translator = find_persona("translator", loaded)
    assert (translator.provider, translator.model) == ("sutra", "sutra-v2")


def test_the_wheel_carries_the_shipped_personas() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    included = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert included["personas"] == "tui_chat/personas"
    assert shipped_personas_dir() == (REPO / "personas").resolve()


def test_a_wheel_layout_is_preferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "site" / "tui_chat"
    (package / "personas").mkdir(parents=True)
    monkeypatch.setattr(personas.tui_chat, "__file__", str(package / "__init__.py"))
    assert shipped_personas_dir() == (package / "personas").resolve()


def test_a_user_persona_loads_with_its_parameters_and_replaces_a_shipped_one(
        tmp_path: Path) -> None:
    user = tmp_path / "user"
    write(user, "brief.toml", 'description = "Short answers"\nsystem_prompt = "Be brief."\n'
                              "[parameters]\ntemperature = 0.1\nstop = [\"END\"]\n")
    write(user, "mine.toml", 'name = "translator"\nsystem_prompt = "Mine."\n')
    loaded, problems = load_personas([shipped_personas_dir(), user])
    assert problems == []
    brief = find_persona("brief", loaded)
    assert brief.parameters == Parameters(temperature=0.1, stop=["END"])
    assert brief.provider is None and brief.model is None
    assert find_persona("translator", loaded).system_prompt == "Mine."
    assert [p.name for p in loaded] == sorted(p.name for p in loaded)


@pytest.mark.parametrize(("text", "key", "problem"), [
    ('system_prompt = "x"\ncolour = "red"\n', "colour", "unknown key"),
    ('system_prompt = "x"\n[parameters]\ntemperature = 9\n', "parameters.temperature",
     "must be between 0 and 2"),
    ('description = "no prompt"\n', "system_prompt", "Field required"),
    ('system_prompt = "x"\nmodel = "sutra-v2"\n', "provider", "a model needs its provider"),
    ('name = "bad name!"\nsystem_prompt = "x"\n', "name", "should match pattern"),
    ('system_prompt = "x"\nsource = "/etc/passwd"\n', "source", "unknown key"),
])
def test_a_broken_file_is_one_sentence_naming_file_and_key(
        tmp_path: Path, text: str, key: str, problem: str) -> None:
    user = tmp_path / "user"
    broken = write(user, "broken.toml", text)
    write(user, "fine.toml", 'system_prompt = "Fine."\n')
    loaded, problems = load_personas([user])
    assert [p.name for p in loaded] == ["fine"]
    assert len(problems) == 1
    assert str(broken) in problems[0] and f"'{key}'" in problems[0]
    assert problem in problems[0]


def test_unreadable_and_non_toml_files_are_reported(tmp_path: Path) -> None:
    user = tmp_path / "user"
    write(user, "a.toml", "system_prompt = \n")
    (user / "b.toml").write_bytes(b"\xff\xfe not utf-8")
    write(user, "c.toml", 'system_prompt = "' + "x" * 70_000 + '"\n')
    loaded, problems = load_personas([user, tmp_path / "missing"])
    assert loaded == []
    assert [p.split(" ")[3] for p in problems] == [str(user / n) for n in
                                                    ("a.toml", "b.toml", "c.toml")]
    message = problems_message(problems)
    assert message.startswith("3 persona files could not be loaded") and "\n• " in message
    assert problems_message([]) == ""


def test_an_unknown_persona_names_the_known_ones() -> None:
    known = [Persona(name="a", system_prompt="x"), Persona(name="b", system_prompt="y")]
    with pytest.raises(UsageError, match=r"no persona called zed \(known: a, b\)"):
        find_persona("zed", known)


def test_the_user_folder_is_in_the_config_folder(isolated_dirs: Path) -> None:
    assert personas.user_personas_dir() == isolated_dirs / "config" / "tui-chat" / "personas"
