"""Hostile experiments, generated (hypothesis): whatever a YAML or an override holds, loading
and building it either works or is one line naming the key (``ConfigError``, which the CLI
prints with exit code 2), never another exception or a traceback.

The mutations start from the tiny experiment: a key set to a hostile value (wrong types,
NaN, infinities, huge and negative numbers, empty and odd strings, nested containers, YAML
that would construct a Python object), a key deleted, an unknown key added, and overrides of
any dotted key with any YAML text. Checked in-process through :func:`parse_experiment`,
:func:`apply_overrides` and :meth:`Built.from_experiment` (the game, the policy, the memory
check, the objectives and oracles), and a few through the ``evo`` command.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evo.run.built import Built
from evo.run.config import ConfigError, apply_overrides, load_experiment, parse_experiment
from games.core.base import GameSpecError
from tests.conftest import TINY

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key path of the tiny experiment, list indices included."""
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _paths(value, (*prefix, i))
    return out


PATHS = _paths(TINY) + [
    ("game", "kwargs", "preset"), ("game", "step_timeout_s"), ("game", "max_rss_mb"), ("game", "wrappers"),
    ("search", "operators"), ("search", "hv_ref"), ("budget", "wall_seconds"), ("budget", "env_steps"),
    ("network", "conv"), ("checkpoint", "keep"), ("checkpoint", "pin"), ("parallel", "n_jobs"),
    ("parallel", "backend"), ("device",), ("logging",), ("finetune", "algorithm"), ("finetune", "ppo"),
]
HOSTILE = st.one_of(
    st.sampled_from([
        None, 0, -1, 1, 2**31, 2**63, 10**30, -(10**30), 1e308, float("inf"), float("-inf"), float("nan"),
        True, "", "huge", " ", "\x00", "a" * 10_000, "../../etc/passwd", [], [0], [-3], [1e308], [[]],
        {}, {"x": 1}, {"": None}, [None], {"name": None}, "tests.games.faulty_envs:LineWalk",
        "os:system", [[8, 8, 4]], [[0, 1, 1]],
    ]),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.lists(st.integers(min_value=-5, max_value=5), max_size=4),
    st.dictionaries(st.text(max_size=8), st.integers(), max_size=3),
)
YAML_TEXT = st.one_of(
    st.sampled_from([
        "", "[", "{", "]", "!!python/object/apply:os.system ['echo pwned']", "!!binary AAAA",
        "&a [*a]", "*undefined", "1e999", "-.inf", ".nan", "0x10", "~", "{a: [b, {c: d}]}",
        "'unterminated", "- - -", "? complex key", "2026-11-25", "!!float nan", "\t",
    ]),
    st.text(max_size=30),
)


def _set(raw: dict[str, Any], path: tuple, value: Any) -> None:
    node = raw
    for part in path[:-1]:
        if isinstance(node, dict):
            node = node.setdefault(part, {})
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
        else:
            return
    if isinstance(node, dict):
        node[path[-1]] = value
    elif isinstance(node, list) and isinstance(path[-1], int) and path[-1] < len(node):
        node[path[-1]] = value


def _delete(raw: dict[str, Any], path: tuple) -> None:
    node: Any = raw
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]


def _builds_or_names_the_key(raw: Any, section: str, overrides: tuple[str, ...] = ()) -> None:
    """The property: it builds, or it is one ConfigError line naming ``section``."""
    try:
        exp = parse_experiment(apply_overrides(raw, list(overrides)) if overrides else raw)
        Built.from_experiment(exp)
    except (ConfigError, GameSpecError) as exc:
        line = str(exc)
        assert line and "\n" not in line and "Traceback" not in line, line
        assert section in line, f"{line!r} does not name {section!r}"


@SETTINGS
@given(path=st.sampled_from(PATHS), value=HOSTILE)
def test_a_hostile_value_anywhere_builds_or_names_its_key(path: tuple, value: Any) -> None:
    raw = copy.deepcopy(TINY)
    _set(raw, path, value)
    _builds_or_names_the_key(raw, str(path[0]))


@SETTINGS
@given(path=st.sampled_from(_paths(TINY)))
def test_a_missing_key_anywhere_builds_or_names_its_key(path: tuple) -> None:
    raw = copy.deepcopy(TINY)
    _delete(raw, path)
    _builds_or_names_the_key(raw, str(path[0]))


@SETTINGS
@given(path=st.sampled_from(_paths(TINY)), name=st.text(min_size=1, max_size=12).filter(lambda s: "." not in s))
def test_an_unknown_key_is_refused_by_name(path: tuple, name: str) -> None:
    raw = copy.deepcopy(TINY)
    parent = path[:-1]
    node: Any = raw
    for part in parent:
        node = node[part]
    if not isinstance(node, dict) or name in node or (parent and parent[-1] == "kwargs"):
        return  # kwargs are the game's or a component's own: checked by their constructors
    node[name] = 1
    with pytest.raises((ConfigError, GameSpecError)) as excinfo:
        parse_experiment(raw)
    line = str(excinfo.value)
    shown = name if name.isprintable() else repr(name)  # a key that would break the line is quoted
    assert "\n" not in line and "unknown" in line and (str(path[0]) if parent else shown) in line


@SETTINGS
@given(key=st.one_of(st.sampled_from([".".join(map(str, p)) for p in PATHS if all(isinstance(q, str) for q in p)]),
                     st.text(max_size=20)),
       value=YAML_TEXT)
def test_any_override_builds_or_is_one_line(key: str, value: str) -> None:
    section = key.split(".")[0].strip()
    odd = "=" in key or not key.strip().isprintable() or not all(p.strip() for p in key.split("."))
    _builds_or_names_the_key(copy.deepcopy(TINY), "override" if odd else section, (f"{key}={value}",))


def test_a_yaml_tag_that_would_construct_an_object_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(TINY) + f"extra: !!python/object/apply:os.system ['touch {marker}']\n")
    with pytest.raises(ConfigError, match=r"exp.yaml: not valid YAML at line \d+"):
        load_experiment(path)
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_experiment(tmp_path / "exp.yaml", [f"seed=!!python/object/apply:os.system ['touch {marker}']"])
    assert not marker.exists()


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("game.kwargs.preset=!!python/object/apply:os.system ['true']", "override game.kwargs.preset: value"),
        ("search.population=.nan", "search.population"),
        ("budget.wall_seconds=-.inf", "budget.wall_seconds"),
        ("game.max_rss_mb=0", "game.max_rss_mb"),
        ("objectives=[{name: winning, kwargs: {x: 1}}]", "objectives"),
    ],
)
def test_hostile_overrides_through_the_command(bad_input, override: str, expected: str) -> None:
    assert expected in bad_input(["run", "exp.yaml", override, "--out", "run", "--quiet"])


def test_a_hostile_override_through_the_console_script(tmp_path: Path) -> None:
    from tests.cli.test_cli import evo

    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(TINY))
    result = evo("run", "exp.yaml", "game.kwargs.preset=!!python/object/apply:os.system ['touch pwned']",
                 "name=../escaped", "--quiet", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "evo: error: override game.kwargs.preset: value \"!!python/object/apply:os.system ['touch pwned']\" "
        "is not valid YAML"]
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "runs").exists()
