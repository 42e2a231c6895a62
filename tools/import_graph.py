"""Print the import cycles inside a package (default `tui_chat.ui`), read from the source.

Each import is one of three kinds, by where it is written:
- "module": at a module's top level, run when the module is imported;
- "function": inside a function or method (a lazy import, run on first use);
- "typing": under `if TYPE_CHECKING:` (never run; only the type checker follows it).

A cycle is a strongly connected group of modules (two or more) in the graph of the kinds
counted. The figures are printed for module-level imports alone, for every import that runs
(module + function) and for every import written (with the typing ones):

    python tools/import_graph.py [package]

Exit status 0 always: this measures, the import-linter contracts enforce.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("module", "function", "typing")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(current: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[:len(base) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(path: Path, known: set[str]) -> Iterator[tuple[str, str]]:
    """(module imported, kind) for every import in `path` of a module in `known`."""
    current = module_name(path)
    is_package = path.name == "__init__.py"

    def targets(node: ast.Import | ast.ImportFrom) -> Iterable[str]:
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            base = _resolve(current, is_package, node)
            names = [f"{base}.{a.name}" for a in node.names] + [base]
        for name in names:  # the longest known prefix: a module, not a class in it
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != current:
                yield name
                if not isinstance(node, ast.Import):
                    return

    def walk(nodes: list[ast.stmt], kind: str) -> Iterator[tuple[str, str]]:
        for node in nodes:
            if isinstance(node, ast.Import | ast.ImportFrom):
                for target in dict.fromkeys(targets(node)):
                    yield target, kind
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                yield from walk(node.body, "typing")
                yield from walk(node.orelse, kind)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from walk(node.body, "function" if kind == "module" else kind)
            else:  # class bodies, with, try, for...: the kind of the block around them
                inner: list[ast.stmt] = []
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.stmt):
                        inner.append(child)
                    elif isinstance(child, ast.ExceptHandler | ast.match_case):
                        inner.extend(child.body)
                yield from walk(inner, kind)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")).body, "module")


def graph(package: str) -> dict[str, dict[str, set[str]]]:
    """module -> {imported module -> kinds}, within `package`."""
    folder = ROOT.joinpath(*package.split("."))
    paths = sorted(folder.rglob("*.py"))
    known = {module_name(p) for p in paths}
    edges: dict[str, dict[str, set[str]]] = {m: {} for m in known}
    for path in paths:
        for target, kind in imports_of(path, known):
            edges[module_name(path)].setdefault(target, set()).add(kind)
    return edges


def cycles(edges: dict[str, dict[str, set[str]]], kinds: set[str]) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan), by the imports of
    `kinds`."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target, its_kinds in edges[node].items():
            if not its_kinds & kinds:
                continue
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def report(package: str) -> str:
    edges = graph(package)
    lines = []
    for label, kinds in (("module-level imports", {"module"}),
                         ("module + function-level imports (all that run)",
                          {"module", "function"}),
                         ("every import written (with TYPE_CHECKING)", set(KINDS))):
        groups = cycles(edges, kinds)
        inner = sum(1 for group in groups for m in group for t, k in edges[m].items()
                    if t in group and k & kinds)
        lines.append(f"{label}: {len(groups)} cycle group(s), "
                     f"{sum(map(len, groups))} modules, {inner} imports inside them")
        for group in groups:
            lines.append("  " + " <-> ".join(m.removeprefix(package + ".") for m in group))
            for member in group:
                for target, its_kinds in sorted(edges[member].items()):
                    if target in group and its_kinds & kinds:
                        how = ",".join(k for k in KINDS if k in its_kinds)
                        lines.append(f"    {member.removeprefix(package + '.')} -> "
                                     f"{target.removeprefix(package + '.')} ({how})")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(sys.argv[1] if len(sys.argv) > 1 else "tui_chat.ui"))
