"""Seeing the X display: finding a game's window and capturing its pixels.

Capture goes through ``mss`` (fast, shared-memory); if it is unavailable or fails,
python-xlib's ``get_image`` on the root window does the same job more slowly.  Windows
are found by walking the X window tree and matching the window name or ``WM_CLASS``,
so no window manager is needed (under a bare Xvfb there is none).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from Xlib import X, display
from Xlib.error import ConnectionClosedError, DisplayError, XError

if TYPE_CHECKING:
    from Xlib.xobject.drawable import Window as XWindow

__all__ = [
    "NoDisplayError",
    "Screen",
    "Window",
    "WindowNotFoundError",
    "WindowOffScreenError",
    "connect",
]

log = logging.getLogger(__name__)


class NoDisplayError(RuntimeError):
    """Raised when the X display cannot be opened (no server, or a wrong name)."""


class WindowNotFoundError(RuntimeError):
    """Raised when no mapped window matches what a profile looks for, or it is gone."""


class WindowOffScreenError(WindowNotFoundError):
    """Raised when a window to be read lies partly off the screen."""


def connect(name: str, attempts: int = 20) -> display.Display:
    """Opens an X connection, retrying briefly: an X server that just lost its last
    client resets itself and refuses connections for a moment.

    Raises :class:`NoDisplayError` when there is no X server at ``name``.
    """
    for attempt in range(attempts):
        try:
            return display.Display(name)
        except DisplayError as exc:
            raise NoDisplayError(
                f"cannot open X display {name!r} ({str(exc).strip()}); is an X server "
                "running there? (--xvfb starts a private one)") from None
        except (ConnectionClosedError, OSError):
            if attempt == attempts - 1:
                raise NoDisplayError(f"the X display {name!r} keeps closing the "
                                     "connection") from None
            time.sleep(0.1)
    raise AssertionError("unreachable")


@dataclass(frozen=True, slots=True)
class Window:
    """A top-level window's id, title, class and position on the root window.

    A value: :meth:`Screen.refresh` returns a new one when the window moves.
    """

    id: int
    """The X window id."""
    name: str
    """Its title (``_NET_WM_NAME``, else ``WM_NAME``)."""
    wm_class: tuple[str, ...]
    """Its ``WM_CLASS``: the instance and class names, as ``("sgt-mines", "Sgt-mines")``."""
    x: int
    """The left edge on the screen, in pixels (the root window's coordinates)."""
    y: int
    """The top edge on the screen, in pixels."""
    width: int
    """The width in pixels."""
    height: int
    """The height in pixels."""


class Screen:
    """One X display: window lookup and RGB capture of screen rectangles."""

    def __init__(self, display_name: str | None = None) -> None:
        self.display_name = display_name or os.environ.get("DISPLAY", ":0")
        self._connect()
        self._mss = None
        try:
            import mss

            factory = getattr(mss, "MSS", None) or mss.mss
            self._mss = factory(display=self.display_name)
        except Exception as exc:  # no mss or no XShm: fall back to Xlib
            log.info("mss unavailable (%s); capturing with Xlib get_image", exc)

    def _connect(self) -> None:
        self._x = connect(self.display_name)
        self._root = self._x.screen().root
        self._net_wm_name = self._x.intern_atom("_NET_WM_NAME")

    def _reconnect(self) -> None:
        """Starts a new X connection.  python-xlib can fail (an ``AttributeError``) while
        it parses another client's extension error (RandR, from Chromium) on the way to
        a reply; that leaves its connection believing a reader is still at work, and the
        next request would wait for its reply forever.  Only a new connection is sound."""
        log.info("python-xlib failed inside a request; reconnecting to %s", self.display_name)
        with contextlib.suppress(Exception):  # a broken connection may not close cleanly
            self._x.close()
        self._connect()

    def close(self) -> None:
        """Closes the X connection and the capture's; a closed screen is not used again."""
        if self._mss is not None:
            self._mss.close()
        self._x.close()

    def __enter__(self) -> Screen:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ windows
    def windows(self) -> list[Window]:
        """Every mapped, viewable window of a useful size, depth-first; none when
        python-xlib failed on the way (the screen then reconnects): callers look again."""
        try:
            return self._walk()
        except AttributeError:
            self._reconnect()
            return []

    def _walk(self) -> list[Window]:
        found: list[Window] = []
        stack = [self._root]
        while stack:
            win = stack.pop()
            try:
                children = win.query_tree().children
            except XError:
                continue
            stack.extend(reversed(children))
            if win == self._root:
                continue
            try:
                attrs = win.get_attributes()
                if attrs.map_state != X.IsViewable:
                    continue
                geo = win.get_geometry()
                if geo.width < 40 or geo.height < 40:
                    continue
                pos = win.translate_coords(self._root, 0, 0)
                name = self._name(win)
                wm_class = tuple(win.get_wm_class() or ())
            except XError:  # gone meanwhile
                continue
            found.append(Window(win.id, name, wm_class, -pos.x, -pos.y,
                                geo.width, geo.height))
        return found

    def _name(self, win: XWindow) -> str:
        """The window title: ``_NET_WM_NAME`` (UTF-8, what browsers set), else ``WM_NAME``."""
        net = win.get_full_text_property(self._net_wm_name)
        name = net or win.get_wm_name() or ""
        return name.decode("utf-8", "replace") if isinstance(name, bytes) else str(name)

    def find_window(self, pattern: str, timeout: float = 0.0) -> Window:
        """The largest window whose name or WM_CLASS matches the regex ``pattern``.

        Waits up to ``timeout`` seconds for it to appear.
        """
        rx = re.compile(pattern, re.IGNORECASE)
        deadline = time.monotonic() + timeout
        while True:
            hits = [w for w in self.windows()
                    if rx.search(w.name) or any(rx.search(c) for c in w.wm_class)]
            if hits:
                return max(hits, key=lambda w: w.width * w.height)
            if time.monotonic() >= deadline:
                raise WindowNotFoundError(f"no window matches {pattern!r}")
            time.sleep(0.1)

    def refresh(self, window: Window) -> Window:
        """The same window with its current position and size (two X round trips).

        Raises :class:`WindowNotFoundError` if it was closed or unmapped.
        """
        for attempt in (1, 2):
            win = self._x.create_resource_object("window", window.id)
            try:
                if win.get_attributes().map_state != X.IsViewable:
                    raise WindowNotFoundError(
                        f"window {window.id:#x} ({window.name!r}) is hidden")
                geo = win.get_geometry()
                pos = win.translate_coords(self._root, 0, 0)
                break
            except XError:
                raise WindowNotFoundError(
                    f"window {window.id:#x} ({window.name!r}) is gone") from None
            except AttributeError:  # python-xlib's own failure: see _reconnect
                self._reconnect()
                if attempt == 2:
                    raise
        return Window(window.id, window.name, window.wm_class, -pos.x, -pos.y,
                      geo.width, geo.height)

    @property
    def size(self) -> tuple[int, int]:
        """The screen's width and height in pixels."""
        geo = self._root.get_geometry()
        return geo.width, geo.height

    def covering(self, window: Window, rect: tuple[int, int, int, int]) -> list[Window]:
        """The windows stacked above ``window`` that overlap ``rect`` (``x0, y0, x1, y1``
        on the screen): another program's window, a dialog, a menu, a tooltip.

        The root's children are in stacking order, bottom first; a window manager's
        frame counts as the window it holds.
        """
        win = self._x.create_resource_object("window", window.id)
        try:
            while True:  # up to the root's child that holds the window (its frame)
                parent = win.query_tree().parent
                if parent is None or parent.id == self._root.id:
                    break
                win = parent
            siblings = self._root.query_tree().children
        except XError:
            raise WindowNotFoundError(f"window {window.id:#x} ({window.name!r}) is gone") from None
        ids = [w.id for w in siblings]
        if win.id not in ids:
            return []
        found = []
        for other in siblings[ids.index(win.id) + 1:]:
            try:
                if other.get_attributes().map_state != X.IsViewable:
                    continue
                geo = other.get_geometry()
                pos = other.translate_coords(self._root, 0, 0)
            except XError:
                continue  # closed meanwhile
            x0, y0 = -pos.x, -pos.y
            if (x0 < rect[2] and rect[0] < x0 + geo.width
                    and y0 < rect[3] and rect[1] < y0 + geo.height):
                name, wm_class = self._label(other)
                found.append(Window(other.id, name, wm_class, x0, y0, geo.width, geo.height))
        return found

    def _label(self, win: XWindow) -> tuple[str, tuple[str, ...]]:
        """A window's title and class, or its first titled child's (a frame has none)."""
        stack = [win]
        while stack:
            w = stack.pop(0)
            try:
                name = self._name(w)
                if name:
                    return name, tuple(w.get_wm_class() or ())
                stack.extend(w.query_tree().children)
            except XError:
                continue
        return f"window {win.id:#x}", ()

    # ------------------------------------------------------------------ pixels
    def capture(self, left: int, top: int, width: int, height: int) -> np.ndarray:
        """RGB pixels of a screen rectangle as an ``H x W x 3`` uint8 array."""
        if self._mss is not None:
            try:
                shot = self._mss.grab({"left": left, "top": top,
                                       "width": width, "height": height})
                bgra = np.frombuffer(shot.bgra, dtype=np.uint8)
                bgra = bgra.reshape(shot.height, shot.width, 4)
                return np.ascontiguousarray(bgra[..., 2::-1])
            except Exception as exc:
                log.warning("mss capture failed (%s); using Xlib from now on", exc)
                self._mss = None
        return self._capture_xlib(left, top, width, height)

    def _capture_xlib(self, left: int, top: int, width: int, height: int) -> np.ndarray:
        raw = self._root.get_image(left, top, width, height, X.ZPixmap, 0xFFFFFFFF)
        data = np.frombuffer(raw.data, dtype=np.uint8)
        bgrx = data.reshape(height, -1, 4)[:, :width]  # 24/32-bit visuals: 4 bytes/pixel
        return np.ascontiguousarray(bgrx[..., 2::-1])

    def capture_window(self, window: Window) -> np.ndarray:
        """RGB pixels of a window.

        Raises :class:`WindowNotFoundError` if any of it lies off the screen: a clipped
        capture would show a clipped board.
        """
        width, height = self.size
        if (window.x < 0 or window.y < 0 or window.x + window.width > width
                or window.y + window.height > height):
            raise WindowOffScreenError(
                f"the {window.name!r} window ({window.width}x{window.height} at "
                f"{window.x},{window.y}) is not all on the {width}x{height} screen; "
                "move it onto the screen")
        return self.capture(window.x, window.y, window.width, window.height)
