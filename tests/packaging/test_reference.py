"""The API reference builds from the code with no warning, and its checks fail a build.

The reference (docs/reference) is built as the README says, warnings as errors.  Its
checks are then run on a small package made here, one gap at a time: a public name
without a docstring, a lazily loaded name missing from ``dir()`` (so from the reference),
a reference to nothing, and a known gap that is gone must each fail the build, naming
what is wrong; the same package without the gap builds.
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

CONF = '''
import sys
sys.path.insert(0, {reference!r})
extensions = ["sphinx.ext.autodoc", "kaboom_reference"]
nitpicky = True
autodoc_default_options = {{"members": True, "undoc-members": True}}
reference_modules = ["minipkg"]
reference_known_gaps = {gaps!r}
'''


def build_package(tmp_path: Path, package: str, gaps: str = "") -> subprocess.CompletedProcess[str]:
    """Builds a reference of ``package`` (the module ``minipkg``) with the checks."""
    source, code = tmp_path / "source", tmp_path / "code"
    source.mkdir(parents=True)
    code.mkdir(parents=True)
    (code / "minipkg.py").write_text(package)
    (source / "gaps.txt").write_text(gaps)
    (source / "conf.py").write_text(CONF.format(reference=str(REFERENCE),
                                                gaps=str(source / "gaps.txt")))
    (source / "index.rst").write_text("minipkg\n=======\n\n.. kaboom-module:: minipkg\n")
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


def test_a_known_gap_passes_and_a_gone_one_fails(tmp_path: Path) -> None:
    bare = PACKAGE.replace('LIMIT = 3\n"""The most there may be."""\n', "LIMIT = 3\n")
    assert build_package(tmp_path / "known", bare,
                         "# left for later\nundocumented minipkg.LIMIT\n").returncode == 0
    gone = build_package(tmp_path / "gone", PACKAGE, "undocumented minipkg.LIMIT\n")
    assert gone.returncode != 0
    assert "known gap 'undocumented minipkg.LIMIT' no longer found" in gone.stderr
