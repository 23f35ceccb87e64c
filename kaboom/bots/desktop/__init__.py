"""Playing desktop Minesweeper games by screen capture and synthetic clicks (X11).

This module is the desktop profile API: everything a game profile needs, in one place
(docs/desktop.md lists it).  ``kaboom bot desktop --game NAME`` drives
:class:`DesktopSession` with the :class:`Profile` that :func:`find_profile` finds.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kaboom.bots.desktop.driver import DesktopSession, GameRecord, ScreenReadError
    from kaboom.bots.desktop.grid import Grid, GridNotFoundError, find_grid
    from kaboom.bots.desktop.input import Button, ClickRefusedError, Pointer
    from kaboom.bots.desktop.look import RGB, CellLook, colour_distance
    from kaboom.bots.desktop.profile import (
        CONTRACT_VERSION,
        ENTRY_POINT_GROUP,
        LOST,
        PLAYING,
        WON,
        Calibration,
        MinesUnreadError,
        Profile,
        ProfileContractError,
        UnreadableCellError,
        UnsureError,
        find_profile,
        locate_colour,
        profile_names,
    )
    from kaboom.bots.desktop.screen import Screen, Window, WindowNotFoundError

__all__ = [
    "CONTRACT_VERSION",
    "ENTRY_POINT_GROUP",
    "LOST",
    "PLAYING",
    "RGB",
    "WON",
    "Button",
    "Calibration",
    "CellLook",
    "ClickRefusedError",
    "DesktopSession",
    "GameRecord",
    "Grid",
    "GridNotFoundError",
    "MinesUnreadError",
    "Pointer",
    "Profile",
    "ProfileContractError",
    "Screen",
    "ScreenReadError",
    "UnreadableCellError",
    "UnsureError",
    "Window",
    "WindowNotFoundError",
    "colour_distance",
    "find_grid",
    "find_profile",
    "locate_colour",
    "profile_names",
]

_HOMES = {
    **dict.fromkeys(("DesktopSession", "GameRecord", "ScreenReadError"), "driver"),
    **dict.fromkeys(("Grid", "GridNotFoundError", "find_grid"), "grid"),
    **dict.fromkeys(("Button", "ClickRefusedError", "Pointer"), "input"),
    **dict.fromkeys(("RGB", "CellLook", "colour_distance"), "look"),
    **dict.fromkeys(("CONTRACT_VERSION", "ENTRY_POINT_GROUP", "LOST", "PLAYING", "WON",
                     "Calibration", "MinesUnreadError", "Profile", "ProfileContractError",
                     "UnreadableCellError", "UnsureError", "find_profile", "locate_colour",
                     "profile_names"), "profile"),
    **dict.fromkeys(("Screen", "Window", "WindowNotFoundError"), "screen"),
}


def __dir__() -> list[str]:
    """The module's names, the ones loaded when first used included (tab completion,
    ``help()`` and the API reference find them)."""
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> Any:
    """Loads a name's module when the name is first used: the screen and input modules
    need the desktop extra (Xlib, mss), and ``kaboom bot desktop --help`` should not."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
