"""MkDocs hook: the experiment YAML reference, rendered from the pydantic models at build time.

``<!-- experiment-reference -->`` becomes every key of :class:`evo.run.config.Experiment`, section
by section (type, default, description); ``<!-- objectives-reference -->`` and
``<!-- oracles-reference -->`` every registered objective's and oracle's ``kwargs``. A field's
description is the one pydantic holds (``Field(description=...)``), else the docstring under
the attribute in its class. A failure to import or render is logged as a warning, which
fails ``mkdocs build --strict``.
"""

from __future__ import annotations

import ast
import inspect
import json
import logging
import re
import sys
import textwrap
import types
import typing
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[2]
log = logging.getLogger("mkdocs.hooks.config_reference")


def _markdown(text: str) -> str:
    """A docstring's reStructuredText roles and literals as Markdown code."""
    return re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text).replace("``", "`")


def _text(value: object) -> str:
    """Prose for a Markdown table cell: one line, no column bars, no HTML tags."""
    text = " ".join(_markdown(str(value)).split())
    for char, escaped in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("|", "&#124;"), ("*", "\\*")):
        text = text.replace(char, escaped)
    return text


def type_name(annotation: Any) -> str:
    """A field's type as a reader of the YAML sees it: ``int or null``, ``list of float``."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return type_name(args[0])
    if origin is typing.Literal:
        return " or ".join(str(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        named = [type_name(a) for a in args if a is not type(None)]
        return " or ".join(named + (["null"] if type(None) in args else []))
    if origin in (list, tuple) and (origin is list or (len(args) == 2 and args[1] is Ellipsis)):
        return f"list of {type_name(args[0])}"
    if origin is tuple:
        return "[" + ", ".join(type_name(a) for a in args) + "]"
    if origin is dict:
        return f"mapping of {type_name(args[0])} to {type_name(args[1])}"
    if annotation is typing.Any:
        return "any"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        keys = list(annotation.model_fields)
        return "{" + ", ".join(keys) + "}" if len(keys) <= 4 else f"mapping ({annotation.__name__})"
    return getattr(annotation, "__name__", str(annotation))


def attribute_docs(model: type[BaseModel]) -> dict[str, str]:
    """The docstring written under each field of ``model`` and its bases, by field name."""
    docs: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)) or cls is BaseModel:
            continue
        try:
            body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
        except (OSError, TypeError, IndexError, AttributeError):
            continue
        for field, doc in zip(body, body[1:]):
            if (isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)
                    and isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
                    and isinstance(doc.value.value, str)):
                docs[field.target.id] = inspect.cleandoc(doc.value.value)
    return docs


def _default(info: Any) -> str:
    if info.is_required():
        return "required"
    value = info.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "(section below)"
    try:
        return f"`{json.dumps(value)}`"
    except TypeError:
        return f"`{value}`"


def fields_table(model: type[BaseModel]) -> list[str]:
    """A table of ``model``'s keys: key, type, default, what."""
    docs = attribute_docs(model)
    rows = ["| key | type | default | what |", "|---|---|---|---|"]
    for name, info in model.model_fields.items():
        what = info.description or docs.get(name, "")
        if _section(info) and not what:
            what = _doc(info.annotation).split("\n\n")[0]
        kind = "section" if _section(info) else type_name(info.annotation)
        rows.append(f"| `{name}` | {_text(kind)} | {_default(info)} | {_text(what)} |")
    return rows + [""]


def _section(info: Any) -> bool:
    return isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)


def _doc(cls: type) -> str:
    return _markdown(inspect.cleandoc(cls.__doc__)) if cls.__doc__ else ""


def experiment_reference() -> str:
    """Every section of an experiment YAML, the top level first, nested sections after."""
    from evo.run.config import Experiment

    lines: list[str] = []

    def section(model: type[BaseModel], path: str, depth: int) -> None:
        heading = f"`{path}`" if path else "The top level"
        lines.extend([f"{'#' * depth} {heading}", "", _doc(model), "", *fields_table(model)])
        for name, info in model.model_fields.items():
            if _section(info):
                section(info.annotation, f"{path}.{name}" if path else name, depth + 1 if path else depth)

    section(Experiment, "", 3)
    return "\n".join(lines)


def components_reference(registry: Any) -> str:
    """Each registered component's ``kwargs``, by name (a registry of
    :class:`games.core.component.ComponentEntry`)."""
    lines: list[str] = []
    for name, entry in sorted(registry.items()):
        config = entry.config
        lines += [f"### `{name}`", "", _doc(config), ""]
        lines += fields_table(config) if config.model_fields else ["It takes no `kwargs`.", ""]
    return "\n".join(lines)


def _objectives() -> str:
    from objectives import OBJECTIVES

    return components_reference(OBJECTIVES)


def _oracles() -> str:
    from oracles import ORACLES

    return components_reference(ORACLES)


MARKERS: dict[str, Callable[[], str]] = {
    "<!-- experiment-reference -->": experiment_reference,
    "<!-- objectives-reference -->": _objectives,
    "<!-- oracles-reference -->": _oracles,
}


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ANN001 (MkDocs' objects)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    for marker, render in MARKERS.items():
        if marker not in markdown:
            continue
        try:
            text = render()
        except Exception as exc:  # noqa: BLE001 (any failure is reported, and fails --strict)
            log.warning("config_reference: could not render %s: %s: %s", marker, type(exc).__name__, exc)
            text = f"!!! failure \"This reference could not be generated\"\n    {type(exc).__name__}: {exc}\n"
        markdown = markdown.replace(marker, text)
    return markdown
