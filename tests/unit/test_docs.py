"""The README and the guide in docs/ stay true: the two commands install and run what exists,
every link leads somewhere, and the first keys the README teaches are the app's keys."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent.parent
PAGES = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md")),
         ROOT / "benchmarks" / "RESULTS.md"]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def command(name: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split(f"<!-- {name} -->")[1].split(f"<!-- /{name} -->")[0]
    return block.replace("```", "").strip()


def test_the_run_command_installs_the_package_and_starts_its_script() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    run = command("run-command")
    assert run.startswith("python3 -m venv .venv && .venv/bin/pip install -e . && ")
    script = run.rsplit("&& ", 1)[1].removeprefix(".venv/bin/")
    assert script in project["scripts"]


def test_every_tool_the_test_command_runs_is_installed_by_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    test = command("test-command")
    assert ".venv/bin/pip install -e '.[test]'" in test
    extra = {re.split(r"[<>=\[ ;]", requirement, maxsplit=1)[0].lower()
             for requirement in project["optional-dependencies"]["test"]}
    tools = {"ruff": "ruff", "mypy": "mypy", "lint-imports": "import-linter",
             "pytest": "pytest", "-n auto": "pytest-xdist"}
    for used, package in tools.items():
        if used in test:
            assert package in extra, f"the test command uses {used}; {package} is not in [test]"
    assert test.endswith("-m pytest -q -n auto")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_link_of_the_guide_leads_somewhere(page: Path) -> None:
    if not page.exists():
        pytest.skip(f"{page.name} is not written yet")
    text = page.read_text(encoding="utf-8")
    for target in LINK.findall(text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name} links to {target}, which does not exist"
        if anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in headings}
            assert anchor in slugs, f"{page.name} links to #{anchor}, not a heading of {path}"


def test_the_first_keys_the_readme_teaches_are_the_apps_defaults() -> None:
    from tui_chat.ui.keymap import declared_bindings

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("The first five keys:")[1].split("\n\n")[1]
    taught = [row.split("|")[1].strip() for row in table.splitlines()[2:]]
    declared = {binding.key for bindings in declared_bindings().values()
                for binding in bindings}
    names = {"Esc": "escape", "F2": "f2", "Ctrl+B": "ctrl+b", "F1": "f1"}
    assert [key for key in taught if key != "Enter"] == list(names)
    for key in names.values():
        assert key in declared, f"the README teaches {key}, which no binding has"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_page_opens_on_a_sentence_not_on_a_fragment(page: Path) -> None:
    """A page's first text after its title starts a sentence, a table, a bold lead, code or the
    program's name: not the tail of a sentence cut from elsewhere (docs/keys.md opened on
    "sends no tools: …", left behind when the README was split)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    first = next(line for line in lines[1:] if line.strip())
    assert re.match(r"[A-Z|*`]|tui-chat ", first), f"{page.name} opens on {first[:40]!r}"
