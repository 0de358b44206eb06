"""The experiment as the user wrote it, before it is validated: ``key=value`` overrides from the
command line."""

from __future__ import annotations

import logging
from typing import Any, Sequence

import yaml

from evo.run.user_paths import ConfigError

log = logging.getLogger(__name__)


RENAMED_OVERRIDES: dict[str, str] = {"search.policy": "search.agent"}
"""Dotted keys of 0.2 -> their name now, loaded for one release with a warning (the YAML's own
old keys are renamed by the section's model: :class:`evo.run.search_config.SearchConfig`)."""


def apply_overrides(raw: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """Set ``dotted.key=value`` overrides on the raw YAML dict (values parsed as YAML); an
    override of a key's old name sets the key (one warning line)."""
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"override {item!r}: expected key=value, e.g. search.population=10")
        key, value = item.split("=", 1)
        key = key.strip()
        if key in RENAMED_OVERRIDES:
            log.warning("override %s: is now %s; %s still works for now", key, RENAMED_OVERRIDES[key], key)
            key = RENAMED_OVERRIDES[key]
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
