"""Placeholder: the Kaboom page profile is added once web/ exists."""

from __future__ import annotations

__all__: list[str] = []
