"""Personas: a named system prompt with optional provider, model and parameters, one TOML file
each. The shipped ones (`personas/` in the repository, `tui_chat/personas` in the wheel) load
first, then the user's (`personas/` in the config folder), which may replace a shipped one of
the same name.

A file::

    name = "translator"                  # optional: the file's name without .toml
    description = "Translates between English and Indian languages"
    system_prompt = "You translate …"
    provider = "sutra"                   # optional, with model
    model = "sutra-v2"
    [parameters]                         # optional: temperature, max_tokens, top_p,
    temperature = 0.3                    # presence_penalty, frequency_penalty, stop

`load_personas()` never raises for a bad file: it returns the personas it could read and one
sentence per problem, naming the file and the key, so that the app shows ONE notification.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

import tui_chat
from tui_chat.core import paths
from tui_chat.core.errors import UsageError
from tui_chat.core.files import FileTooLargeError, read_bounded
from tui_chat.core.models import Parameters
from tui_chat.core.text import one_line
from tui_chat.core.validation import first_problem

MAX_PERSONA_BYTES = 64 * 1024


class Persona(BaseModel):
    """One persona file, validated."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    """What `ask --persona NAME` and the palette call it; the file name when omitted."""
    description: str = Field(default="", max_length=300)
    system_prompt: str = Field(min_length=1)
    provider: str | None = Field(default=None, min_length=1)
    model: str | None = Field(default=None, min_length=1)
    parameters: Parameters | None = None
    source: Path | None = Field(default=None, exclude=True)
    """The file it was read from (not a key of the file)."""


def shipped_personas_dir() -> Path:
    """`tui_chat/personas` inside a wheel; the repository's `personas/` in a source checkout."""
    package = Path(tui_chat.__file__).resolve().parent
    inside = package / "personas"
    return inside if inside.is_dir() else package.parent / "personas"


def user_personas_dir() -> Path:
    return paths.config_dir() / "personas"


def persona_dirs() -> list[Path]:
    return [shipped_personas_dir(), user_personas_dir()]


def load_persona_file(path: Path) -> Persona:
    """Read and validate one file. Raises ValueError with one sentence naming the file."""
    try:
        data = tomllib.loads(read_bounded(path, MAX_PERSONA_BYTES).decode("utf-8"))
    except FileTooLargeError:
        raise ValueError(f"the persona file {path} is larger than 64 KiB") from None
    except OSError as error:
        raise ValueError(f"cannot read the persona file {path} ({error.strerror})") from None
    except ValueError as error:  # TOMLDecodeError, UnicodeDecodeError, an int too long
        raise ValueError(f"the persona file {path} is not valid TOML ({error})") from None
    except RecursionError:
        raise ValueError(f"the persona file {path} is nested too deeply to read") from None
    if "source" in data:
        raise ValueError(f"the persona file {path} has a problem at 'source': unknown key")
    data.setdefault("name", path.stem)
    try:
        return Persona.model_validate({**data, "source": path})
    except ValidationError as error:
        key, problem = first_problem(error, Persona)
        raise ValueError(f"the persona file {path} has a problem at '{key}': "
                         f"{problem}") from None


def load_personas(dirs: Iterable[Path] | None = None) -> tuple[list[Persona], list[str]]:
    """Every `*.toml` persona in `dirs` (default: `persona_dirs()`), sorted by name, and one
    sentence per file that could not be used."""
    found: dict[str, Persona] = {}
    problems: list[str] = []
    for directory in persona_dirs() if dirs is None else dirs:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            try:
                persona = load_persona_file(path)
            except ValueError as error:
                problems.append(one_line(str(error), 300))
                continue
            if persona.model is not None and persona.provider is None:
                problems.append(one_line(f"the persona file {path} has a problem at "
                                         "'provider': a model needs its provider", 300))
                continue
            found[persona.name] = persona
    return sorted(found.values(), key=lambda p: p.name), problems


def problems_message(problems: Sequence[str]) -> str:
    """One notification for every broken persona file (show it with markup=False)."""
    if not problems:
        return ""
    count = "A persona file" if len(problems) == 1 else f"{len(problems)} persona files"
    lines = "\n".join(f"• {problem}" for problem in problems)
    return f"{count} could not be loaded; fix or remove it, the others are available:\n{lines}"


def find_persona(name: str, personas: Sequence[Persona]) -> Persona:
    """The persona called `name`; UsageError naming the known ones otherwise."""
    for persona in personas:
        if persona.name == name:
            return persona
    known = ", ".join(p.name for p in personas) or "none"
    raise UsageError(f"There is no persona called {one_line(name, 40)} (known: {known}); "
                     f"add one as {user_personas_dir() / 'NAME.toml'}.")
