"""Playing desktop Minesweeper games by screen capture and synthetic clicks (X11).

``kaboom bot desktop --game NAME`` drives :class:`~bots.desktop.driver.DesktopSession`
with a game :class:`~bots.desktop.profile.Profile` found by :func:`find_profile`.
"""

from __future__ import annotations

from bots.desktop.driver import DesktopSession, GameRecord, ScreenReadError
from bots.desktop.grid import Grid, GridNotFoundError, find_grid
from bots.desktop.profile import (
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
