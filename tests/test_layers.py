"""Imports point down the layers, and no two sibling folders import each other.

The layers, bottom to top (docs: README's Layout, issue 27):

    scenarios -> sotopia_tom_env -> rewards, policies -> training -> sotopia_tom_app -> benchmarks

A module may import its own layer and the layers below it, never one above. Every import counts,
those inside functions too (a lazy import is still a dependency). Two sibling folders (the top
folders, or two subfolders of one package) may not import each other; a package and its own
subfolder may. Tests sit above everything and are not walked.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {
    "scenarios": 0,
    "sotopia_tom_env": 1,  # the env core, plus the LLM clients and serving the players use
    "rewards": 2,
    "policies": 2,
    "training": 3,
    "sotopia_tom_app": 4,
    "benchmarks": 5,
}

# Edges (importing module, imported module) the layers forbid but that still exist, each to be
# removed by a change in the named folder. Empty: keep it so.
ALLOWED_UPWARD: set[tuple[str, str]] = set()
# Pairs of sibling folders (a, b) that import each other today, each to be untangled.
ALLOWED_CIRCLES: set[tuple[str, str]] = set()


def modules() -> dict[str, Path]:
    """Every non-test module of the project, by dotted name."""
    found = {}
    for top in LAYERS:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


@cache
def known() -> dict[str, Path]:
    return modules()


def resolve(name: str) -> str | None:
    """The longest prefix of ``name`` that is a module of the project (None: not ours)."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in known():
            return candidate
    return None


def imports(name: str, path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every import of a project module in ``path``, however nested."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [resolve(a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            # `from pkg import sub` depends on the submodule when there is one.
            targets = [resolve(f"{base}.{a.name}") or resolve(base) for a in node.names]
        else:
            continue
        found += [(node.lineno, t) for t in targets if t is not None]
    return found


def folder(module: str) -> tuple[str, ...]:
    """The folder a module lives in (a package is its own folder)."""
    path = known()[module].relative_to(ROOT)
    return path.parent.parts


def edges() -> list[tuple[str, int, str]]:
    """``(importer, line, imported)`` for every import between two project modules."""
    return [
        (name, line, target)
        for name, path in known().items()
        for line, target in imports(name, path)
        if target != name
    ]


def test_no_module_imports_a_layer_above_its_own():
    upward = sorted(
        {
            f"{known()[a].relative_to(ROOT)}:{line} imports {b}"
            for a, line, b in edges()
            if LAYERS[b.split(".")[0]] > LAYERS[a.split(".")[0]] and (a, b) not in ALLOWED_UPWARD
        }
    )
    assert not upward, "imports from a layer above:\n" + "\n".join(upward)


def sibling_pair(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, str] | None:
    """The two sibling folders an import from folder ``a`` to folder ``b`` crosses, if any.

    None when one folder holds the other (a package and its own subfolder) or they are one.
    """
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    if common in (len(a), len(b)):
        return None
    return "/".join(a[: common + 1]), "/".join(b[: common + 1])


def test_no_two_sibling_folders_import_each_other():
    crossings: dict[tuple[str, str], str] = {}
    for a, line, b in edges():
        pair = sibling_pair(folder(a), folder(b))
        if pair is not None:
            crossings.setdefault(pair, f"{known()[a].relative_to(ROOT)}:{line} imports {b}")
    circles = sorted(
        f"{x} <-> {y}: {crossings[(x, y)]}; {crossings[(y, x)]}"
        for x, y in crossings
        if x < y and (y, x) in crossings and (x, y) not in ALLOWED_CIRCLES
    )
    assert not circles, "sibling folders importing each other:\n" + "\n".join(circles)


def test_the_walk_sees_lazy_and_relative_imports(tmp_path):
    """The checks above prove nothing if the walk misses imports inside functions."""
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from rewards import JudgeReward\n    from . import env\n")
    assert imports("sotopia_tom_env.m", source) == [(2, "rewards"), (3, "sotopia_tom_env.env")]
