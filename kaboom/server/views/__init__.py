"""What the pages show, in words and cells: the view models both faces' results carry
(a game's, a position's in the analyser, one cell's)."""

from kaboom.server.views.cell import KNOWLEDGE_WORDS, CellView, Overlay, cell_label, percent
from kaboom.server.views.game import (
    PRESET_LABELS,
    GameView,
    Role,
    changed,
    hint_words,
    named,
    position_link,
    preset_of,
)
from kaboom.server.views.position import ANALYSER_TOOLS, PositionView, cycled, proof_marks

__all__ = [
    "ANALYSER_TOOLS",
    "KNOWLEDGE_WORDS",
    "PRESET_LABELS",
    "CellView",
    "GameView",
    "Overlay",
    "PositionView",
    "Role",
    "cell_label",
    "changed",
    "cycled",
    "hint_words",
    "named",
    "percent",
    "position_link",
    "preset_of",
    "proof_marks",
]
