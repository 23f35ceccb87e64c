"""The API reference builds from the code with no warning, and its checks fail a build.

The reference (docs/reference) is built as the README says, warnings as errors.  Its
checks are then run on a small package made here, one gap at a time: a public name
without a docstring, a lazily loaded name missing from ``dir()`` (so from the reference)
and a reference to nothing must each fail the build, naming what is wrong; the same
package without the gap builds.  There is no list of tolerated gaps to pass one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kaboom.server.config import Settings
from kaboom.server.main import create_app

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "reference"


def sphinx(source: Path, out: Path, *, path: Path | None = None
           ) -> subprocess.CompletedProcess[str]:
    """``python -m sphinx -W --keep-going -n -b html SOURCE OUT``, the README's command."""
    env = None
    if path is not None:
        import os

        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q",
                           "-b", "html", str(source), str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_reference_builds_without_a_warning(tmp_path: Path) -> None:
    built = sphinx(REFERENCE, tmp_path)
    assert built.returncode == 0, built.stderr
    assert built.stderr == ""
    solver = (tmp_path / "solver.html").read_text()
    desktop = (tmp_path / "desktop.html").read_text()
    assert 'id="kaboom.solver.Position"' in solver and 'id="kaboom.solver.Cell"' in solver
    # the submodules the facade names, each with what it alone holds
    for name in ("position.neighbours", "position.COVERED_CHARS", "endgame.Endgame",
                 "endgame.best_move", "bench.run_games", "bench.Summary.win_rate"):
        assert f'id="kaboom.solver.{name}"' in solver, name
    assert 'id="kaboom.solver.position.Position"' not in solver  # shown once, as the facade's
    for name in ("Profile", "Calibration.covered", "Grid.rect", "Pointer.click", "PLAYING",
                 "RGB"):
        assert f'id="kaboom.bots.desktop.{name}"' in desktop, name
    # the HTTP API: the server's own document, written beside its page
    document = json.loads((tmp_path / "openapi.json").read_text())
    served = create_app(Settings(db=":memory:", expiry_interval_s=0)).openapi()
    assert document == json.loads(json.dumps(served))
    http = (tmp_path / "http.html").read_text()
    assert all(path in http for path in served["paths"])


PACKAGE = '''
"""A small public API."""

__all__ = ["Thing", "helper", "LIMIT", "lazy"]

LIMIT = 3
"""The most there may be."""


class Thing:
    """A thing, with a ``size``."""

    size: int = 1

    def grow(self) -> None:
        """Makes it bigger."""


def helper(thing: Thing) -> int:
    """Measures a :class:`Thing`."""
    return thing.size


def __getattr__(name):
    if name == "lazy":
        def lazy() -> None:
            """Loaded when first used."""
        return lazy
    raise AttributeError(name)


def __dir__():
    return sorted({*globals(), *__all__})
'''

SUBMODULE = '''
"""A submodule that re-exports a :class:`Thing` beside its own name."""

from minipkg import Thing

__all__ = ["Thing", "measure"]


def measure(thing: Thing) -> int:
    """Measures a :class:`Thing` again."""
    return thing.size
'''

CONF = '''
import sys
sys.path.insert(0, {reference!r})
extensions = ["sphinx.ext.autodoc", "kaboom_reference"]
nitpicky = True
autodoc_default_options = {{"members": True, "undoc-members": True}}
reference_modules = {modules!r}
'''


def build_package(tmp_path: Path, package: str, submodule: str | None = None
                  ) -> subprocess.CompletedProcess[str]:
    """Builds a reference of ``package`` (the module ``minipkg``), and of ``submodule``
    (``minisub``) after it when given, with the checks."""
    source, code = tmp_path / "source", tmp_path / "code"
    source.mkdir(parents=True)
    code.mkdir(parents=True)
    (code / "minipkg.py").write_text(package)
    modules = ["minipkg"]
    index = "minipkg\n=======\n\n.. kaboom-module:: minipkg\n"
    if submodule is not None:
        (code / "minisub.py").write_text(submodule)
        modules.append("minisub")
        index += "\nminisub\n-------\n\n.. kaboom-module:: minisub\n"
    (source / "conf.py").write_text(CONF.format(reference=str(REFERENCE), modules=modules))
    (source / "index.rst").write_text(index)
    return sphinx(source, tmp_path / "out", path=code)


def test_a_documented_package_builds(tmp_path: Path) -> None:
    built = build_package(tmp_path, PACKAGE)
    assert built.returncode == 0, built.stderr


@pytest.mark.parametrize(("change", "complaint"), [
    (('    def grow(self) -> None:\n        """Makes it bigger."""\n',
      "    def grow(self) -> None:\n        pass\n"),
     "minipkg.Thing.grow has no docstring (method)"),
    (('def helper(thing: Thing) -> int:\n    """Measures a :class:`Thing`."""\n',
      "def helper(thing: Thing) -> int:\n"),
     "minipkg.helper has no docstring (function)"),
    (('"""A thing, with a ``size``."""', '"""A thing."""'),
     "minipkg.Thing.size has no docstring (attribute)"),
    (('LIMIT = 3\n"""The most there may be."""\n', "LIMIT = 3\n"),
     "minipkg.LIMIT has no docstring (data)"),
    (("def __dir__():", "def _dir():"),
     "minipkg.lazy is in __all__ but not in the reference"),
    ((":class:`Thing`", ":class:`Thingy`"),
     "reference target not found: Thingy"),
], ids=["method", "function", "field", "data", "lazy name", "reference"])
def test_a_gap_fails_the_build(tmp_path: Path, change: tuple[str, str], complaint: str) -> None:
    old, new = change
    assert old in PACKAGE
    built = build_package(tmp_path, PACKAGE.replace(old, new))
    assert built.returncode != 0
    assert complaint in built.stderr


def test_a_name_two_modules_export_is_shown_once(tmp_path: Path) -> None:
    """The later module links to the earlier one's ``Thing`` (its short name in its own
    docstrings too), and shows what it alone holds."""
    built = build_package(tmp_path, PACKAGE, SUBMODULE)
    assert built.returncode == 0, built.stderr
    page = (tmp_path / "out" / "index.html").read_text()
    assert 'id="minisub.measure"' in page and 'id="minisub.Thing"' not in page
    assert page.count('href="#minipkg.Thing"') >= 3  # the sentence, and two references


def test_a_submodule_gap_fails_the_build(tmp_path: Path) -> None:
    bare = SUBMODULE.replace('    """Measures a :class:`Thing` again."""\n', "")
    built = build_package(tmp_path, PACKAGE, bare)
    assert built.returncode != 0
    assert "minisub.measure has no docstring (function)" in built.stderr
