"""A Sphinx extension for Kaboom's API reference: every public name documented, every
reference resolved, and the HTTP API generated from the server's OpenAPI document.

autodoc documents what it finds and says nothing of what it does not: a function
without a docstring shows its bare signature, and a name a lazy module exports without
listing it in ``dir()`` is silently left out.  So this extension turns each gap into a
warning, which ``sphinx -W`` makes an error:

* a public name without a docstring (a class's field counts as documented when the
  class's docstring names it, and an enum's members by their enum's docstring);
* a name in the ``__all__`` of a module of ``reference_modules`` that the reference
  does not show;
* a reference to nothing, once a name's defining module is read as the package that
  exports it (``kaboom.solver.counting.Table`` is ``kaboom.solver.Table``, where the
  reference shows it).  References outside ``kaboom`` (the standard library, numpy)
  are left unchecked: the build is offline, without their inventories.

A name that two modules of ``reference_modules`` export is shown once, under the first
(``kaboom.solver.Position``, not again under ``kaboom.solver.position``); the later
module's page links to it.  There is no list of tolerated gaps: each one fails the build.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import json
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.domains.python import PythonDomain
from sphinx.environment import BuildEnvironment
from sphinx.errors import PycodeError
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

__all__ = ["setup"]

log = logging.getLogger(__name__)


class _Checks:
    """What one build found: the public names by object."""

    def __init__(self) -> None:
        self.public: dict[int, str] = {}
        """The name the reference shows each exported object by (under the first module of
        ``reference_modules`` that exports it), by ``id``."""
        self.openapi = False
        """Whether a page shows the HTTP API (its document is then written beside it)."""

    def load(self, app: Sphinx) -> None:
        self.public, self.openapi = {}, False
        for module in app.config.reference_modules:
            mod = importlib.import_module(module)
            for name in getattr(mod, "__all__", ()):
                value = getattr(mod, name)
                if _one_object(value):
                    self.public.setdefault(id(value), f"{module}.{name}")

    def shown_as(self, module: str, name: str) -> str:
        """The name the reference shows ``module.name`` by: an earlier module's, when it
        exports the same object."""
        value = getattr(importlib.import_module(module), name)
        own = f"{module}.{name}"
        return self.public.get(id(value), own) if _one_object(value) else own


def _one_object(value: object) -> bool:
    """Whether two names of ``value`` are one export: not a number, a string or another
    immutable value, whose equal copies may be one object by chance."""
    return not isinstance(value, (bool, int, float, complex, str, bytes, tuple, frozenset,
                                  type(None)))


def _load(path: str) -> Any:
    """The object at a dotted path (a module, then attributes), or ``None``."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                value = getattr(value, attr)
        except AttributeError:
            return None
        return value
    return None


def _class_doc(cls: type) -> bool:
    """Whether a class has a docstring of its own (not a base's, nor the one dataclasses
    write from the signature)."""
    doc = cls.__dict__.get("__doc__")
    if not doc or not doc.strip():
        return False
    try:
        signature = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    except (TypeError, ValueError):
        return True
    return bool(doc != signature)


@cache
def _attr_docs(module: str) -> dict[tuple[str, str], list[str]]:
    try:
        return dict(ModuleAnalyzer.for_module(module).find_attr_docs())
    except PycodeError:
        return {}


def _attribute_doc(owner: type, attr: str) -> bool:
    """Whether a class attribute is documented: a docstring under it (in the class or a
    base), its enum's docstring for a member, or the class's docstring naming it
    (````attr````)."""
    if issubclass(owner, enum.Enum) and attr in owner.__members__:
        return _class_doc(owner)
    for base in owner.__mro__:
        if any(line.strip() for line in _attr_docs(base.__module__).get(
                (base.__qualname__, attr), [])):
            return True
    return f"``{attr}``" in (owner.__dict__.get("__doc__") or "")


def _documented(objtype: str, name: str) -> bool:
    value = _load(name)
    if objtype in ("class", "exception"):
        return inspect.isclass(value) and _class_doc(value)
    if objtype == "attribute":
        owner_path, _, attr = name.rpartition(".")
        owner = _load(owner_path)
        return inspect.isclass(owner) and _attribute_doc(owner, attr)
    if objtype == "property":
        owner_path, _, attr = name.rpartition(".")
        prop = inspect.getattr_static(_load(owner_path), attr, None)
        return bool(inspect.getdoc(prop))
    return bool(inspect.getdoc(value))  # modules, functions, methods (inherited too)


def _public_target(target: str) -> str | None:
    """``target`` under the name the reference shows it by, when its defining module is
    not the package that exports it."""
    parts = target.split(".")
    for cut in range(len(parts), 1, -1):
        value = _load(".".join(parts[:cut]))
        public = CHECKS.public.get(id(value)) if value is not None else None
        if public is not None:
            return ".".join([public, *parts[cut:]])
    return None


def _resolve(app: Sphinx, env: BuildEnvironment, node: pending_xref,
             contnode: nodes.TextElement) -> nodes.Node | None:
    if node.get("refdomain") != "py":
        return None
    target, kind = node["reftarget"], node["reftype"]
    if not target.startswith("kaboom") and "." in target:
        return contnode  # the standard library, numpy...: not checked here
    domain = env.get_domain("py")
    assert isinstance(domain, PythonDomain)
    for full in _candidates(node, target):
        public = _public_target(full)
        if public is None or public == full:
            continue
        for role in (kind, "obj"):
            found = domain.resolve_xref(env, node.get("refdoc", ""), app.builder, role,
                                        public, node, contnode)
            if found is not None:
                return found
    return None  # nitpicky: Sphinx warns that the target is not found


def _candidates(node: pending_xref, target: str) -> list[str]:
    """The full names ``target`` may stand for: itself, and a short name read in the
    class and the module where it is written (``Position`` in the docstring of
    ``kaboom.solver.position``, whose page shows it as ``kaboom.solver.Position``)."""
    if "." in target:
        return [target]
    module, cls = node.get("py:module"), node.get("py:class")
    scopes = [f"{module}.{cls}" if module and cls else None, module]
    return [f"{scope}.{target}" for scope in scopes if scope] + [target]


def _check_complete(app: Sphinx, env: BuildEnvironment) -> None:
    """Every name of each module's ``__all__`` is in the reference, and every public name
    the reference shows under it has a docstring.

    autodoc's own event for a docstring is not sent for a member that has none, so the
    objects the reference shows are checked here, each by where its text would be.
    """
    domain = env.get_domain("py")
    assert isinstance(domain, PythonDomain)
    documented = domain.objects
    for module in app.config.reference_modules:
        exported = getattr(importlib.import_module(module), "__all__", ())
        for name in exported:
            if CHECKS.shown_as(module, name) not in documented:
                log.warning("%s.%s is in __all__ but not in the reference (does dir(%s) "
                            "list it?)", module, name, module, type="kaboom",
                            subtype="missing")
        for full, entry in sorted(documented.items()):
            head, _, rest = full.partition(module + ".")
            if head or not rest or rest.split(".")[0] not in exported:
                continue  # another module's, or the defining path of a public name
            if entry.objtype in ("data", "module") or _documented(entry.objtype, full):
                continue  # (data: checked where kaboom-module writes it)
            log.warning("%s has no docstring (%s)", full, entry.objtype,
                        type="kaboom", subtype="docstring")


def _finish(app: Sphinx, error: Exception | None) -> None:
    if error is not None:
        return
    if CHECKS.openapi and app.builder.format == "html":
        Path(app.outdir, "openapi.json").write_text(json.dumps(_openapi(), indent=1) + "\n")


@cache
def _openapi() -> dict[str, Any]:
    """The OpenAPI document of this version's server, as ``/openapi.json`` serves it."""
    from kaboom.server.config import Settings
    from kaboom.server.main import create_app

    document: dict[str, Any] = create_app(Settings(db=":memory:", expiry_interval_s=0)).openapi()
    return document


def _type(schema: dict[str, Any]) -> str:
    """A schema's type in words: a model's name, ``list of X``, ``X or null``..."""
    if "$ref" in schema:
        return f"``{schema['$ref'].rsplit('/', 1)[-1]}``"
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return " or ".join(_type(s) for s in schema[key])
    if "enum" in schema:
        return "one of " + ", ".join(f"``{json.dumps(v)}``" for v in schema["enum"])
    if "const" in schema:
        return f"``{json.dumps(schema['const'])}``"
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}))}"
    if kind == "object" and "additionalProperties" in schema:
        return f"object of {_type(schema['additionalProperties'])}"
    return str(kind)


def _bounds(schema: dict[str, Any]) -> str:
    words = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">",
             "exclusiveMaximum": "<", "minLength": "length >=", "maxLength": "length <=",
             "minItems": "items >=", "maxItems": "items <="}
    said = [f"{w} {schema[k]}" for k, w in words.items() if k in schema]
    return f" ({', '.join(said)})" if said else ""


def _text(text: str | None, indent: str = "") -> list[str]:
    return [indent + line for line in (text or "").strip().splitlines()]


def _operations(document: dict[str, Any]) -> Iterator[str]:
    for path, operations in document.get("paths", {}).items():
        for method, op in operations.items():
            title = f"``{method.upper()} {path}``: {op.get('summary', '')}"
            yield from ("", title, "-" * len(title), "")
            yield from _text(op.get("description"))
            params = op.get("parameters", [])
            if params:
                yield from ("", "Parameters:", "")
                for p in params:
                    need = "required" if p.get("required") else "optional"
                    schema = p.get("schema", {})
                    yield (f"* ``{p['name']}`` (in {p['in']}, {need}): {_type(schema)}"
                           f"{_bounds(schema)}")
                    yield from _text(p.get("description") or schema.get("description"), "  ")
            body = op.get("requestBody")
            if body:
                for media, content in body.get("content", {}).items():
                    yield from ("", f"Body ({media}): {_type(content.get('schema', {}))}")
            yield from ("", "Answers:", "")
            for code, answer in op.get("responses", {}).items():
                kinds = [_type(c.get("schema", {})) for c in answer.get("content", {}).values()
                         if c.get("schema")]
                what = f": {', '.join(kinds)}" if kinds else ""
                yield f"* ``{code}`` {answer.get('description', '')}{what}"


def _schemas(document: dict[str, Any]) -> Iterator[str]:
    yield from ("", "Schemas", "=======", "")
    for name, schema in document.get("components", {}).get("schemas", {}).items():
        yield from ("", f"``{name}``", "-" * (len(name) + 4), "")
        yield from _text(schema.get("description"))
        required = set(schema.get("required", ()))
        fields = schema.get("properties", {})
        if fields:
            yield ""
        for field, spec in fields.items():
            need = "required" if field in required else "optional"
            yield f"* ``{field}`` ({need}): {_type(spec)}{_bounds(spec)}"
            yield from _text(spec.get("description"), "  ")
        if "enum" in schema:
            yield from ("", _type(schema))


def _data_doc(module: str, name: str) -> list[str]:
    """The docstring of module-level data ``module.name`` where it is defined: the
    string under its assignment in whichever module of the package defines it."""
    value = getattr(importlib.import_module(module), name)
    for candidate in sorted(m for m in sys.modules if m == module or m.startswith(module + ".")):
        if getattr(sys.modules[candidate], name, _NOTHING) is not value:
            continue
        try:
            docs = ModuleAnalyzer.for_module(candidate).find_attr_docs()
        except PycodeError:
            continue
        if ("", name) in docs:
            return [line for line in docs["", name] if line.strip()]
    return []


_NOTHING = object()


class Module(SphinxDirective):
    """``.. kaboom-module:: NAME``: the module with every name of its ``__all__``.

    autodoc's ``automodule`` shows the classes and functions; module-level data it shows
    only when the module's own source assigns it with a docstring, so a re-exported
    constant or alias (``kaboom.solver.Cell``) would be left out: each is written here
    with the docstring of the module that defines it.  A name an earlier module of
    ``reference_modules`` exports too is not shown twice: a sentence links to it.
    """

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        module = self.arguments[0]
        mod = importlib.import_module(module)
        exported = getattr(mod, "__all__", ())
        elsewhere = {name: CHECKS.shown_as(module, name) for name in exported
                     if CHECKS.shown_as(module, name) != f"{module}.{name}"}
        lines = [f".. automodule:: {module}"]
        if elsewhere:
            lines.append(f"   :exclude-members: {', '.join(elsewhere)}")
        lines.append("")
        for name in exported:
            value = getattr(mod, name)
            if (name in elsewhere or inspect.isclass(value) or inspect.isroutine(value)
                    or inspect.ismodule(value)):
                continue
            if ("", name) in _attr_docs(module):
                continue  # assigned with its docstring in the module itself: automodule's
            doc = _data_doc(module, name)
            if not doc:
                log.warning("%s.%s has no docstring (data)", module, name,
                            type="kaboom", subtype="docstring")
            lines += [f".. py:data:: {name}", f"   :module: {module}",
                      f"   :value: {_value(value)}", "", *(f"   {line}" for line in doc), ""]
        if elsewhere:
            links = ", ".join(f":py:obj:`{shown}`" for shown in elsewhere.values())
            lines += [f"``{module}`` also exports {links}: the same objects, shown where "
                      "they are exported first.", ""]
        holder = nodes.section()
        nested_parse_with_titles(self.state, StringList(lines, module), holder)
        return list(holder.children)


def _value(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class OpenApi(SphinxDirective):
    """``.. kaboom-openapi::``: the HTTP API's operations and schemas, from the server's
    own OpenAPI document."""

    def run(self) -> list[nodes.Node]:
        document = _openapi()
        CHECKS.openapi = True
        info = document.get("info", {})
        lines = [f"Version {info.get('version', '?')} of {info.get('title', 'the API')}: "
                 f"{info.get('summary', '')}", "", "Operations", "==========",
                 *_operations(document), *_schemas(document)]
        holder = nodes.section()
        nested_parse_with_titles(self.state, StringList(lines, "openapi.json"), holder)
        return list(holder.children)


CHECKS = _Checks()


def setup(app: Sphinx) -> dict[str, Any]:
    """Registers the checks and the ``kaboom-openapi`` directive."""
    app.add_config_value("reference_modules", [], "env")
    app.add_directive("kaboom-openapi", OpenApi)
    app.add_directive("kaboom-module", Module)
    app.connect("builder-inited", lambda app: CHECKS.load(app))
    # every page read on every build: a page kept from an earlier build would skip its
    # checks
    app.connect("env-get-outdated", lambda app, env, added, changed, removed:
                list(env.found_docs))
    app.connect("missing-reference", _resolve)
    app.connect("env-check-consistency", _check_complete)
    app.connect("build-finished", _finish)
    return {"version": "1", "parallel_read_safe": False}
