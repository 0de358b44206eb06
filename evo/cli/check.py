"""``evo check GAME``: what the engine sees of a game, in a few seconds, before a run.

    evo check MiniGrid-DoorKey-8x8-v0
    evo check my_package.my_game:MyGame game.isolated=false
    evo check experiments/my_experiment.yaml

A game someone else wrote can look fine to Gymnasium and be nearly blind to the engine: a coded
image read as one cell, a wrapper's features ignored, a copy that takes a minute to start. The
check builds the game as a run would (with the default experiment's components, or those of
the experiment given), plays the probe's seeded random episodes, and prints one table: the
game's features and where they come from, the cells its random play reached, the time a copy
takes to start and a step to play, how it is isolated, and what a generation of the default
experiment would cost. Faults in the probe are listed as they would be bugs.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from rich.console import Console

from evo.run.user_paths import ConfigError

DEFAULT_EXPERIMENT: dict[str, Any] = {
    "name": "check",
    "search": {"policy": "random", "strategy": "go_explore", "population": 30, "offspring": 30, "episodes": 4,
               "explore_steps": "auto", "generation_seconds": 15},
    "budget": {"generations": 1},
    "objectives": [{"name": "winning"}, {"name": "coverage"}],
    "oracles": [{"name": "crash"}, {"name": "stuck", "kwargs": {"window": 8}}, {"name": "logic"},
                {"name": "performance", "kwargs": {"floor_ms": 1.0}}],
    "finetune": {"algorithm": "none"},
}
"""The components and search of the default experiment (``experiments/block_maze.yaml``),
which a game named alone is checked with."""


def add_check_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="what the engine sees of a game: features, cells, start and step time")
    p.add_argument("game", metavar="GAME|EXP.yaml",
                   help="a registered game, a Gymnasium id (plain or module:id), package.module:Class, "
                        "or an experiment YAML (its game and settings)")
    p.add_argument("overrides", nargs="*", metavar="key=value",
                   help="overrides of the experiment's keys, e.g. game.isolated=false")


def game_section(game: str) -> dict[str, Any]:
    """The ``game:`` section ``game`` names: a registered name, else a Gymnasium id that some
    installed package registers, else an entry point.

    Raises:
        ConfigError: It is none of them (one line naming what was tried).
    """
    from games.gym_ids import GymIdNotFound, resolve_gym_id
    from games.registry import registered

    if game in registered():
        return {"name": game}
    try:
        resolve_gym_id(game)
        return {"gym_id": game}
    except GymIdNotFound as exc:
        if ":" in game:  # not an id's module: a class's
            return {"entry_point": game}
        raise ConfigError(f"check: {game!r} is no registered game, nor package.module:Class, nor a Gymnasium id: "
                          f"{exc}") from None


def check_command(args: argparse.Namespace, console: Console) -> int:
    from evo.run.config import load_experiment, parse_experiment, validate_names
    from evo.run.raw_experiment import apply_overrides

    if args.game.endswith((".yaml", ".yml")):
        exp = load_experiment(args.game, args.overrides)
    else:
        raw = apply_overrides({**DEFAULT_EXPERIMENT, "game": game_section(args.game)}, args.overrides)
        exp = parse_experiment(raw, "check")
    validate_names(exp)
    rows = _check(exp, console)
    console.print(f"[bold]evo check[/bold] {args.game}")
    width = max(len(what) for what, _ in rows)
    for what, seen in rows:  # one line a row, never wrapped: a reader greps it
        console.print(f"  {what:<{width}}  {seen}", markup=False, soft_wrap=True)
    return 0


def _check(exp: Any, console: Console) -> list[tuple[str, str]]:
    """Build the game as a run does and play the probe; the table's rows."""
    import dataclasses

    import numpy as np

    from evo.run.built import Built
    from evo.run.config import game_factory
    from evo.search.probe import PROBE_EPISODES, few_places, play_probe, reached_states

    factory = game_factory(exp)
    console.print(f"checking {factory.label}: one copy, then {PROBE_EPISODES} copies of random play", style="dim")
    started = time.perf_counter()
    one = dataclasses.replace(factory, wrappers=()).make_vector(1)
    start_s = time.perf_counter() - started
    one.close()
    built = Built.from_experiment(exp, None)
    try:
        batch, probe_s = built.probe, built.probe_s
        if batch is None:  # a game whose cells are declared plays the probe only here
            started = time.perf_counter()
            batch = play_probe(built.factory, built.spec, exp.seed, built.columns)
            probe_s = time.perf_counter() - started
        spec = built.spec
        states = reached_states(batch)
        cells = int(np.unique(spec.bucket_keys(states)).size) if len(states) else 0
        steps = int(batch.lengths.sum())
        rate = steps / max(probe_s, 1e-9)  # steps a second, copies side by side
        search = built.exp.search  # fitted to the game (evo.run.fit)
        generation = search.population * search.episodes
        length = spec.max_steps if not isinstance(search.explore_steps, int) else min(spec.max_steps, search.explore_steps)
        rows = [
            ("game", built.facts.label),
            ("isolated", _isolation(factory)),
            ("observation", f"{spec.obs_shape} {spec.obs_dtype}"),
            ("actions", str(spec.n_actions)),
            ("horizon", f"{spec.max_steps} steps"),
            ("state features", _features(spec)),
            ("cells reached", f"{cells} in {steps:,} steps of random play ({len(states):,} states)"),
            ("start", f"{start_s:.2f} s for one copy"),
            ("step", f"{rate:,.0f} steps/s with {PROBE_EPISODES} copies side by side"),
            ("ground truth", f"{len(built.facts.injected)} injected bugs" if built.facts.has_truth else "none declared"),
            ("a generation", f"{generation} episodes exploring up to {length} steps each (after a return's "
                             f"prefix): about {generation * length:,} steps, {generation * length / rate:,.0f} s "
                             "at this pace"),
        ]
        faults = sorted({f"{e.type}: {e.message}"[:120] for _, e in batch.errors.items()})
        if faults:
            rows.append(("faults in the probe", "; ".join(faults)))
        warning = few_places(batch, spec, factory.label)
        if warning:
            rows.append(("warning", warning))
        return rows
    finally:
        built.close()


def _isolation(factory: Any) -> str:
    if factory.step_timeout_s is None:
        return "no: in the engine's process (a crash, hang or leak there stops the run)"
    bound = "no memory bound" if factory.max_rss_mb is None else f"{factory.max_rss_mb:g} MiB a copy"
    return f"yes: a process per copy, a step over {factory.step_timeout_s:g} s is a hang, {bound}"


def _features(spec: Any) -> str:
    names = list(spec.feature_names)
    shown = ", ".join(names[:6]) + (f", ... ({len(names)} in all)" if len(names) > 6 else "")
    kind = ("the frame's cells" if spec.coarse_features else "open, cells learned" if any(spec.feature_open)
            else "bounded")
    return f"{len(names)}: {shown} [{kind}]"
