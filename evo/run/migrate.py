"""Bring an experiment or a run directory written before 0.2 up to the names of today.

Version 0.2 moved the modules into packages (``games.block_maze`` is ``games.maze.block_maze``)
and renamed the top-level key ``policy:`` to ``network:``; it also moved a game's scene (the
park's objects of interest and preferred area) from the top of ``game.json`` into its
``scene``. ``evo migrate PATH`` rewrites those names in an experiment YAML, or in a run
directory's ``config.yaml`` and ``game.json``, keeping each file it changes beside it as
``<file>.before-migrate``; nothing else of a run directory names a module. The engine reads
the names of today only, and names this command where it meets an old one
(:func:`old_names`).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import yaml

from evo.run.user_paths import ConfigError

MOVED: dict[str, str] = {
    'evo.policy': 'evo.search.policy',
    'evo.agents': 'evo.search.agents',
    'evo.operators': 'evo.search.operators',
    'evo.explore.cells': 'evo.search.explore.cell_archive',
    'evo.explore': 'evo.search.explore',
    'evo.finetune': 'evo.search.finetune',
    'evo.rollout': 'evo.search.play',
    'evo.tasks': 'evo.search.tasks',
    'evo.probe': 'evo.search.probe',
    'evo.config': 'evo.run.config',
    'evo.game_config': 'evo.run.game_config',
    'evo.user_paths': 'evo.run.user_paths',
    'evo.extras': 'evo.run.extras',
    'evo.checkpoint': 'evo.run.checkpoint',
    'evo.rundir': 'evo.run.rundir',
    'evo.game_facts': 'evo.run.game_facts',
    'evo.built': 'evo.run.built',
    'evo.parallel': 'evo.run.parallel',
    'evo.progress': 'evo.run.progress',
    'evo.scalars': 'evo.run.scalars',
    'evo.reaper': 'evo.run.reaper',
    'evo.players': 'evo.run.players',
    'evo.html_report': 'evo.report.html',
    'evo.plots': 'evo.report.plots',
    'evo.park_map': 'evo.report.scene_map',
    'evo.report.park_map': 'evo.report.scene_map',
    'evo.video_frames': 'evo.report.video_frames',
    'evo.video': 'evo.report.video',
    'evo.compare': 'evo.report.compare',
    'evo.stats': 'evo.report.stats',
    'evo.studies': 'evo.report.studies',
    'evo.replay': 'evo.bugs.replay',
    'evo.reproduce': 'evo.bugs.reproduce',
    'evo.shrink': 'evo.bugs.shrink',
    'evo.regress': 'evo.bugs.regress',
    'evo.plans.cli': 'evo.cli.plans',
    'evo.traces_cli': 'evo.cli.traces',
    'evo.vision_cli': 'evo.cli.vision',
    'evo.plans.validation': 'oracles.action_checks',
    'games.base': 'games.core.base',
    'games.buckets': 'games.core.buckets',
    'games.rollout': 'games.core.record',
    'games.vector_env': 'games.core.scalar_env',
    'games.wrappers': 'games.core.wrappers',
    'games.frame_cost': 'games.core.frame_cost',
    'games.lifetime': 'games.common.lifetime',
    'games.process_memory': 'games.common.process_memory',
    'games.process_tree': 'games.common.process_tree',
    'games.block_maze': 'games.maze.block_maze',
    'games.maze_layout': 'games.maze.layout',
    'games.maze_navigation': 'games.maze.navigation',
    'games.dungeon_layout': 'games.dungeon.layout',
    'games.dungeon_navigation': 'games.dungeon.navigation',
    'games.mspacman_ram': 'games.atari.mspacman_ram',
    'games.mspacman_screen': 'games.atari.emulator',
    'games.mspacman': 'games.atari.mspacman',
    'games.montezuma': 'games.atari.montezuma',
    'games.cartpole_perf': 'games.classic.cartpole',
    'games.doom_engine': 'games.doom.engine',
    'games.doom_level': 'games.doom.level',
    'games.vizdoom_game': 'games.doom.vizdoom_game',
    'games.wad': 'games.doom.wad',
    'games.udmf': 'games.doom.udmf',
    'games.doom_park': 'games.doom.park.doom_park',
    'games.park_layout': 'games.doom.park.layout',
    'games.park_navigation': 'games.doom.park.navigation',
    'games.park_truth': 'games.doom.park.truth',
    'games.park_wad': 'games.doom.park.wad',
    'games.gym_adapter': 'games.adapter.vector_game',
    'games.gym_copy': 'games.adapter.game_copy',
    'games.gym_process': 'games.adapter.process_runner',
    'games.gym_worker': 'games.adapter.worker',
    'games.gym_spec': 'games.adapter.spec',
    'games.cells': 'games.adapter.derived_features',
    'oracles.validator': 'oracles.action_checks',
}
"""Module paths before 0.2 -> their path now (a package's old name covers its sub-modules)."""

RENAMED_KEYS: dict[str, str] = {"policy": "network"}
"""Top-level experiment keys before 0.2 -> their name now: ``policy:`` held the network's layers,
which the name confused with the agent kind (``search.agent``, then ``search.policy``)."""

BACKUP_SUFFIX = ".before-migrate"
OLD_SINGLE_AGENT = "finetune.algorithm: preference_ppo"
"""How a run of PPGTA's one agent was asked for before run kinds (``run: single_agent``); it
still loads for one release, with a warning (:func:`single_agent_renamed`)."""


def single_agent_renamed(raw: Any) -> bool:
    """Rewrite in place ``finetune.algorithm: preference_ppo`` as ``run: single_agent`` with
    ``finetune.algorithm: ppo`` (the same run); whether there was anything to rewrite.

    Raises:
        ConfigError: the old spelling beside a ``run:`` of another kind.
    """
    finetune = raw.get("finetune") if isinstance(raw, dict) else None
    if not isinstance(finetune, dict) or finetune.get("algorithm") != "preference_ppo":
        return False
    if raw.get("run", "single_agent") != "single_agent":
        raise ConfigError(f"{OLD_SINGLE_AGENT} is the old spelling of run: single_agent, but run: is {raw['run']}")
    raw["run"], finetune["algorithm"] = "single_agent", "ppo"
    return True


def new_module(name: str) -> str | None:
    """Where the module ``name`` lives now, or None if it never moved."""
    head, rest = name, ""
    while head:
        if head in MOVED:
            return MOVED[head] + rest
        head, _, tail = head.rpartition(".")
        rest = f".{tail}{rest}"
    return None


def new_entry_point(target: str) -> str | None:
    """``module:attr`` under the module's name now, or None if the module never moved."""
    module, sep, attr = target.partition(":")
    moved = new_module(module) if sep else None
    return None if moved is None else f"{moved}:{attr}"


def old_names(raw: dict[str, Any]) -> list[str]:
    """What of an experiment (as read from its YAML) is named as before 0.2, one phrase each."""
    found = [f"key {key}: is {new}:" for key, new in RENAMED_KEYS.items() if key in raw]
    game = raw.get("game")
    entry = game.get("entry_point") if isinstance(game, dict) else None
    if isinstance(entry, str) and new_entry_point(entry) is not None:
        found.append(f"game.entry_point {entry} is {new_entry_point(entry)}")
    return found


def check_current(raw: dict[str, Any], source: str) -> None:
    """Raise ``ConfigError`` (one line naming the command that fixes it) where ``raw`` names
    anything as before 0.2."""
    found = old_names(raw)
    if found:
        raise ConfigError(f"{source}: written before 0.2 ({'; '.join(found)}); "
                          f"run evo migrate {source} to rename")


def migrate_experiment(raw: dict[str, Any]) -> list[str]:
    """Rename in place what ``raw`` names as before 0.2; what was renamed, one phrase each.

    Raises:
        ConfigError: an old key given beside its new name.
    """
    changes = old_names(raw)
    for key, new in RENAMED_KEYS.items():
        if key in raw:
            if new in raw:
                raise ConfigError(f"both {key}: and {new}: are given; {key}: is the old name of {new}:, keep one")
            raw[new] = raw.pop(key)
    game = raw.get("game")
    if isinstance(game, dict) and isinstance(game.get("entry_point"), str):
        game["entry_point"] = new_entry_point(game["entry_point"]) or game["entry_point"]
    if single_agent_renamed(raw):
        changes.append(f"{OLD_SINGLE_AGENT} is run: single_agent with finetune.algorithm: ppo")
    return changes


def migrate_game_json(facts: dict[str, Any]) -> list[str]:
    """Rename in place what a run's ``game.json`` names as before 0.2 (its label's entry point,
    the scene kept at the top); what was changed, one phrase each."""
    changes = []
    label = facts.get("label")
    if isinstance(label, str):
        target, paren, kwargs = label.partition("(")
        moved = new_entry_point(target)
        if moved is not None:
            facts["label"] = moved + paren + kwargs
            changes.append(f"label {target} is {moved}")
    if "scene" not in facts:
        objects, preferred = facts.pop("objects", None), facts.pop("preferred", None)
        facts["scene"] = None if not objects and preferred is None else {
            "types": [], "camera": None, "match_radius": None, "preferred": preferred,
            "objects": [{k: o[k] for k in ("id", "type", "x", "y")} for o in objects or ()],
        }
        changes.append("its scene moved under scene:")
    return changes


def _rewrite(path: Path, text: str) -> None:
    shutil.copy2(path, path.with_name(path.name + BACKUP_SUFFIX))
    tmp = path.with_name(path.name + ".migrating")
    tmp.write_text(text)
    tmp.replace(path)


def migrate(path: Path) -> list[str]:
    """Migrate an experiment YAML or a run directory in place (see the module); one line per
    file changed, saying what changed. Nothing is written where nothing is old.

    Raises:
        ConfigError: not a YAML file or a run directory, or a file that cannot be read.
    """
    path = Path(path)
    if path.is_dir():
        config = path / "config.yaml"
        if not config.is_file():
            raise ConfigError(f"{path}: not a run directory (no config.yaml)")
        lines = _migrate_yaml(config)
        facts = path / "game.json"
        if facts.is_file():
            try:
                data = json.loads(facts.read_text())
            except (OSError, ValueError) as exc:
                raise ConfigError(f"{facts}: not readable as JSON ({exc})") from None
            changes = migrate_game_json(data) if isinstance(data, dict) else []
            if changes:
                _rewrite(facts, json.dumps(data, indent=1))
                lines.append(f"{facts}: {'; '.join(changes)}")
        return lines
    if not path.is_file():
        raise ConfigError(f"{path}: no such file or run directory")
    return _migrate_yaml(path)


def _migrate_yaml(path: Path) -> list[str]:
    try:
        text = path.read_text()
        raw = yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: not readable as YAML ({type(exc).__name__})") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping of keys at the top level")
    entry = (raw.get("game") or {}).get("entry_point") if isinstance(raw.get("game"), dict) else None
    changes = migrate_experiment(raw)
    if not changes:
        return []
    # The file's own text with the names replaced, so that its comments and layout stay; where
    # that does not read back as the renamed experiment, the experiment written out whole.
    new_text = text
    for key, new in RENAMED_KEYS.items():
        new_text = re.sub(rf"^{re.escape(key)}:", f"{new}:", new_text, flags=re.M)
    if isinstance(entry, str) and entry != raw["game"]["entry_point"]:
        new_text = new_text.replace(entry, raw["game"]["entry_point"])
    if raw.get("run") == "single_agent" and not re.search(r"^run:", new_text, flags=re.M):
        new_text = re.sub(r"^(\s+algorithm:\s*)preference_ppo\b", r"\1ppo", new_text, flags=re.M)
        new_text = re.sub(r"^finetune:", "run: single_agent\nfinetune:", new_text, count=1, flags=re.M)
    if yaml.safe_load(new_text) != raw:
        new_text = yaml.safe_dump(raw, sort_keys=False)
    _rewrite(path, new_text)
    return [f"{path}: {'; '.join(changes)}"]
