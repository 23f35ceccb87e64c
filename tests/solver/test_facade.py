"""The facade ``kaboom.solver`` exports what its public names take, return and raise."""

from __future__ import annotations

import enum
import importlib
import inspect
import pkgutil
import re
import types
import typing
from collections.abc import Callable, Iterator

import kaboom.solver as facade

_EXPORTED = {id(getattr(facade, name)) for name in facade.__all__}


def _solver_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class the solver's modules define, by name."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(facade.__path__, "kaboom.solver."):
        if "._kernels" in info.name or ".bench" in info.name:
            continue
        for name, value in vars(importlib.import_module(info.name)).items():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__.startswith("kaboom.solver")):
                found[name] = value
    return found


def _types_in(hint: object) -> Iterator[object]:
    """The classes a type hint names, through unions and generics."""
    yield hint
    args = getattr(hint, "__args__", ())
    for arg in args if isinstance(args, tuple) else ():
        yield from _types_in(arg)
    origin = typing.get_origin(hint)
    if origin is not None:
        yield origin


def _public_callables() -> Iterator[tuple[str, Callable[..., object]]]:
    """The facade's functions, and its classes with their public methods."""
    for name in facade.__all__:
        obj = getattr(facade, name)
        if isinstance(obj, types.GenericAlias) or (
                inspect.isclass(obj) and issubclass(obj, (BaseException, enum.Enum))):
            continue  # a type alias (Cell), an exception, an enumeration
        if not inspect.isclass(obj):
            if callable(obj):  # not a constant (PRESETS)
                yield name, obj
            continue
        yield name, obj
        yield f"{name}.__init__", obj.__init__
        for attr, member in vars(obj).items():
            fn = member.fget if isinstance(member, property) else member
            fn = getattr(fn, "__func__", fn)  # a class or static method's function
            if not attr.startswith("_") and callable(fn):
                yield f"{name}.{attr}", fn


def test_every_type_and_exception_of_a_public_name_is_exported() -> None:
    exceptions = _solver_exceptions()
    missing = set()
    for label, fn in _public_callables():
        hints = typing.get_type_hints(fn, localns={"Unpack": typing.Unpack})
        for hint in hints.values():
            for tp in _types_in(hint):
                module = getattr(tp, "__module__", "") or ""
                if module.startswith("kaboom.solver") and id(tp) not in _EXPORTED:
                    missing.add(f"{label}: {module}.{getattr(tp, '__qualname__', tp)}")
        for word in re.findall(r"[A-Za-z_]+", inspect.getdoc(fn) or ""):
            raised = exceptions.get(word)
            if raised is not None and id(raised) not in _EXPORTED:
                missing.add(f"{label}: raises {raised.__module__}.{word}")
    assert not missing, sorted(missing)
