"""Built-in desktop game profiles, each installed as a ``kaboom.desktop_profiles`` entry
point in pyproject.toml, exactly as another package would add one."""

from __future__ import annotations

__all__ = ["gnome_mines", "kaboom_page", "sgt_mines"]
