"""The server benchmarks still play real games against the current API.

They are run at their smallest settings and only their results are checked (games
played, moves answered, no errors), never their timings: `bench/server_reveal.py`
went on answering 401 to every HTTP reveal for two days after player tokens came,
and nothing noticed.
"""

from __future__ import annotations

from pathlib import Path

from tests.benchkit import bench_report, run_bench


def test_server_reveal_plays_whole_games_in_process_and_over_http(tmp_path: Path) -> None:
    out = tmp_path / "reveal.json"
    run_bench("server_reveal.py", "--sizes", "9x9/10", "--games", "2", "--modes", "inprocess",
         "http", "--encodings", "native", "--json", str(out))
    rows = bench_report(out)["results"]
    assert {r["mode"] for r in rows} == {"inprocess", "http"}
    for row in rows:
        assert row["games"] == 2
        # the same seeded games either way: the same reveals
        assert row["reveal"]["n"] == rows[0]["reveal"]["n"] > 0
        assert row["get"]["n"] == row["reveal"]["n"]


def test_bot_load_bots_finish_games_without_errors(tmp_path: Path) -> None:
    out = tmp_path / "load.json"
    run_bench("bot_load.py", "--preset", "beginner", "--levels", "1,2", "--seconds", "1.5",
         "--json", str(out))
    levels = bench_report(out)["levels"]
    assert [lv["k"] for lv in levels] == [1, 2]
    for lv in levels:
        assert lv["games"] >= 1 and lv["moves"] > 0
        assert lv["errors"] == 0 and lv["retries"] == 0
        assert lv["wins"] + lv["losses"] <= lv["games"]


def test_abuse_refuses_the_abuse_and_serves_the_bots(tmp_path: Path) -> None:
    out = tmp_path / "abuse.json"
    run_bench("abuse.py", "--seconds", "1.5", "--bots", "1", "--phases", "baseline,body_1mb",
         "--json", str(out))
    phases = {p["phase"]: p for p in bench_report(out)["phases"]}
    assert {p["row"] for p in phases.values()} == {"after"}  # no --before: nginx's alone
    assert phases["baseline"]["gets"] > 0 and phases["baseline"]["bot_requests"] > 0
    body = phases["body_1mb"]
    # nginx answers 413 as soon as it reads the length, and may close before the client
    # has sent the rest (0: the connection went)
    assert body["abusive"] > 0 and set(body["abusive_codes"]) <= {"1.1 MB 413", "1.1 MB 0"}
    assert body["abusive_codes"].get("1.1 MB 413", 0) > 0


def test_slow_clients_leave_the_player_served(tmp_path: Path) -> None:
    out = tmp_path / "slow.json"
    run_bench("slow_clients.py", "--attackers", "2", "--per-attacker", "80", "--seconds", "4",
              "--json", str(out))
    [result] = bench_report(out)["results"]
    attacked = result["attacked"]
    assert result["row"] == "after"
    assert attacked["attack_connections_peak"] > 0  # nginx holds them, up to 10 s
    assert attacked["answered_pct"] == 100.0 and attacked["reads"] > 0


def test_read_flood_times_the_players_reads_behind_nginx(tmp_path: Path) -> None:
    out = tmp_path / "flood.json"
    run_bench("read_flood.py", "--connections", "8", "--seconds", "2", "--repeat", "1",
              "--json", str(out))
    [result] = bench_report(out)["results"]
    assert result["row"] == "after"
    assert result["quiet"]["reads"] > 0 and result["flooded"]["reads"] > 0
    assert 0 < result["flood_reads_per_s"] <= 100 * 1.5  # the flood served at its rate


def test_fair_share_times_the_players_moves_in_both_phases(tmp_path: Path) -> None:
    out = tmp_path / "fair.json"
    run_bench("fair_share.py", "--games", "2", "--seconds", "1.5", "--json", str(out))
    report = bench_report(out)["rows"]["after"]
    for phase in ("alone", "flood"):
        assert report[phase]["answered_200"] > 0 and report[phase]["median_s"] > 0
    assert report["alone"]["flood_answers"] == {} and report["flood"]["flood_answers"]


def test_proof_time_finds_proofs_in_played_games(tmp_path: Path) -> None:
    out = tmp_path / "proofs.json"
    run_bench("proof_time.py", "--sizes", "30x16/99", "--games", "1", "--json", str(out))
    [row] = bench_report(out)["results"]
    assert row["games"] == 1 and row["proofs"] > 0
    assert 1 <= row["mean_numbers"] <= row["max_numbers"]


def test_analyse_time_analyses_positions_of_played_games(tmp_path: Path) -> None:
    out = tmp_path / "analyse.json"
    run_bench("analyse_time.py", "--sizes", "30x16/99", "--games", "1", "--per-game", "3",
              "--json", str(out))
    [row] = bench_report(out)["results"]
    assert row["games"] == 1 and 1 <= row["positions"] <= 3
    assert row["exact"] <= row["positions"] and row["recommended"] <= row["positions"]


def test_analyse_time_measures_the_win_chances_of_guesses(tmp_path: Path) -> None:
    out = tmp_path / "chances.json"
    run_bench("analyse_time.py", "--sizes", "9x9/10", "--games", "2", "--per-game", "2",
              "--chances", "--json", str(out))
    [row] = bench_report(out)["results"]
    assert 1 <= row["positions"] <= 4 and row["guesses"] == row["positions"]
    assert row["chances_exact"] + row["chances_estimated"] + row["too_large"] == row["guesses"]
    assert row["rollouts_min"] <= row["rollouts_p50"] <= 1000


def test_scale_serves_replayed_games_on_both_stores(tmp_path: Path) -> None:
    out = tmp_path / "scale.json"
    run_bench("scale.py", "--seconds", "1", "--concurrency", "2", "--processes", "2",
              "--games", "2", "--out", str(out))
    rows = bench_report(out)["rows"]
    served = [r for r in rows if "moves_per_s" in r]
    polled = [r for r in rows if r.get("measure") == "cross-process long poll"]
    assert sorted(r["store"] for r in served) == ["postgresql", "sqlite"]
    for row in served:
        assert row["processes"] == 2 and row["errors"] == 0 and row["reveals"] > 0
    # a move made through one process wakes a long poll held by the other
    assert sorted(r["store"] for r in polled) == ["postgresql", "sqlite"]
    assert all(r["samples"] > 0 for r in polled)


def test_open_pages_delivers_every_move_to_every_stream(tmp_path: Path) -> None:
    out = tmp_path / "pages.json"
    run_bench("open_pages.py", "--streams", "40", "--games", "4", "--rounds", "2",
              "--paired", "4", "--idle", "1", "--json", str(out))
    [row] = bench_report(out)["results"]
    assert row["row"] == "after"  # no --before: this checkout's alone
    assert row["opened"] == 40 and row["refused"] == 0
    assert row["moves_answered"] == 8 and row["delivered"] == 80 and row["missed"] == 0
    paired = row["paired"]
    assert paired["missed"] == 0 and paired["same_process"]["p50_ms"] is not None
