"""The package's imports: no cycle anywhere in ``kaboom/``, and dependencies that point one
way (the solver knows nothing of the web, databases or screens; the routes reach the game
only through the application layer).

Read from the source with :mod:`ast`, every import counts: at a module's top, inside a
function (an import moved into a function to dodge a cycle is still the cycle) and under
``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import kaboom

ROOT = Path(kaboom.__file__).parent


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _imported(module: str, path: Path) -> Iterator[str]:
    """Every module ``module`` imports: a name imported from a package is the submodule of
    that name when there is one, else the package itself."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1],
                                 *([base] if base else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield sub if sub in MODULES else base


def _graph() -> dict[str, set[str]]:
    return {m: {i for i in _imported(m, p) if i in MODULES and i != m}
            for m, p in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_in_the_package() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def _all_imports(prefix: str) -> dict[str, set[str]]:
    """Every import (of any package) of the modules under ``prefix``."""
    return {m: set(_imported(m, p)) for m, p in MODULES.items()
            if m == prefix or m.startswith(prefix + ".")}


def _offending(prefix: str, forbidden: tuple[str, ...]) -> dict[str, set[str]]:
    out = {}
    for module, imports in _all_imports(prefix).items():
        bad = {i for i in imports if i.startswith(forbidden)}
        if bad:
            out[module] = bad
    return out


def test_the_solver_knows_nothing_of_the_web_databases_or_screens() -> None:
    assert _offending("kaboom.solver", (
        "kaboom.server", "kaboom.bots", "kaboom.web", "fastapi", "starlette", "httpx",
        "pydantic", "uvicorn", "jinja2", "sqlite3", "psycopg", "mss", "Xlib", "PIL")) == {}


def test_the_bots_do_not_reach_into_the_server() -> None:
    assert _offending("kaboom.bots", ("kaboom.server",)) == {}


def test_the_routes_reach_the_game_only_through_the_application_layer() -> None:
    """Routes parse and render: the store, the rules, the sessions and the game's parts
    are the application's to call."""
    assert _offending("kaboom.server.routes", tuple(f"kaboom.server.{name}" for name in (
        "store", "game", "games", "sessions", "assistance", "admission", "players",
        "history", "watcher", "limits", "statistics"))) == {}


def test_the_rest_of_kaboom_reaches_the_solver_through_its_facade() -> None:
    """``kaboom.solver`` or the submodules its docstring names, nothing else."""
    documented = ("kaboom.solver.position", "kaboom.solver.endgame", "kaboom.solver.bench")
    outside = {m: {i for i in imports if i.startswith("kaboom.solver.")
                   and not i.startswith(documented)}
               for m, imports in _all_imports("kaboom").items()
               if not m.startswith("kaboom.solver")}
    assert {m: i for m, i in outside.items() if i} == {}
