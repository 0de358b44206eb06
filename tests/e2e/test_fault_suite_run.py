"""The fault suite end to end: ``evo run`` on a game that segfaults, leaks, returns a malformed
reward, fails to reset or cannot close. The run ends normally (exit 0, every
generation), the fault is one crash bug, and ``evo replay`` plays it again from its seed and
actions. Raise, hang and exit are in tests/cli/test_cli.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from evo.report.tables import load_run
from tests.cli.test_cli import evo

GENERATIONS = 2
MAX_RSS_MB = 400
"""Above what a fresh LineWalk copy holds (a Python with numpy and gymnasium, ~100 MiB)."""

FAULTS: dict[str, tuple[dict[str, Any], str, str]] = {
    # fault: (LineWalk kwargs, the error's type, a piece of its message)
    "segfault": ({"fault": "segfault"}, "GameProcessDied", "killed by SIGSEGV"),
    # 64 MiB more resident every step once the walk reaches the cell: over the bound within an
    # episode (slowed so that the 0.1 s memory polls fall inside it).
    "leak": ({"fault": "leak", "leak_mb": 64, "step_delay_s": 0.02}, "GameOutOfMemory",
             f"game.max_rss_mb = {MAX_RSS_MB} MiB"),
    # Malformed observations and rewards are ValueErrors of the copy, as the reset's failure
    # below is an error of the game: tests/games/adapter/test_fault_suite.py has each of them.
    "reset": ({"reset_fails_every": 2}, "RuntimeError", "the level failed to load"),
}


def _run(tmp_path: Path, kwargs: dict[str, Any]) -> Path:
    config: dict[str, Any] = {
        "name": "fault_suite",
        "game": {
            "entry_point": "tests.games.faulty_envs:LineWalk",
            "kwargs": {"at_position": 2, **kwargs},
            "step_timeout_s": 5.0,
            "max_rss_mb": MAX_RSS_MB,
        },
        "network": {"hidden": [8]},
        "search": {"population": 2, "offspring": 2, "episodes": 2},
        "budget": {"generations": GENERATIONS},
        "objectives": [{"name": "winning"}, {"name": "coverage"}],
        "oracles": [{"name": "crash"}],
        "finetune": {"algorithm": "none"},
        "parallel": {"backend": "serial"},
    }
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(config))
    result = evo("run", "exp.yaml", "--out", "run", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return tmp_path / "run"


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_faulty_game_is_a_crash_bug_that_replays(tmp_path: Path, fault: str) -> None:
    kwargs, error_type, message = FAULTS[fault]
    run = _run(tmp_path, kwargs)
    data = load_run(run)
    assert len(data.generations) == GENERATIONS  # the search went on with fresh copies
    assert set(data.bugs["kind"]) == {"crash"}
    mine = data.bugs[data.bugs["signature"].str.startswith(f"crash:{error_type}:")]
    assert len(mine) >= 1 and mine["message"].str.contains(message, regex=False).all()
    bug = mine.iloc[0]
    assert len(bug["actions"]) == bug["step"] + 1  # the replay handle: seed and actions
    replayed = evo("replay", "run", str(int(bug["id"])), cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert f"bug {int(bug['id'])} reproduced" in replayed.stdout


@pytest.mark.slow
def test_a_game_whose_close_hangs_does_not_hang_the_run(tmp_path: Path) -> None:
    run = _run(tmp_path, {"close_hangs": True})
    data = load_run(run)
    assert len(data.generations) == GENERATIONS and data.bugs.empty
