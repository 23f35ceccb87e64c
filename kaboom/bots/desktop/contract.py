"""The desktop profile contract's version, and the check that refuses a profile of
another version when it is loaded.

A profile class declares the contract it is written for (``contract = 3``).  The
contract is what the driver calls a profile with and what it expects back: the
override points' signatures and duties, the defaults a profile leans on, the values it
is handed.  It changes version when a change could break a profile written for the old
one; additions with a default that keeps old profiles working do not.

Loading a profile (:func:`~kaboom.bots.desktop.profile.find_profile`, or making one)
checks it: another version, no declaration, or an override that still has an older
contract's shape (one that would fail with ``TypeError`` or ``AttributeError`` in the
middle of a game) is refused with :class:`ProfileContractError`, which names each
change and where its migration note is.
"""

from __future__ import annotations

import dis
import inspect
from collections.abc import Iterator
from types import FunctionType

__all__ = ["CHANGES", "CONTRACT_VERSION", "MIGRATION_NOTES", "ProfileContractError",
           "check_contract"]

CONTRACT_VERSION = 3
"""The version of the profile contract this Kaboom implements; a profile declares the
one it is written for as ``contract = 3``."""

MIGRATION_NOTES = ("the migration notes in Kaboom's docs/desktop.md, 'Profile contract "
                   "versions' (CHANGELOG.md dates each change)")
"""Where a profile's author finds how to move a profile to this contract."""

CHANGES: dict[int, tuple[str, ...]] = {
    2: (
        "calibrate(image, grid) returns a Calibration and keeps nothing: the reader keeps "
        "it, and self.calibration is read-only (a profile of contract 1 assigned it)",
        "classify(look) became classify(look, calibration): the calibration is handed in, "
        "with is_covered(look) and is_open(look) (a profile's own self.is_covered and "
        "self.is_open are gone)",
        "read(image, grid) is final: it owns the calibration and the memo of readings",
        "Pointer.click(window, x, y, button) clicks in the window's coordinates and only "
        "where that window is on top (it was Pointer.click(x, y, button) on the screen)",
        "everything is imported from kaboom.bots.desktop (the packages bots, solver and "
        "server moved under kaboom)",
    ),
    3: (
        "a profile declares the contract it is written for: contract = 3",
        "the default classify reads ink on a covered tile as a flag only in the palette's "
        "'flag' colour (and as '?' in its '?' colour), and is unsure of other ink: declare "
        "palette['flag'] where a profile relies on the default for flags",
        "a loss sign ends a game as lost even where classify reads every cell, and "
        "loss_sign(image, grid) is an override point that returns the sign in words (or "
        "None); MinesUnreadError.sign is those words",
    ),
}
"""What each contract version changed from the one before, a line a change."""

# The arguments the driver passes to each override point (after self).
_CALLS: dict[str, tuple[str, ...]] = {
    "command": ("game_id",),
    "can_launch": ("game_id",),
    "environment": (),
    "launch": ("game_id", "display"),
    "stop": ("process",),
    "find_window": ("screen", "timeout"),
    "next_game_id": ("game_id", "index"),
    "new_game": ("pointer", "window", "image", "grid"),
    "dismiss": ("screen", "pointer", "window", "dialogs"),
    "mine_count": ("game_id", "width", "height"),
    "find_grid": ("image",),
    "calibrate": ("image", "grid"),
    "classify": ("look", "calibration"),
    "loss_sign": ("image", "grid"),
    "outcome": ("position",),
}


class ProfileContractError(ValueError):
    """Raised when a profile is loaded that is not written for this contract
    (:data:`CONTRACT_VERSION`): another version, none declared, or an override with an
    older contract's shape.  The message names each change and the migration notes."""


def _overrides(cls: type, base: type) -> Iterator[tuple[str, FunctionType]]:
    """The functions ``cls`` and its bases below ``base`` define, by name (nearest first)."""
    seen: set[str] = set()
    for klass in cls.__mro__:
        if klass is base or not issubclass(klass, base):
            continue
        for name, value in vars(klass).items():
            if name not in seen and isinstance(value, FunctionType):
                seen.add(name)
                yield name, value


def _touches(function: FunctionType, store: bool, attr: str, on_self: bool) -> bool:
    """Whether ``function`` assigns (``store``) or reads attribute ``attr``; with
    ``on_self``, only on its first argument."""
    first = function.__code__.co_varnames[:1]
    before: dis.Instruction | None = None
    for ins in dis.get_instructions(function):
        wanted = ins.opname == "STORE_ATTR" if store else ins.opname in ("LOAD_ATTR",
                                                                           "LOAD_METHOD")
        if wanted and ins.argval == attr and (
                not on_self or (before is not None and before.opname == "LOAD_FAST"
                                and (before.argval,) == first)):
            return True
        before = ins
    return False


def _old_shapes(cls: type, base: type) -> list[str]:
    """The overrides of ``cls`` that have an older contract's shape, each in words."""
    found = []
    for name, function in _overrides(cls, base):
        calls = _CALLS.get(name)
        if calls is not None:
            try:
                inspect.signature(function).bind(None, *calls)
            except TypeError:
                shape = f"{name}{inspect.signature(function)}".replace("(self, ", "(")
                if name == "classify":
                    found.append(f"{shape} takes no calibration: since contract 2 it is "
                                 "classify(look, calibration)")
                else:
                    found.append(f"{shape} cannot be called as {name}({', '.join(calls)}), "
                                 "as the driver calls it")
        if name == "read":
            found.append("it overrides read, which is final since contract 2 (override "
                         "calibrate and classify instead)")
        if _touches(function, True, "calibration", on_self=False):
            found.append(f"{name} assigns .calibration: since contract 2 calibrate returns "
                         "the Calibration and keeps nothing (the reader keeps it)")
        for helper in ("is_covered", "is_open"):
            if not hasattr(cls, helper) and _touches(function, False, helper, on_self=True):
                found.append(f"{name} calls self.{helper}, gone in contract 2: "
                             f"calibration.{helper}(look) on the calibration classify is "
                             "handed")
    return found


def check_contract(cls: type, base: type, where: str | None = None) -> None:
    """Refuses profile class ``cls`` (a subclass of ``base``, the profile base class)
    unless it declares :data:`CONTRACT_VERSION` and no override has an older shape;
    ``where`` says where it comes from (an entry point).  Raises
    :class:`ProfileContractError`."""
    declared = getattr(cls, "contract", None)
    shapes = _old_shapes(cls, base)
    if declared == CONTRACT_VERSION and not shapes:
        return
    label = f"profile {getattr(cls, 'name', cls.__name__)!r} ({where or cls.__qualname__})"
    if declared is None:
        said = (f"it declares no profile contract (this Kaboom implements contract "
                f"{CONTRACT_VERSION}; profiles written before contracts were declared "
                "follow contract 1 or 2)")
        since = 1
    elif not isinstance(declared, int) or isinstance(declared, bool) or declared < 1:
        said = f"its contract = {declared!r} is no contract version"
        since = 1
    elif declared > CONTRACT_VERSION:
        raise ProfileContractError(
            f"{label} is written for profile contract {declared}, newer than this "
            f"Kaboom's ({CONTRACT_VERSION}): install the kaboom-minesweeper it was written "
            "for, or a later one")
    elif declared < CONTRACT_VERSION:
        said = (f"it is written for profile contract {declared}; this Kaboom implements "
                f"contract {CONTRACT_VERSION}")
        since = declared
    else:
        said = (f"it declares contract {CONTRACT_VERSION}, but some of its overrides do "
                "not follow it")
        since = CONTRACT_VERSION
    lines = [f"{label} cannot be loaded: {said}."]
    if shapes:
        lines.append("Overrides of an older contract's shape:")
        lines += [f"  - {s}" for s in shapes]
    changes = [(v, c) for v in sorted(CHANGES) if v > since for c in CHANGES[v]]
    if changes:
        lines.append("What changed since:")
        lines += [f"  - contract {v}: {c}" for v, c in changes]
    lines.append(f"Migrate it with {MIGRATION_NOTES}, then declare "
                 f"contract = {CONTRACT_VERSION}.")
    raise ProfileContractError("\n".join(lines))

