"""An isolated game's generation plays in tasks of at most ``ISOLATED_COPIES_PER_TASK`` copies
(each copy is a process the worker starts once and keeps), and what it finds is what the same
generation finds in one process."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from evo.run.config import parse_experiment
from evo.run.kinds.evolve import Evolve
from evo.run.chunks import ISOLATED_COPIES_PER_TASK, chunks, play_chunks
from tests.evo.run.test_loop import comparable_bugs, comparable_generations


def test_play_chunks_keep_an_isolated_games_tasks_small_and_even() -> None:
    for policies in range(1, 70):
        for episodes in (1, 2, 4, 5, 20):
            for parts in (1, 2, 3):
                cut = play_chunks(policies, episodes, parts, isolated=True)
                assert [i for c in cut for i in range(policies)[c]] == list(range(policies))
                sizes = [(c.stop - c.start) * episodes for c in cut]
                assert max(sizes) <= max(ISOLATED_COPIES_PER_TASK, episodes)
                assert len(cut) % parts == 0 or len(cut) == policies
                assert play_chunks(policies, episodes, parts, isolated=False) == chunks(policies, parts)


def test_an_isolated_game_plays_in_small_tasks_and_finds_what_one_process_finds(tiny_config, tmp_path: Path) -> None:
    config = {**tiny_config, "budget": {"generations": 1}, "finetune": {"algorithm": "none"},
              "game": {"entry_point": "tests.games.faulty_envs:LineWalk", "kwargs": {"fault": "raise", "at_position": 3}},
              "search": {**tiny_config["search"], "episodes": 4}}  # 6 policies x 4 = 24 copies
    sizes: list[int] = []
    isolated = Evolve(parse_experiment({**config, "game": {**config["game"], "isolated": True}}), tmp_path / "iso")
    start = isolated.executor.start

    def counted(fn, tasks):
        sizes.extend(len(t.ids) * t.episodes for t in tasks if hasattr(t, "episodes"))
        return start(fn, tasks)

    isolated.executor.start = counted  # type: ignore[method-assign]
    isolated.run()
    Evolve(parse_experiment({**config, "game": {**config["game"], "isolated": False}}), tmp_path / "one").run()
    assert len(sizes) >= 2 and max(sizes) <= ISOLATED_COPIES_PER_TASK and sum(sizes) == 24
    pd.testing.assert_frame_equal(comparable_generations(tmp_path / "iso"), comparable_generations(tmp_path / "one"))
    bugs = comparable_bugs(tmp_path / "iso")
    assert len(bugs)  # the crash at cell 3, found in both
    pd.testing.assert_frame_equal(bugs, comparable_bugs(tmp_path / "one"))
