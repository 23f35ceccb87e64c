"""The Kaboom game server."""

from kaboom import __version__ as VERSION

__all__ = ["VERSION"]
