"""Sphinx configuration of Kaboom's API reference (``docs/reference``).

Build it with ``.venv/bin/python -m sphinx -W --keep-going -n -b html docs/reference
build/reference`` (the ``docs`` extra; ``scripts/setup.sh --test`` installs it).  The
pages are generated from the code: the names each module in ``reference_modules``
exports in its ``__all__``, with their docstrings, and the HTTP API's OpenAPI document
as the server builds it.  ``kaboom_reference`` (beside this file) fails the build on a
public name without a docstring, a name in ``__all__`` missing from the reference, or
a reference to nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

project = "Kaboom"
author = "Kaboom's maintainers"
extensions = ["sphinx.ext.autodoc", "kaboom_reference"]
root_doc = "index"
exclude_patterns: list[str] = []
html_theme = "alabaster"
html_title = "Kaboom API reference"
html_static_path: list[str] = []

# Every cross-reference must resolve (-n); the build's warnings are errors (-W).
nitpicky = True
autodoc_default_options = {
    "members": True,
    "undoc-members": True,  # so that a name without a docstring reaches the check
    "show-inheritance": True,
    "member-order": "bysource",
}
autodoc_typehints = "signature"
autodoc_class_signature = "mixed"
# Names are documented where users import them (kaboom.solver.Position), not where they
# are defined (kaboom.solver.position.Position); kaboom_reference resolves references
# to the defining path to the public one.
add_module_names = True

# The solver's facade first: the submodules its docstring names for what they alone
# hold link to the names it exports rather than show them again.
reference_modules = ["kaboom.solver", "kaboom.solver.position", "kaboom.solver.endgame",
                     "kaboom.solver.bench", "kaboom.bots.desktop"]
