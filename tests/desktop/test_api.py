"""The desktop profile API is what docs/desktop.md lists, all importable from
``kaboom.bots.desktop`` and nothing else."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "desktop.md"


def _documented() -> list[str]:
    """The names in the doc's API list (between its ``api`` markers)."""
    listing = DOC.read_text().split("<!-- api -->")[1].split("<!-- /api -->")[0]
    names = []
    for line in listing.splitlines():
        bullet = re.match(r"\* ((?:`\w+`(?:, )?)+):", line)
        if bullet:
            names += re.findall(r"`(\w+)`", bullet.group(1))
    return names


def test_the_documented_names_are_the_module_s_all() -> None:
    module = importlib.import_module("kaboom.bots.desktop")
    names = _documented()
    assert len(names) == len(set(names))
    assert sorted(names) == sorted(module.__all__)


def test_each_documented_name_imports_from_the_one_module() -> None:
    namespace: dict[str, object] = {}
    for name in _documented():
        exec(f"from kaboom.bots.desktop import {name}", namespace)
        assert namespace[name] is not None, name
    profile = namespace["Profile"]
    assert isinstance(profile, type)
    assert namespace["ENTRY_POINT_GROUP"] == "kaboom.desktop_profiles"


def test_the_profile_author_docs_name_the_distribution() -> None:
    page = DOC.read_text()
    assert '"kaboom-minesweeper[desktop]"' in page
    assert 'entry-points."kaboom.desktop_profiles"' in page
