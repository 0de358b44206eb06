"""What the engine sees of a game, for ``evo check`` (:mod:`evo.cli.check`): the game built
as a run builds it, one copy's start timed, and the probe's random episodes played."""

from __future__ import annotations

import time
from typing import Any, Callable


def check_game(exp: Any, say: Callable[[str], None]) -> list[tuple[str, str]]:
    """Build ``exp``'s game as a run does and play the probe; ``(what, seen)`` rows for
    ``evo check``. ``say`` is told what is being done (it takes seconds)."""
    import dataclasses

    import numpy as np

    from evo.run.built import Built
    from evo.run.config import game_factory
    from evo.search.probe import PROBE_EPISODES, few_places, play_probe, reached_states

    factory = game_factory(exp)
    say(f"checking {factory.label}: one copy, then {PROBE_EPISODES} copies of random play")
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
            ("a generation", f"{generation} episodes exploring up to {length} steps each (after its "
                             f"return): about {generation * length:,} steps, {generation * length / rate:,.0f} s "
                             "at this pace"),
        ]
        rows.append(("replays", _replays(built.factory, exp)))
        if search.return_share:
            rows.append(("returns", _returns(built.factory, exp.seed) if search.snapshots
                         else "replay the way from the reset (search.snapshots: false)"))
        faults = sorted({f"{e.type}: {e.message}"[:120] for _, e in batch.errors.items()})
        if faults:
            rows.append(("faults in the probe", "; ".join(faults)))
        warning = few_places(batch, spec, factory.label)
        if warning:
            rows.append(("warning", warning))
        return rows
    finally:
        built.close()


def _returns(factory: Any, seed: int) -> str:
    from evo.search.explore.snapshot_check import snapshot_every

    game = factory.make_vector(1)
    try:
        offers = hasattr(game, "reset_from")
    finally:
        game.close()
    if not offers:
        return "replay the way from the reset: the game offers no snapshots (reset_from, games/core/base.py)"
    every = snapshot_every(factory, seed)
    if every:
        return (f"restore a snapshot of the game taken on the way (one every {every} steps), then replay "
                f"at most {every - 1} steps")
    return ("replay the way from the reset: the game's snapshot does not play on as the game does, "
            "or the game cannot be pickled")


def _replays(factory: Any, exp: Any) -> str:
    from evo.run.replay_check import AUTO_REPLAYS, replays

    same = replays(factory, exp.seed)
    asked = exp.bug_replays
    if same is None:
        unknown = "could not tell (the game raised or ended at once)"
        return unknown + ("; bug_replays auto plays none" if asked == "auto" else "")
    seen = "episodes of random steps played twice: " + ("the same" if same else "not the same")
    if asked != "auto":
        return f"{seen}; each bug played again {asked} times (bug_replays)" if asked else f"{seen}; bug_replays: 0"
    return (f"{seen}; each bug played again {AUTO_REPLAYS} times for its rate (bug_replays auto)" if not same
            else f"{seen}; bugs replay as found (bug_replays auto plays none)")


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
