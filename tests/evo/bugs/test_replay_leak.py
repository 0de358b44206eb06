"""A leak that resets do not free is a bug that replays, though the episode that crossed the
memory bound began with what earlier episodes of its process had left: played once in a fresh
process it stays under the bound, so the replay plays it again in the same copies."""

from __future__ import annotations

from pathlib import Path

import pytest

from evo.bugs import reproduce
from evo.bugs.reproduce import Reproducer
from evo.run.config import parse_experiment
from evo.run.kinds.evolve import Evolve

MAX_RSS_MB = 400
LEAK = {"fault": "leak", "leak_mb": 64, "at_position": 2, "step_delay_s": 0.05}
"""From the second cell on, 64 MiB a step that no reset frees; steps slow enough for the 0.1 s
memory polls to fall inside a replay's three."""


@pytest.fixture(scope="module")
def leaky_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("leak") / "run"
    Evolve(parse_experiment({
        "name": "leak", "game": {"entry_point": "tests.games.faulty_envs:LineWalk", "kwargs": {**LEAK, "max_steps": 6},
                                 "max_rss_mb": MAX_RSS_MB, "step_timeout_s": 5.0},
        "network": {"hidden": [8]}, "search": {"population": 2, "offspring": 2, "episodes": 1},
        "budget": {"generations": 1}, "objectives": [{"name": "coverage"}], "oracles": [{"name": "crash"}],
        "finetune": {"algorithm": "none"}, "parallel": {"backend": "serial"},
    }), run_dir).run()
    return run_dir


def _record(seed: int) -> dict:
    """A leak's report whose episode (three steps right) leaks twice, 128 MiB: under the bound from
    a fresh process."""
    return {"id": 0, "oracle": "crash", "kind": "crash", "signature": "crash:GameOutOfMemory::game process kept "
            "growing past its memory bound", "seed": seed, "policy": 0, "step": 2, "actions": [2, 2, 2]}


def test_a_leak_that_builds_up_across_episodes_replays_in_the_same_copies(leaky_run: Path) -> None:
    with Reproducer(leaky_run, repeats=1) as reproducer:
        replayed = reproducer.replay(_record(seed=5))
    assert replayed.bugs and replayed.bugs[0].signature.startswith("crash:GameOutOfMemory:")


def test_played_once_from_a_fresh_process_the_same_episode_stays_under_the_bound(
    leaky_run: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(reproduce, "BUILD_UP_ROUNDS", 1)
    with Reproducer(leaky_run, repeats=1) as reproducer:
        assert reproducer.replay(_record(seed=5)).bugs == []
