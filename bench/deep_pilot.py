"""How far apart the lookahead's candidates are in win chance, by stage: the evidence a
``deep`` search would see.

Usage: python bench/deep_pilot.py --preset expert --rule sfar --games 60 --rollouts 300 \
           --jobs 2 --seed 801 --json bench/results/deep_pilot.json [--validate 2000]

Plays ``--games`` games with ``strong``.  At each guess where the lookahead weighed
several cells, the cells ``deep`` would search (``--profile``'s candidates and margin,
whatever its stage) are played on the same ``--rollouts`` layouts
(:func:`kaboom.solver.winchance.win_chances`, ``fast`` playing on), and each other
candidate's paired difference from the lookahead's choice is recorded with its standard
error.  If the candidates were as good as each other, ``z = difference / se`` would be
about normal with mean 0 and spread 1; a spread well above 1 says some candidates are
truly apart (a search can find them), a negative mean that the lookahead's choice is
the better one on average.  Summarised by covered cells at the guess.

``--validate N`` measures what the profile's searches gain: where its rule
(:func:`kaboom.solver.deep.preferred`, on its own ``rollouts``) would play another cell
than the lookahead's, both are played again on ``N`` fresh layouts (another seed), with
``--validate-policy`` (``strong``) playing on, and the difference is kept.  Its mean over
the switches is an unbiased estimate of what a switch gains (the layouts that chose it are
not the ones that score it), and times the switches a game, of what the profile gains a
game, far more cheaply than a paired run of whole games can tell.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import time

from tqdm import tqdm

from kaboom.solver import FirstClick, GameStatus, SimulatedGame, Solver, find_profile, preset
from kaboom.solver.bench.machine import machine
from kaboom.solver.bench.runner import game_seed
from kaboom.solver.deep import candidates, preferred
from kaboom.solver.winchance import win_chances

STAGES = (("early", 350), ("middle", 150), ("late", 0))
"""A guess's stage by its covered cells: more than 350, more than 150, the rest."""


Task = tuple[str, str, str, int | None, int, str, int]
"""A game to measure: preset, rule, profile, rollouts, validation rollouts, validation
policy, seed."""


def play_seed(args: Task) -> tuple[list[dict[str, object]], float]:
    name, rule, spec, rollouts, validate, validator, seed = args
    start = time.process_time()
    w, h, m = preset(name)
    profile = find_profile(spec)
    game = SimulatedGame(w, h, m, rule=rule, seed=seed)
    solver = Solver("strong", first_click=FirstClick(rule))
    found: list[dict[str, object]] = []
    while game.outcome is GameStatus.PLAYING:
        position = game.position()
        d = solver.decide(position)
        if not d.moves:
            break
        cells = candidates(position, d, profile)
        if len(cells) > 1:
            t = time.process_time()
            chances = win_chances(position, cells, rollouts=rollouts or profile.rollouts,
                                  exact_layouts=0, policy=profile.rollout_policy)
            pick = preferred(chances, profile)
            for c in cells[1:]:
                diff = chances.difference(c, cells[0])
                found.append({"seed": seed, "covered": game.covered, "chosen": cells[0],
                              "other": c, "difference": diff.estimate, "se": diff.se,
                              "chosen_chance": chances.of(cells[0]).chance,
                              "cpu_s": time.process_time() - t, "picked": c == pick})
            if validate and pick != cells[0]:
                t = time.process_time()
                again = win_chances(position, [pick, cells[0]], rollouts=validate, seed=1,
                                    exact_layouts=0, policy=validator)
                gain = again.difference(pick, cells[0])
                found[-1].update(validated_gain=gain.estimate, validated_se=gain.se,
                                 validated_cpu_s=time.process_time() - t)
        game.play_all(d.moves)
    return found, time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="expert")
    ap.add_argument("--rule", default="sfar")
    ap.add_argument("--profile", default="deep", help="whose candidates and margin")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--rollouts", type=int, help="rollouts a search (the profile's)")
    ap.add_argument("--validate", type=int, default=0, metavar="N",
                    help="score each switch of the profile's rule on N fresh layouts")
    ap.add_argument("--validate-policy", default="strong")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json")
    args = ap.parse_args()
    where, start = machine(), time.perf_counter()
    tasks: list[Task] = [(args.preset, args.rule, args.profile, args.rollouts, args.validate,
                          args.validate_policy, game_seed(args.seed, i))
                         for i in range(args.games)]
    rows: list[dict[str, object]] = []
    cpu = 0.0
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        for found, cpu_s in tqdm(pool.imap_unordered(play_seed, tasks), total=args.games,
                                 unit="game", file=sys.stderr):
            rows += found
            cpu += cpu_s
    print(f"{args.games} games, {len(rows)} challengers; CPU {cpu:.0f} s, wall "
          f"{time.perf_counter() - start:.0f} s; load at the start {where['load']}")
    summary: dict[str, object] = {}
    for stage, low in STAGES:
        high = min((lo for _, lo in STAGES if lo > low), default=None)
        part = [r for r in rows if int(str(r["covered"])) > low
                and (high is None or int(str(r["covered"])) <= high)]
        if len(part) < 2:
            continue
        z = [float(str(r["difference"])) / float(str(r["se"])) for r in part if r["se"]]
        d = [100 * float(str(r["difference"])) for r in part]
        summary[stage] = row = {
            "challengers": len(part), "per_game": len(part) / args.games,
            "difference_mean": statistics.fmean(d), "difference_sd": statistics.stdev(d),
            "se_mean": 100 * statistics.fmean(float(str(r["se"])) for r in part),
            "z_mean": statistics.fmean(z) if z else 0.0,
            "z_sd": statistics.stdev(z) if len(z) > 1 else 0.0,
            "z_above_1": sum(x > 1 for x in z), "z_above_2": sum(x > 2 for x in z),
            "cpu_s_a_search": statistics.fmean(float(str(r["cpu_s"])) for r in part),
        }
        print(f"  {stage:6}: {row['challengers']} challengers ({row['per_game']:.2f} a game); "
              f"difference {row['difference_mean']:+.2f} points (sd {row['difference_sd']:.2f},"
              f" se {row['se_mean']:.2f}); z mean {row['z_mean']:+.2f} sd {row['z_sd']:.2f}; "
              f"z > 1: {row['z_above_1']}, z > 2: {row['z_above_2']}")
    gains = [100 * float(str(r["validated_gain"])) for r in rows if "validated_gain" in r]
    if args.validate and gains:
        se = statistics.stdev(gains) / len(gains) ** 0.5 if len(gains) > 1 else float("inf")
        rate = len(gains) / args.games
        summary["switches"] = {"count": len(gains), "per_game": rate,
                               "gain_mean": statistics.fmean(gains), "gain_se": se,
                               "per_game_gain": rate * statistics.fmean(gains),
                               "per_game_gain_se": rate * se}
        print(f"  switches: {len(gains)} ({rate:.3f} a game); each gains "
              f"{statistics.fmean(gains):+.2f} ± {se:.2f} points on {args.validate} fresh "
              f"layouts ({args.validate_policy} playing on): {rate * statistics.fmean(gains):+.3f}"
              f" ± {rate * se:.3f} points a game")
    elif args.validate:
        print("  switches: none")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"settings": vars(args), "machine": where, "cpu_s": cpu,
                       "summary": summary, "challengers": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
