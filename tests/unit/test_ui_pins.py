"""The UI stack is pinned (pyproject.toml says why and how to move the pin): textual, rich and
textual-serve are each required at one exact version, the one installed and tested."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_textual_rich_and_textual_serve_are_pinned_to_what_is_installed() -> None:
    dependencies = tomllib.loads(PYPROJECT.read_text("utf-8"))["project"]["dependencies"]
    for name in ("textual", "rich", "textual-serve"):
        specs = [spec.split(";")[0].replace(" ", "") for spec in dependencies
                 if spec.split("=")[0].split(">")[0].split("<")[0].strip() == name]
        assert specs == [f"{name}=={version(name)}"], (name, specs)
