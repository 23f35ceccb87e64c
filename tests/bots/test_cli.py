"""``kaboom bot play``'s argument handling (no server needed)."""

from __future__ import annotations

import argparse

import pytest

from kaboom.bots import play_cli


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    play_cli.add_arguments(parser)
    return parser.parse_args(argv)


def test_presets_and_sizes() -> None:
    settings = play_cli._settings(_args("--preset", "beginner", "--games", "3", "--seed", "5"))
    assert isinstance(settings, list) and len(settings) == 3
    assert (settings[0].width, settings[0].height, settings[0].mines) == (9, 9, 10)
    assert [s.seed for s in settings] == [5, 6, 7]
    custom = play_cli._settings(_args("--width", "8", "--height", "5", "--mines", "7",
                                      "--forced-guess", "fair", "--outside-guess"))
    assert isinstance(custom, list)
    body = custom[0].to_json()
    assert body == {"width": 8, "height": 5, "mines": 7, "forced_guess": "fair",
                    "outside_guess": True}
    default = play_cli._settings(_args())
    assert isinstance(default, list) and default[0].to_json() == {
        "width": 30, "height": 16, "mines": 99}


@pytest.mark.parametrize("argv", [
    ("--preset", "expert", "--width", "5"),
    ("--width", "5", "--height", "5"),
    ("--seed", str(2**63 - 1), "--games", "2"),  # game 2's seed is past the server's range
    ("--width", "0", "--height", "0", "--mines", "0"),  # was a 422 from the server, exit 1
    ("--width", "300", "--height", "9", "--mines", "10"),
    ("--width", "3", "--height", "3", "--mines", "9"),
])
def test_bad_arguments_exit_2(argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    assert play_cli.run(_args(*argv)) == 2
    assert "kaboom bot play:" in capsys.readouterr().err


def test_the_solver_profile_is_checked_before_any_game(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _args().profile == "strong"
    assert _args("--profile", "fast,candidates=3").profile == "fast,candidates=3"
    with pytest.raises(SystemExit) as e:
        _args("--profile", "strong,bogus=1")
    assert e.value.code == 2
    assert "unknown option 'bogus'" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "says"), [
    (("--games", "0"), "argument --games: 0 is less than 1"),
    (("--concurrency", "0"), "argument --concurrency: 0 is less than 1"),
    (("--max-errors", "0"), "argument --max-errors: 0 is less than 1"),
    (("--seed", "0"), "argument --seed: 0 is less than 1"),
    (("--timeout", "0"), "argument --timeout: 0 seconds: give more than 0"),
    (("--retry-for", "-1"), "argument --retry-for: -1 seconds: give at least 0"),
    (("--timeout", "nan"), "argument --timeout: nan seconds"),
])
def test_counts_and_times_are_checked_as_they_are_parsed(
    argv: tuple[str, ...], says: str, capsys: pytest.CaptureFixture[str],
) -> None:
    """Values that ran but misbehaved: ``--timeout 0`` said the server could not be
    reached, ``--max-errors 0`` played nothing and exited 0."""
    with pytest.raises(SystemExit) as e:
        _args(*argv)
    assert e.value.code == 2
    assert says in capsys.readouterr().err
