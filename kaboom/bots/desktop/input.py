"""Synthetic mouse and keyboard through the XTest extension (python-xlib).

XTest events go straight into the X server's input queue, exactly like a real device:
no window manager, focus dance or ``xdotool`` process is needed.
"""

from __future__ import annotations

import os
import time

from Xlib import XK, X
from Xlib.ext import xtest

from kaboom.bots.desktop.screen import connect

__all__ = ["Button", "Pointer"]


class Button:
    """X pointer button numbers."""

    LEFT = 1
    MIDDLE = 2
    RIGHT = 3


class Pointer:
    """Moves the pointer, clicks and types on one X display.

    ``hold`` is how long a button or key stays down: some toolkits drop a press and
    release that arrive in the same instant.
    """

    def __init__(self, display_name: str | None = None, hold: float = 0.003) -> None:
        self._x = connect(display_name or os.environ.get("DISPLAY", ":0"))
        if not self._x.has_extension("XTEST"):
            raise RuntimeError("the X server has no XTEST extension")
        self.hold = hold
        self.position: tuple[int, int] = (0, 0)

    def close(self) -> None:
        self._x.close()

    def __enter__(self) -> Pointer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def move(self, x: int, y: int) -> None:
        """Puts the pointer at root coordinates ``(x, y)``."""
        xtest.fake_input(self._x, X.MotionNotify, x=int(x), y=int(y))
        self._x.sync()
        self.position = (int(x), int(y))

    def click(self, x: int, y: int, button: int = Button.LEFT) -> None:
        """Moves to ``(x, y)``, then presses and releases ``button``."""
        self.move(x, y)
        xtest.fake_input(self._x, X.ButtonPress, button)
        self._x.sync()
        time.sleep(self.hold)
        xtest.fake_input(self._x, X.ButtonRelease, button)
        self._x.sync()

    def key(self, *names: str) -> None:
        """Presses the keys with X keysym names ``names`` in order, then releases them
        in reverse: ``key("F2")``, ``key("Control_L", "n")``."""
        codes = []
        for name in names:
            code = self._x.keysym_to_keycode(XK.string_to_keysym(name))
            if not code:
                raise ValueError(f"no key for keysym {name!r}")
            codes.append(code)
        for code in codes:
            xtest.fake_input(self._x, X.KeyPress, code)
            self._x.sync()
        time.sleep(self.hold)
        for code in reversed(codes):
            xtest.fake_input(self._x, X.KeyRelease, code)
            self._x.sync()
