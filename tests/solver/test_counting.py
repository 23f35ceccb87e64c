"""Exact counting against brute-force enumeration."""

from __future__ import annotations

import itertools
from math import comb, prod

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaboom.solver import counting
from kaboom.solver._kernels.counting import MAX_CELLS, classes, weigh
from kaboom.solver.frontier import Constraint, components, frontier_of
from kaboom.solver.position import Position
from tests import oracle
from tests.solver.boards import BoardParams, boards, make_position


@settings(max_examples=200, deadline=None)
@given(params=boards)
def test_probabilities_equal_enumeration(params: BoardParams) -> None:
    position = make_position(params)
    expected = oracle.probabilities(position)
    fr = frontier_of(position)
    cnt = counting.count(
        [cs for _, cs in components(fr.constraints)], len(fr.outside), fr.mines_left
    )
    assert cnt.weight == len(list(oracle.layouts(position)))
    assert counting.total_weight([t.totals for t in cnt.tables], len(fr.outside),
                                 fr.mines_left) == cnt.weight
    for c, p in expected.items():
        assert cnt.probability(c) == pytest.approx(p, abs=1e-12), position.to_text()
    # exact zeros are proofs
    truth = oracle.statuses(position)
    assert set(cnt.safe()) == {c for c in fr.cells if truth[c] == "s"}


def test_node_limit_raises() -> None:
    position = Position.from_text("mines=3\n1 # # #\n# # # #\n# # 2 #")
    constraints = frontier_of(position).constraints
    with pytest.raises(counting.TooBig):
        counting.LayoutCounter().table(constraints, 0)
    with pytest.raises(counting.TooBig):
        counting.tabulate(constraints, 0, counter=None)


def test_counting_that_would_take_too_long_is_refused() -> None:
    """Many small components and a large outside: each possible mine total is a product
    with a binomial of 64,000 bits (seconds, and the lookahead counts again for every
    candidate), so the count gives way to the SAT engine, whose time is budgeted."""
    pairs = [[Constraint(((3 * i, 0), (3 * i + 1, 0)), 1),
              Constraint(((3 * i + 1, 0), (3 * i + 2, 0)), 1)] for i in range(50)]
    with pytest.raises(counting.TooBig):
        counting.count(pairs, outside=64_000, mines_left=32_000)
    small = counting.count(pairs[:5], outside=400, mines_left=50)  # Expert's size: counted
    assert small.weight == sum(comb(5, k) * comb(400, 50 - 5 - k) for k in range(6))


def test_past_120_cells_weights_are_checked_and_listing_refused() -> None:
    """Past 120 cells a weight could overflow 128 bits: the search checks each sum and
    product, so a sparse component is counted exactly and one whose weights do not fit
    is too big; the cells' classes are not kept (a whole 256x256 board's were a
    megabyte each), and an endgame's or a region's listing refuses them."""
    counting._classes_of.cache_clear()
    cells = tuple((x, y) for y in range(2) for x in range(100))
    assert len(cells) > MAX_CELLS
    assert counting.solutions([Constraint(cells, 3)], 10**7) is None
    table = counting.tabulate([Constraint(cells, 3)], counter=None)
    assert table.totals == {3: comb(200, 3)} and table.cell_counts[3] == [comb(199, 2)] * 200
    with pytest.raises(counting.TooBig):  # C(200, 100) is about 2**196
        counting.tabulate([Constraint(cells, 100)], counter=None)
    assert counting._classes_of.cache_info().currsize == 0


def test_a_chain_past_120_cells_is_counted_exactly() -> None:
    """A long chain of 1s, 241 cells: counted exactly (its weights fit), against the
    transfer-matrix count of a chain (the cells in pairs, one mine a pair)."""
    cells = [(x, 0) for x in range(241)]
    chain = [Constraint((cells[i], cells[i + 1]), 1) for i in range(0, 240, 2)]
    table = counting.tabulate(chain, counter=None)
    assert table.totals == {120: 2**120}


@pytest.mark.parametrize("limit", [10**9, 2**61])
def test_a_huge_limit_lists_what_there_is(limit: int) -> None:
    """The search's list grows as it finds assignments: sized from the limit up front, a
    limit of a billion crashed the process, and 2**61 wrapped around to a tiny buffer."""
    cells = tuple((x, 0) for x in range(10))
    found = counting.solutions([Constraint(cells, 5)], limit)
    assert found is not None and len(found) == comb(10, 5)
    chain = [Constraint(((x, 0), (x + 1, 0)), 1) for x in range(3)]
    assert sorted(map(sorted, counting.solutions(chain, limit) or [])) == [
        [(0, 0), (2, 0)], [(1, 0), (3, 0)]]
    pairs = [Constraint(((2 * i, 0), (2 * i + 1, 0)), 1) for i in range(12)]
    many = counting.solutions(pairs, limit, node_limit=10**7)
    assert many is not None and len(many) == 2**12  # 4,096 assignments: grown 4 times


def test_weights_past_64_bits_are_exact() -> None:
    cells = tuple((x, y) for y in range(4) for x in range(25))  # 100 cells, 50 mines
    table = counting.tabulate([Constraint(cells, 50)])
    assert table.totals == {50: comb(100, 50)}  # about 1e29
    assert table.cell_counts[50] == [comb(99, 49)] * 100
    more = tuple((x, 4) for x in range(21))  # 121 cells: weights checked, and they fit
    wide = counting.tabulate([Constraint(cells + more, 60)], counter=None)
    assert wide.totals == {60: comb(121, 60)}
    assert wide.cell_counts[60] == [comb(120, 59)] * 121


@settings(max_examples=100, deadline=None)
@given(params=boards)
def test_mine_totals_are_those_of_the_layouts(params: BoardParams) -> None:
    """Each component's possible mine totals, from the search that remembers what it
    found, against every layout of the board."""
    position = make_position(params)
    for cells, cons in components(frontier_of(position).constraints):
        expected = {
            k for k in range(len(cells) + 1) for mined in itertools.combinations(cells, k)
            if all(sum(c in mined for c in con.cells) == con.mines for con in cons)
        }
        assert counting.mine_totals(cons) == expected, position.to_text()


def test_mine_totals_of_a_wall_too_wide_to_count() -> None:
    """A row of 2,000 cells, every window of four starting at an even column holding
    two mines: solutions far too many for the counting search's node limit, all with
    1,000 mines; the search that remembers answers at once."""
    cells = [(x, 1) for x in range(2_000)]
    wall = [Constraint(tuple(cells[x:x + 4]), 2) for x in range(0, 1_997, 2)]
    with pytest.raises(counting.TooBig):
        counting.tabulate(wall, counter=None)
    assert counting.mine_totals(wall) == {1_000}
    with pytest.raises(counting.TooBig):
        counting.mine_totals(wall, node_limit=100)


@settings(max_examples=100, deadline=None)
@given(params=boards)
def test_solutions_list_every_layout(params: BoardParams) -> None:
    position = make_position(params)
    fr = frontier_of(position)
    free = (*fr.cells, *fr.outside)
    constraints = [*fr.constraints, Constraint(free, fr.mines_left)]
    expected = sorted(map(sorted, oracle.layouts(position)))
    # nodes are not what is tested here (the default, 20 a layout, is too few for a
    # board with one layout behind a deep search)
    every = counting.solutions(constraints, len(expected), node_limit=10**6)
    assert every is not None
    assert sorted(map(sorted, every)) == expected
    if len(every) > 1:  # one fewer than there are: too many
        assert counting.solutions(constraints, len(every) - 1, node_limit=10**6) is None


def test_solutions_past_the_limit_are_refused_before_any_is_listed() -> None:
    """One class of 100 cells and 20 mines is C(100, 20) layouts in a single
    assignment: the limit counts layouts, not assignments (listing them ran out of
    memory)."""
    cells = tuple((x, y) for y in range(4) for x in range(25))
    assert counting.solutions([Constraint(cells, 20)], 1000) is None
    every = counting.solutions([Constraint(cells, 1)], 100)
    assert every is not None and set(every) == {frozenset({c}) for c in cells}
    assert counting.solutions([Constraint(cells, 1)], 99) is None


_component = st.integers(1, 4).flatmap(
    lambda cells: st.dictionaries(
        st.integers(0, 6), st.lists(st.integers(0, 2**70), min_size=cells, max_size=cells),
        max_size=4,
    )
)


@settings(max_examples=300, deadline=None)
@given(components_=st.lists(_component, max_size=4), outside=st.integers(0, 12),
       mines_left=st.integers(-1, 14), scale=st.integers(1, 2**80))
def test_weigh_equals_summing_every_combination(
    components_: list[dict[int, list[int]]], outside: int, mines_left: int, scale: int
) -> None:
    """The compiled combination against a sum over every choice of mine counts, one per
    component (any counts: the kernel only multiplies and adds them)."""
    dists = [{k: scale * (k + 1) + sum(row) for k, row in c.items()} for c in components_]
    weight = outside_mine = 0
    mine = [[0] * len(next(iter(c.values()), [])) for c in components_]
    for ks in itertools.product(*[sorted(c) for c in components_]):
        rest = mines_left - sum(ks)
        if not 0 <= rest <= outside:
            continue
        ways = prod(d[k] for d, k in zip(dists, ks, strict=True)) * comb(outside, rest)
        weight += ways
        if rest:
            outside_mine += ways * rest // outside
        for i, (c, k) in enumerate(zip(components_, ks, strict=True)):
            for j, v in enumerate(c[k]):
                mine[i][j] += v * ways // dists[i][k]
    alone = weigh(dists, None, outside, mines_left, comb)
    got = weigh(dists, components_, outside, mines_left, comb)
    if weight == 0:
        assert alone is None and got is None
        return
    assert alone is not None and (alone.weight, alone.mine, alone.shift) == (weight, None, 0)
    assert got is not None and (got.weight, got.outside_mine, got.mine) == (
        weight, outside_mine, mine)
    # cut to a few bits, every weight is within 2 ** (1 - bits) of the exact one (the
    # outside cell's within outside times that), and zero only when that is
    bits = 8
    cut = weigh(dists, components_, outside, mines_left, comb, bits)
    assert cut is not None and cut.mine is not None
    scale = 2**cut.shift
    for exact, rounded, error in [
        (weight, cut.weight, 2 ** (1 - bits)),
        (outside_mine, cut.outside_mine, outside * 2 ** (1 - bits)),
        *((e, r, 2 ** (1 - bits))
          for e, r in zip(itertools.chain(*mine), itertools.chain(*cut.mine), strict=True)),
    ]:
        assert (exact == 0) == (rounded == 0)
        assert exact * (1 - error) <= rounded * scale <= exact


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_varying_tables_equal_each_count_alone(data: st.DataObject) -> None:
    """One search split by the shown constraint's mines gives each value's table, the
    same as a search with that value; past the node limit each value fails or not as
    its own search does."""
    cells = [(x, y) for y in range(2) for x in range(data.draw(st.integers(1, 4)))]
    picks = st.sets(st.sampled_from(cells), min_size=1)
    constraints = [
        Constraint(tuple(sorted(c)), min(m, len(c)))
        for c, m in data.draw(st.lists(st.tuples(picks, st.integers(0, 3)), max_size=4))
    ]
    shown = Constraint(tuple(sorted(data.draw(picks))), 0)
    node_limit = data.draw(st.sampled_from([10**6, 0, 1, 2, 3, 5, 8]))
    vary = counting.Varying([*constraints, shown], shown, node_limit, counting.LayoutCounter())
    for v in range(len(shown.cells) + 1):
        key = tuple(sorted([*constraints, Constraint(shown.cells, v)]))
        try:
            expected = counting.tabulate(key, node_limit, counter=None)
        except counting.TooBig:
            with pytest.raises(counting.TooBig):
                vary.table(v)
            continue
        got = vary.table(v)
        assert (got.cells, got.totals, got.cell_counts, got.constraints) == (
            expected.cells, expected.totals, expected.cell_counts, expected.constraints)
        assert vary.table(v) is got  # the second time from the cache


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_classes_group_cells_by_their_constraints(data: st.DataObject) -> None:
    """The compiled classes: each holds the cells in exactly its constraints (all of
    them, in the order first met), and each class after the first of a connected part
    shares a constraint with one before it (breadth-first through shared constraints,
    from the largest signature)."""
    cells = [(x, y) for y in range(3) for x in range(4)]
    key = tuple(
        tuple(sorted(c, key=lambda c: (c[1], c[0])))
        for c in data.draw(st.lists(st.sets(st.sampled_from(cells), min_size=1), max_size=6))
    )
    got, cons_of = classes(key)
    member = {c: [j for j, cs in enumerate(key) if c in cs] for cs in key for c in cs}
    met = [c for cs in key for c in cs].index
    for cls, js in zip(got, cons_of, strict=True):
        assert all(member[c] == js for c in cls)
        assert cls == sorted(cls, key=met)
    assert len({tuple(js) for js in cons_of}) == len(cons_of)
    assert sorted(c for cls in got for c in cls) == sorted(member)
    reached: set[int] = set()
    for i, js in enumerate(cons_of):
        if i and not reached & set(js):
            # a new connected part starts with the largest signature left
            assert len(js) == max(len(o) for o in cons_of[i:] if not reached & set(o))
        reached |= set(js)
