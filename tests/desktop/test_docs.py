"""docs/desktop.md's example profiles, run as written there."""

from __future__ import annotations

import re
import types
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kaboom.bots.desktop import Grid, Profile
from kaboom.bots.desktop.driver import DesktopSession
from kaboom.bots.desktop.screen import Window
from kaboom.solver.position import Position

ROOT = Path(__file__).resolve().parents[2]
SCREENS = ROOT / "tests" / "data" / "screens" / "sgt-mines"


def _example(name: str) -> types.ModuleType:
    """The module in the page's code block that starts ``# docs example: NAME``."""
    page = (ROOT / "docs" / "desktop.md").read_text()
    blocks = re.findall(r"```python\n# docs example: (\S+)\n(.*?)```", page, re.DOTALL)
    code = dict(blocks)[name]
    module = types.ModuleType(name.removesuffix(".py"))
    exec(compile(code, f"docs/desktop.md:{name}", "exec"), module.__dict__)
    return module


def test_every_override_point_in_the_table_is_in_the_example() -> None:
    page = (ROOT / "docs" / "desktop.md").read_text()
    table = re.findall(r"^\| `(\w+)[(`]", page, re.MULTILINE)
    source = page.split("# docs example: my_mines.py")[1].split("```")[0]
    assert len(table) >= 20
    for name in table:
        assert name in dir(Profile) or name in Profile.__annotations__, name
        assert re.search(rf"(def {name}\(|{name} = )", source), f"{name} has no example"


@pytest.mark.parametrize("shot", sorted(SCREENS.glob("*.png")), ids=lambda p: p.stem)
def test_the_example_profile_reads_the_stored_shots(shot: Path) -> None:
    profile = _example("my_mines.py").MyMines()
    want = Position.from_text(shot.with_suffix(".txt").read_text())
    image = np.asarray(Image.open(shot).convert("RGB"))
    assert list(profile.read(image, profile.find_grid(image))) == list(want.rows)


def test_the_example_profile_plays(xdisplay: str, need_sgt_mines: None) -> None:
    profile = _example("my_mines.py").MyMines()
    with DesktopSession(profile, xdisplay, speed=0) as session:
        first = session.play("9x9n10")  # (after a #seed id its "n" key changes the count)
        second = session.play(None, index=1)  # no id: the example's new_game key
        assert session.grid is not None and round(session.grid.pitch_x) == 24  # environment()
    assert first.outcome == second.outcome == "won"
    assert first.final != second.final


class _Pointer:
    def __init__(self) -> None:
        self.clicks: list[tuple[int, int]] = []

    def click(self, window: Window, x: int, y: int) -> None:
        self.clicks.append((window.x + x, window.y + y))


def test_the_face_example_clicks_the_face_wherever_it_is() -> None:
    profile = _example("face.py").FaceMines()
    for face_at in ((40, 20), (300, 35)):
        image = np.full((400, 500, 3), 192, dtype=np.uint8)
        image[face_at[1] - 8:face_at[1] + 9, face_at[0] - 8:face_at[0] + 9] = (255, 255, 0)
        image[300:320, 10:30] = (255, 255, 0)  # yellow on the board is no face
        pointer = _Pointer()
        window = Window(1, "Face Mines", (), 100, 50, 500, 400)
        profile.new_game(pointer, window, image, Grid(10, 60, 20, 20, 20, 15))
        assert pointer.clicks == [(100 + face_at[0], 50 + face_at[1])]
