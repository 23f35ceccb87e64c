"""Synthetic mouse and keyboard through the XTest extension (python-xlib).

XTest events go straight into the X server's input queue, exactly like a real device:
no window manager, focus dance or ``xdotool`` process is needed.

A click is aimed at a window, never at the screen: with the X server grabbed (no other
client's request runs meanwhile, so no window can appear), one request says where the
window is now and which top-level window holds the point, and the button goes down only
if that is the window aimed at.  So a window mapped over the board at any moment gets
no click; it is the cost of one round trip a click.
"""

from __future__ import annotations

import os
import time

from Xlib import XK, X
from Xlib.error import XError
from Xlib.ext import xtest

from kaboom.bots.desktop.screen import Window, connect

__all__ = ["Button", "ClickRefusedError", "Pointer", "WindowChangedError"]


class ClickRefusedError(RuntimeError):
    """Raised when a click was not made: the point belongs to another window, the window
    changed size, or it is gone.  Nothing was pressed."""


class WindowChangedError(ClickRefusedError):
    """Raised when a click was not made because the window changed size or is gone (what
    was found in it may no longer be where it was)."""


class Button:
    """X pointer button numbers, for :meth:`Pointer.click`."""

    LEFT = 1
    """Reveals, in most games."""
    MIDDLE = 2
    """Chords, in most games."""
    RIGHT = 3
    """Flags (or cycles the marks), in most games."""


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
        """Where the pointer was last put, in screen coordinates."""
        self._root = self._x.screen().root
        self._tops: dict[int, int] = {}  # window id -> the root's child that holds it

    def close(self) -> None:
        """Closes the pointer's X connection."""
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

    def click(self, window: Window, x: int, y: int, button: int = Button.LEFT) -> tuple[int, int]:
        """Clicks ``button`` at ``(x, y)`` in ``window``'s coordinates, wherever the window
        is now, only if ``window`` is the top-level window there; returns the window's
        place on the screen.  Raises :class:`ClickRefusedError` (nothing pressed) if
        another window holds the point or ``window`` changed size or is gone.

        ``(x, y)`` is measured from the window's top-left corner, as :class:`Grid` and
        :func:`locate_colour` give points in a capture of the window; a profile clicks
        a face with ``pointer.click(window, *locate_colour(image, colour))``.
        ``button`` is a :class:`Button` number.
        """
        win = self._x.create_resource_object("window", window.id)
        self._x.grab_server()
        try:
            try:
                geo = win.get_geometry()
                if (geo.width, geo.height) != (window.width, window.height):
                    raise WindowChangedError(
                        f"the {window.name!r} window changed size ({window.width}x"
                        f"{window.height} to {geo.width}x{geo.height})")
                at = self._root.translate_coords(win, int(x), int(y))
                holder = at.child.id if at.child else 0
                if holder != self._top(window.id, fresh=False) and \
                        holder != self._top(window.id, fresh=True):
                    whose = f"window {holder:#x}" if holder else "no window"
                    raise ClickRefusedError(f"the point {at.x},{at.y} is {whose}'s, "
                                            f"not the {window.name!r} window's")
            except XError:
                raise WindowChangedError(f"the {window.name!r} window is gone") from None
            xtest.fake_input(self._x, X.MotionNotify, x=at.x, y=at.y)
            xtest.fake_input(self._x, X.ButtonPress, button)
            self._x.sync()  # the press is delivered before any other client runs again
        finally:
            self._x.ungrab_server()
            self._x.flush()
        self.position = (at.x, at.y)
        time.sleep(self.hold)
        # the release goes where the press went (the X server's implicit grab)
        xtest.fake_input(self._x, X.ButtonRelease, button)
        self._x.sync()
        return at.x - int(x), at.y - int(y)

    def _top(self, window_id: int, fresh: bool) -> int:
        """The root's child that holds the window (itself, or a window manager's frame)."""
        if fresh or window_id not in self._tops:
            win = self._x.create_resource_object("window", window_id)
            while True:
                parent = win.query_tree().parent
                if not parent or parent.id == self._root.id:
                    break
                win = parent
            self._tops[window_id] = win.id
        return self._tops[window_id]

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
