"""The simulator's rules: first click, mine count, flood fill, same seed same game."""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from itertools import combinations, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.solver._kernels.simulator import flood, shown_of
from kaboom.solver.bench.runner import game_seed
from kaboom.solver.errors import InvalidMoveError
from kaboom.solver.position import FirstClick, GameStatus, Move, Position, neighbours
from kaboom.solver.session import Solver
from kaboom.solver.simulator import SimulatedGame, parse_board, preset


@pytest.mark.parametrize("seed", range(30))
def test_sfar_first_click_never_a_mine(seed: int) -> None:
    game = SimulatedGame(9, 9, 10, rule="sfar", seed=seed)
    assert game.reveal(4, 4) is not GameStatus.LOST
    assert game.layout is not None and len(game.layout) == 10
    assert (4, 4) not in game.layout


@pytest.mark.parametrize("seed", range(30))
def test_snr_first_click_opens_an_area(seed: int) -> None:
    game = SimulatedGame(30, 16, 99, rule="snr", seed=seed)
    game.reveal(2, 2)
    assert game.char(2, 2) == "0"
    assert game.layout is not None and len(game.layout) == 99
    assert all(game.char(x, y) != "#" for x in (1, 2, 3) for y in (1, 2, 3))


def test_snr_falls_back_when_crowded() -> None:
    game = SimulatedGame(3, 3, 8, rule="snr", seed=1)
    game.reveal(1, 1)
    assert game.char(1, 1) == "8"


def test_same_seed_same_game() -> None:
    a = SimulatedGame(16, 16, 40, seed=42)
    b = SimulatedGame(16, 16, 40, seed=42)
    a.reveal(0, 0)
    b.reveal(0, 0)
    assert a.layout == b.layout and a.position() == b.position()
    c = SimulatedGame(16, 16, 40, seed=43)
    c.reveal(0, 0)
    assert c.layout != a.layout


def test_numbers_match_layout_and_win() -> None:
    game = SimulatedGame(*preset("beginner"), seed=3)
    game.reveal(0, 0)
    layout = game.layout
    assert layout is not None
    for y in range(9):
        for x in range(9):
            ch = game.char(x, y)
            if ch.isdigit():
                n = sum((x + dx, y + dy) in layout for dx in (-1, 0, 1) for dy in (-1, 0, 1))
                assert int(ch) == n
    for y in range(9):
        for x in range(9):
            if (x, y) not in layout and game.char(x, y) == "#":
                game.reveal(x, y)
    assert game.outcome is GameStatus.WON
    assert game.covered == 10


def test_mine_loses_and_flags_block() -> None:
    game = SimulatedGame(9, 9, 10, seed=4)
    game.reveal(0, 0)
    assert game.layout is not None
    mine = next(iter(game.layout))
    game.play(Move.flag(*mine))
    assert game.reveal(*mine) is GameStatus.PLAYING  # flagged: nothing happens
    game.play(Move.flag(*mine))
    assert game.reveal(*mine) is GameStatus.LOST


def test_resume_continues_the_same_game_on_its_layout() -> None:
    game = SimulatedGame(*preset("intermediate"), seed=7)
    game.reveal(0, 0)
    assert game.layout is not None
    mine = next(iter(game.layout))
    game.play(Move.flag(*mine))
    copy = SimulatedGame.resume(game.position(), game.layout)
    assert copy.position() == game.position() and copy.covered == game.covered
    for y in range(16):
        for x in range(16):
            if (x, y) not in game.layout and game.char(x, y) == "#":
                assert copy.reveal(x, y) is game.reveal(x, y)
                assert copy.position() == game.position()
    assert copy.outcome is GameStatus.WON


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.data())
def test_the_compiled_numbers_and_flood_fill_match_the_rules(
    width: int, height: int, data: st.DataObject
) -> None:
    """Every cell shows its neighbouring mines; a reveal opens the cell and, from each
    0 it opens, every covered cell around, never a flag: checked against the rules
    written out cell by cell."""
    cells = list(product(range(width), range(height)))
    mines = data.draw(st.sets(st.sampled_from(cells), max_size=len(cells) - 1))
    shown = shown_of(width, height, [y * width + x for x, y in mines])
    for x, y in cells:
        expected = "*" if (x, y) in mines else str(
            sum(n in mines for n in neighbours(x, y, width, height)))
        assert chr(shown[y * width + x]) == expected
    safe = [c for c in cells if c not in mines]
    start = data.draw(st.sampled_from(safe))
    flags = data.draw(st.sets(st.sampled_from(cells)))
    board = bytearray(ord("F") if (i % width, i // width) in flags else ord("#")
                      for i in range(width * height))
    opened, todo = set(), [start] if start not in flags else []
    while todo:
        c = todo.pop()
        if c in opened or c in flags:
            continue
        opened.add(c)
        if shown[c[1] * width + c[0]] == ord("0"):
            todo.extend(neighbours(*c, width, height))
    assert flood(board, shown, width, height, start[1] * width + start[0]) == len(opened)
    for x, y in cells:
        i = y * width + x
        expected = "F" if (x, y) in flags else chr(shown[i]) if (x, y) in opened else "#"
        assert chr(board[i]) == expected


def test_play_all_skips_what_a_flood_fill_opened_and_stops_at_the_end() -> None:
    """A decision's later reveals may name cells an earlier one flooded open, and its
    moves after a lost click are never played."""
    blank = Position.from_rows(["####"] * 4, 3)
    game = SimulatedGame.resume(blank, frozenset({(3, 2), (0, 3), (3, 3)}))
    moves = [Move.reveal(0, 0), Move.reveal(3, 0), Move.reveal(3, 3), Move.reveal(1, 3)]
    assert game.play_all(moves) is GameStatus.LOST
    assert game.char(3, 0) == "0" and game.char(1, 3) == "#"
    assert game.moves == 2  # (3, 0) skipped, (1, 3) never played


@pytest.mark.parametrize("cell", [(9, 0), (0, 9), (-1, 0), (0, -1)])
def test_a_reveal_off_the_board_is_refused(cell: tuple[int, int]) -> None:
    """The board is flat: (9, 0) on a 9-wide board would be (0, 1) if not refused."""
    game = SimulatedGame(*preset("beginner"), seed=5)
    with pytest.raises(InvalidMoveError, match="off the board"):
        game.reveal(*cell)
    assert game.layout is None and game.covered == 81


def test_resume_refuses_a_layout_that_disagrees() -> None:
    game = SimulatedGame(*preset("beginner"), seed=5)
    game.reveal(0, 0)
    assert game.layout is not None
    opened = next((x, y) for y in range(9) for x in range(9) if game.char(x, y).isdigit())
    with pytest.raises(ValueError, match="does not agree"):
        SimulatedGame.resume(game.position(), game.layout | {opened})
    game.reveal(*next(iter(game.layout)))
    with pytest.raises(ValueError, match="game is over"):
        SimulatedGame.resume(game.position(), game.layout)


@pytest.mark.parametrize(("rule", "click"), [("sfar", (2, 1)), ("sfar", (0, 0)),
                                             ("snr", (2, 2)), ("snr", (1, 1)), ("snr", (0, 1))])
def test_layouts_are_uniform_whatever_the_first_click(rule: str, click: tuple[int, int]) -> None:
    """Every layout that keeps the click's zone free is drawn equally often (chi-square
    over all of them, enumerated), anchor click, carried layout or fallback alike."""
    w, h, mines = 4, 4, 3
    zone = {click} | (set(neighbours(*click, w, h)) if rule == "snr" else set())
    allowed = [c for c in product(range(w), range(h)) if c not in zone]
    every = {frozenset(s) for s in combinations(allowed, mines)}
    draws = 40 * len(every)
    seen: Counter[frozenset[tuple[int, int]]] = Counter()
    for seed in range(draws):
        game = SimulatedGame(w, h, mines, rule=rule, seed=seed)
        game.reveal(*click)
        assert game.layout is not None and not game.layout & zone
        seen[game.layout] += 1
    assert set(seen) == every
    expected = draws / len(every)
    chi2 = sum((seen[s] - expected) ** 2 / expected for s in every)
    assert chi2 < len(every) + 5 * math.sqrt(2 * len(every))  # about 5 sigma


@pytest.mark.parametrize("seed", range(20))
def test_two_first_clicks_see_nearly_the_same_board(seed: int) -> None:
    """A paired comparison of first clicks: the same seed gives the same layout but for
    the mines carried out of the other click's zone."""
    a = SimulatedGame(30, 16, 99, rule="snr", seed=seed)
    b = SimulatedGame(30, 16, 99, rule="snr", seed=seed)
    a.reveal(2, 2)
    b.reveal(3, 3)
    assert a.layout is not None and b.layout is not None
    moved = a.layout - b.layout
    only_b_zone = {(x, y) for x in (2, 3, 4) for y in (2, 3, 4) if 4 in (x, y)}
    assert moved <= only_b_zone
    assert len(b.layout - a.layout) == len(moved)
    assert all(b.char(x, y) != "#" for x in (2, 3, 4) for y in (2, 3, 4))


@pytest.mark.parametrize(("rule", "click", "digest"), [
    ("sfar", (0, 0), "40c983fe846ef6de"),
    ("snr", (3, 2), "7b81d50138b34725"),
    ("snr", (2, 2), "781a7e70f9876f8b"),
])
def test_the_benchmark_boards_never_change(rule: str, click: tuple[int, int], digest: str
                                           ) -> None:
    """Results of different passes are compared on "the same boards" (docs/solver.md):
    the first 200 Expert layouts of ``--seed 2026`` as the simulator drew them when the
    figures were taken (a rewrite of the simulator must draw them again)."""
    h = hashlib.sha256()
    for i in range(200):
        game = SimulatedGame(30, 16, 99, rule=rule, seed=game_seed(2026, i))
        game.reveal(*click)
        assert game.layout is not None
        h.update(repr(sorted(game.layout)).encode())
    assert h.hexdigest()[:16] == digest


def test_parse_board() -> None:
    assert parse_board("30x16/99") == preset("expert")
    assert parse_board("100x100/2000") == (100, 100, 2000)
    for bad in ("9x9", "9/10", "9x9x9/10", "ax9/10", ""):
        with pytest.raises(ValueError, match="WxH/MINES"):
            parse_board(bad)


@pytest.mark.parametrize("seed", range(20))
def test_the_simulator_builds_positions_the_constructor_accepts(seed: int) -> None:
    """The simulator builds its positions without the constructor's checks
    (``Position.trusted``): each must be the one the constructor builds from its rows."""
    game = SimulatedGame(16, 16, 40, rule=FirstClick.SAFE, seed=seed)
    solver = Solver("fast")
    while game.outcome is GameStatus.PLAYING:
        got = game.position()
        checked = Position(got.width, got.height, got.mines, got.rows)
        assert got == checked and hash(got) == hash(checked)
        assert got.flat == checked.flat and got.covered() == checked.covered()
        game.play_all(solver.decide(got).moves)
