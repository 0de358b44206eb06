"""One registry for everything an experiment names: games, objectives, oracles, agents,
fine-tuners, operators, observation wrappers.

A YAML names a part (``objectives: [{name: coverage}]``); the part's module registered it
under that name when it was imported. Every kind of part has one :class:`Registry`, and all
of them behave alike: a name nobody registered fails in one line that lists the known names;
a part may be registered lazily, as a ``"module:attr"`` string imported the first time it is
asked for (so a plain run never loads torch models it does not use); and an installed package
adds parts through the kind's entry-point group (``evo.games``, ``evo.objectives``, ...),
read the first time a name is not found or the names are listed.

A registry is a mapping of name to part, so a test registers a part for its own duration with
``monkeypatch.setitem(OBJECTIVES, "mine", ComponentEntry(MyConfig, Mine))`` (:class:`games.core.component.ComponentEntry`).
"""

from __future__ import annotations

import importlib
import pkgutil
from importlib.metadata import entry_points
from typing import Any, Callable, Generic, Iterator, MutableMapping, TypeVar

T = TypeVar("T")
F = TypeVar("F")


class UnknownName(KeyError, ValueError):
    """A name no part of its kind was registered under. Both a ``KeyError`` (a lookup) and a
    ``ValueError`` (a bad setting); its text is the one-line message, unquoted."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def load_attr(target: str) -> Any:
    """Import ``"package.module:attr"`` and return the attribute.

    Raises:
        ImportError: the module cannot be imported, or has no such attribute (one line).
        ValueError: ``target`` is not of the form ``module:attr``.
    """
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"{target!r} is not of the form 'package.module:attr'")
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ImportError(f"{module_name!r} has no {attr!r}") from None


def import_modules(package: str) -> None:
    """Import every module of ``package``, so that each registers its parts: a package's
    ``__init__`` calls it with its ``__name__``, and a new part is one file with one register
    call, nothing to add to a list."""
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        importlib.import_module(f"{package}.{info.name}")


class Registry(MutableMapping[str, T], Generic[T]):
    """Parts of one kind by the name an experiment gives them.

    Args:
        kind: What a part is, for messages (``"objective"``, ``"survival operator"``).
        group: The entry-point group through which installed packages add parts; None: none.
        resolve: How a lazy ``"module:attr"`` (or an entry point's value) becomes a part
            without importing it (games keep the string until they are made). None: import the
            attribute; if importing its module registered the name (a decorated class), that
            registration stands, otherwise the attribute itself is the part.
        error: The exception :meth:`check` raises (a subclass of :class:`UnknownName` or any
            exception taking one message).
    """

    def __init__(self, kind: str, group: str | None = None, *, resolve: Callable[[str, str], T] | None = None,
                 error: Callable[[str], Exception] = UnknownName) -> None:
        self.kind = kind
        self.group = group
        self._resolve = resolve
        self._error = error
        self._parts: dict[str, T] = {}
        self._lazy: dict[str, str] = {}
        self._plugins_read = group is None

    # ------------------------------------------------------------------ registering
    def add(self, name: str, part: T) -> T:
        """Register ``part`` under ``name`` (a later registration of the name replaces it)."""
        self._lazy.pop(name, None)
        self._parts[name] = part
        return part

    def add_lazy(self, name: str, target: str) -> None:
        """Register ``"module:attr"`` under ``name``, imported the first time it is asked for."""
        if name not in self._parts:
            self._lazy[name] = target

    def register(self, name: str, entry: Callable[[Any], T] | None = None) -> Callable[[F], F]:
        """Decorator: register what it decorates under ``name``, as ``entry(it)`` where given
        (a component's config and class as one entry), else as itself."""

        def wrap(obj: F) -> F:
            self.add(name, entry(obj) if entry is not None else obj)  # type: ignore[arg-type]
            return obj

        return wrap

    # ------------------------------------------------------------------ looking up
    def names(self) -> list[str]:
        """Every registered name, lazy and plug-in parts included, sorted."""
        self._read_plugins()
        return sorted(set(self._parts) | set(self._lazy))

    def check(self, name: str) -> None:
        """Raise this registry's error, one line listing the known names, unless ``name`` is one."""
        if name not in self:
            raise self._error(f"unknown {self.kind} {name!r}; expected one of {', '.join(self.names())}")

    def get_part(self, name: str) -> T:
        """The part registered as ``name`` (:meth:`check` first), imported if it was lazy."""
        self.check(name)
        if name in self._lazy:
            target = self._lazy.pop(name)
            if self._resolve is not None:
                self._parts[name] = self._resolve(name, target)
            else:
                try:
                    loaded = load_attr(target)
                except (ImportError, ValueError) as exc:
                    self._lazy[name] = target
                    raise self._error(f"{self.kind} {name!r} ({target}) cannot be loaded: {exc}") from None
                self._parts.setdefault(name, loaded)
        return self._parts[name]

    def build(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call the part registered as ``name`` (a factory) with these arguments."""
        return self.get_part(name)(*args, **kwargs)  # type: ignore[operator]

    def _read_plugins(self) -> None:
        if self._plugins_read:
            return
        self._plugins_read = True
        for ep in entry_points(group=self.group):
            if ep.name not in self._parts and ep.name not in self._lazy:
                self._lazy[ep.name] = ep.value

    # ------------------------------------------------------------------ the mapping
    def __contains__(self, name: object) -> bool:
        if name in self._parts or name in self._lazy:
            return True
        self._read_plugins()
        return name in self._lazy

    def __getitem__(self, name: str) -> T:
        return self.get_part(name)

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        """The part registered as ``name``, or ``default`` where there is none."""
        return self.get_part(name) if name in self else default

    def __setitem__(self, name: str, part: T) -> None:
        self.add(name, part)

    def __delitem__(self, name: str) -> None:
        if name not in self._parts and name not in self._lazy:
            raise KeyError(name)
        self._parts.pop(name, None)
        self._lazy.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self)} parts)"
