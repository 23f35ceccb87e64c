"""Playing desktop Minesweeper games by screen capture and synthetic clicks (X11).

``kaboom bot desktop --game NAME`` drives :class:`~kaboom.bots.desktop.driver.DesktopSession`
with a game :class:`~kaboom.bots.desktop.profile.Profile` found by :func:`find_profile`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kaboom.bots.desktop.driver import DesktopSession, GameRecord, ScreenReadError
    from kaboom.bots.desktop.grid import Grid, GridNotFoundError, find_grid
    from kaboom.bots.desktop.profile import (
        ENTRY_POINT_GROUP,
        Calibration,
        Profile,
        find_profile,
        locate_colour,
        profile_names,
    )

__all__ = [
    "ENTRY_POINT_GROUP",
    "Calibration",
    "DesktopSession",
    "GameRecord",
    "Grid",
    "GridNotFoundError",
    "Profile",
    "ScreenReadError",
    "find_grid",
    "find_profile",
    "locate_colour",
    "profile_names",
]

_HOMES = {
    **dict.fromkeys(("DesktopSession", "GameRecord", "ScreenReadError"), "driver"),
    **dict.fromkeys(("Grid", "GridNotFoundError", "find_grid"), "grid"),
    **dict.fromkeys(("ENTRY_POINT_GROUP", "Calibration", "Profile", "find_profile",
                     "locate_colour", "profile_names"), "profile"),
}


def __getattr__(name: str) -> Any:
    """Loads a name's module when the name is first used: the screen and input modules
    need the desktop extra (Xlib, mss), and ``kaboom bot desktop --help`` should not."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
