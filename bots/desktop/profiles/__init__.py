"""Built-in desktop game profiles; importing a module registers its profile."""

from __future__ import annotations

__all__ = ["kaboom_page", "sgt_mines"]
