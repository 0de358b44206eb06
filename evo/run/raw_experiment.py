"""The experiment as the user wrote it, before it is validated: ``key=value`` overrides from the
command line, and keys renamed since a YAML (or the ``config.yaml`` of a run directory) was
written, which still load with one warning line naming the new key:

- ``policy:`` at the top level is ``network:`` (0.2): the network's conv and hidden layers,
  which the old name confused with ``search.policy``, the agent kind.
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

import yaml

from evo.run.user_paths import ConfigError

log = logging.getLogger(__name__)

RENAMED: dict[str, str] = {"policy": "network"}
"""Old top-level key -> its name now."""


def apply_overrides(raw: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """Set ``dotted.key=value`` overrides on the raw YAML dict (values parsed as YAML)."""
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"override {item!r}: expected key=value, e.g. search.population=10")
        key, value = item.split("=", 1)
        key = key.strip()
        parts = key.split(".")
        if not key.isprintable() or not all(part.strip() for part in parts):
            raise ConfigError(f"override {item!r}: expected a dotted key of names, e.g. search.population=10")
        node = raw
        for part in parts[:-1]:
            if not isinstance(node.get(part, {}), dict):
                raise ConfigError(f"override {key}: {part} is not a section")
            node = node.setdefault(part, {})
        try:
            node[parts[-1]] = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            raise ConfigError(f"override {key}: value {value!r} is not valid YAML") from exc
    return raw


def renamed(raw: dict[str, Any], source: str) -> dict[str, Any]:
    """``raw`` with each old top-level key under its new name, in the same place; one warning
    line per old key found, naming ``source`` (the file) and the new key.

    Raises:
        ConfigError: the old and the new name of one key are both given.
    """
    if not any(old in raw for old in RENAMED):
        return raw
    out: dict[str, Any] = {}
    for key, value in raw.items():
        new = RENAMED.get(key) if isinstance(key, str) else None
        if new is None:
            out[key] = value
            continue
        if new in raw:
            raise ConfigError(f"{key}: renamed to {new}; give {new} only")
        log.warning("%s: the key %s: is now %s: (the same keys under it); %s: still loads for now",
                    source, key, new, key)
        out[new] = value
    return out


def renamed_override(item: str) -> str:
    """A ``key=value`` override whose dotted key starts with an old name, under the new name
    (``policy.hidden=[8]`` -> ``network.hidden=[8]``), with one warning line; any other item as
    it is."""
    key, sep, value = item.partition("=")
    head, dot, rest = key.strip().partition(".")
    new = RENAMED.get(head)
    if not sep or new is None:
        return item
    log.warning("override %s: the key %s is now %s; %s still works for now", key.strip(), head, new, head)
    return f"{new}{dot}{rest}={value}"
