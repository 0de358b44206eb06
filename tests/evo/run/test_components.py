"""Components in a run: tensor state survives a resume, tables reach the run directory
through one hook, and the game's facts are kept in game.json for report and compare."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd
import pytest
import torch

import objectives
import oracles
from evo.run.config import parse_experiment
from evo.run.counters import GenerationReport
from evo.run.kinds.evolve import Evolve
from games.core.component import ComponentEntry, Context
from games.core.base import GameSpec
from games.core.record import Rollout
from objectives.base import Objective, ObjectiveConfig
from oracles.base import Bug, Oracle, OracleConfig
from tests.evo.run.test_loop import comparable_bugs, comparable_generations

ROOT = Path(__file__).resolve().parents[3]
INJECTED = 25
"""Bugs seeded into the tiny experiment's small block maze."""


class SurpriseConfig(ObjectiveConfig):
    """No options."""


class ReturnSurprise(Objective):
    """How far a policy's mean return is from the running mean of every episode so far:
    an objective that learns a tensor (sum and count of returns) across generations."""

    name = "surprise"
    sense: Literal["max", "min"] = "max"

    def __init__(self, spec: GameSpec, config: SurpriseConfig, context: Context) -> None:
        self.device = torch.device(context.device)
        self.stats = torch.zeros(2, dtype=torch.float64, device=self.device)

    @staticmethod
    def _returns(rollouts: Sequence[Rollout]) -> torch.Tensor:
        return torch.tensor([float(np.sum(r.rewards)) for r in rollouts], dtype=torch.float64)

    def score(self, rollouts: Sequence[Rollout]) -> float:
        mean = self.stats[0] / self.stats[1] if self.stats[1] > 0 else torch.tensor(0.0, dtype=torch.float64)
        return float((self._returns(rollouts).mean() - mean).abs())

    def update(self, rollouts: Sequence[Rollout]) -> None:
        returns = self._returns(rollouts).to(self.device)
        self.stats = self.stats + torch.stack([returns.sum(), torch.tensor(float(len(returns)), dtype=torch.float64)])

    def state_dict(self) -> dict[str, Any]:
        return {"stats": self.stats}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.stats = state["stats"].to(self.device)


class TallyConfig(OracleConfig):
    """No options."""


class EpisodeTally(Oracle):
    """An oracle with no bugs and one table: episodes seen per policy."""

    name = "tally"

    def __init__(self, spec: GameSpec, config: TallyConfig, context: Context) -> None:
        self.counts: dict[int, int] = {}

    def check(self, rollouts: Sequence[Rollout]) -> list[Bug]:
        for r in rollouts:
            self.counts[int(r.policy)] = self.counts.get(int(r.policy), 0) + 1
        return []

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"episodes_per_policy": pd.DataFrame(
            sorted(self.counts.items()), columns=["policy", "episodes"])}


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(objectives.OBJECTIVES, "surprise", ComponentEntry(SurpriseConfig, ReturnSurprise))
    monkeypatch.setitem(oracles.ORACLES, "tally", ComponentEntry(TallyConfig, EpisodeTally))


class Kill(Exception):
    pass


def test_a_tensor_state_survives_a_resume_identically(registered, tiny_config, tmp_path: Path) -> None:
    tiny_config["objectives"].append({"name": "surprise"})
    whole = Evolve(parse_experiment(tiny_config), tmp_path / "whole")
    whole.run()

    def kill_after_generation_1(report: GenerationReport) -> None:
        if report.generation == 1:
            raise Kill

    killed = tmp_path / "killed"
    with pytest.raises(Kill):
        Evolve(parse_experiment(tiny_config), killed, progress=kill_after_generation_1).run()
    raw = torch.load(killed / "checkpoints" / "gen_00001.pt", weights_only=True)
    assert '{"stats": {"__tensor__": ' in raw["meta"]  # a tensor, not a list in the JSON
    assert any(t.dtype == torch.float64 and t.shape == (2,) for t in raw["tensors"].values())

    resumed = Evolve(parse_experiment(tiny_config), killed)
    resumed.run(resume=True)
    assert torch.equal(resumed.built.objectives[2].stats, whole.built.objectives[2].stats)
    assert resumed.built.objectives[2].stats[1] > 0
    pd.testing.assert_frame_equal(comparable_generations(tmp_path / "whole"), comparable_generations(killed))
    pd.testing.assert_frame_equal(comparable_bugs(tmp_path / "whole"), comparable_bugs(killed))


def test_tables_of_any_component_reach_the_run_directory(registered, tiny_config, tmp_path: Path) -> None:
    tiny_config["oracles"].append({"name": "tally"})
    search = Evolve(parse_experiment(tiny_config), tmp_path / "run")
    search.run()
    counts = search.built.oracles[-1].counts
    table = pd.read_csv(tmp_path / "run" / "episodes_per_policy.csv")
    assert table.to_dict("list") == {"policy": sorted(counts), "episodes": [counts[p] for p in sorted(counts)]}
    assert sum(counts.values()) > len(counts)  # rewritten after later generations, not only the first
    points = pd.read_csv(tmp_path / "run" / "low_fps_points.csv")
    assert list(points.columns) == ["point", "row_low", "row_high", "col_low", "col_high", "drawn_at", "visits", "slow",
                                    "confidence", "median_ms", "max_ms", "threshold_ms", "reported"]
    assert points["reported"].any()


# --------------------------------------------------------------------------- game.json


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.conftest import TINY

    out = tmp_path_factory.mktemp("finished") / "run"
    Evolve(parse_experiment(json.loads(json.dumps(TINY))), out).run()
    return out


@pytest.fixture
def run_dir(finished_run: Path, tmp_path: Path) -> Path:
    """A fresh copy of the finished run (report writes plots into it)."""
    return Path(shutil.copytree(finished_run, tmp_path / "run"))


def test_game_json_holds_the_spec_the_injected_bugs_and_the_map(run_dir: Path) -> None:
    from games.maze.block_maze import BlockMaze

    game = BlockMaze(preset="small", maze_seed=0, heavy_ms=3.0)
    data = json.loads((run_dir / "game.json").read_text())
    assert data["label"] == "block_maze(heavy_ms=3.0, maze_seed=0, preset=small)"
    assert tuple(data["spec"]["feature_bins"]) == game.game_spec.feature_bins
    assert [(b["id"], b["kind"], tuple(b["location"]), b["description"]) for b in data["injected_bugs"]] == [
        (b.id, b.kind, tuple(b.location), b.description) for b in game.injected_bugs]
    np.testing.assert_array_equal(np.asarray(data["map"]), game.render_map())


def test_report_and_compare_read_game_json_and_build_no_game(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import games
    from evo.cli.main import main
    from evo.report.compare import compare

    def no_game(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("report built a live game")

    for method in ("spec", "make_env", "make_vector"):
        monkeypatch.setattr(games.GameFactory, method, no_game)
    monkeypatch.setattr("evo.run.game_facts._BUILT", {})
    assert main(["report", str(run_dir)]) == 0
    assert (run_dir / "plots" / "coverage_map.png").is_file()
    result = compare([run_dir], out=tmp_path / "cmp")
    assert result.runs["injected"].iloc[0] == INJECTED and result.runs["game"].iloc[0].startswith("block_maze(")
    assert (tmp_path / "cmp" / "plots" / "coverage_maps.png").is_file()


def _report_without_block_maze(run_dir: Path) -> subprocess.CompletedProcess:
    """``evo report`` in a fresh interpreter where ``games.maze.block_maze`` cannot be imported."""
    code = ("import sys; sys.modules['games.maze.block_maze'] = None; from evo.cli.main import main; "
            "raise SystemExit(main(['report', sys.argv[1]]))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code, str(run_dir)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_report_works_when_the_games_module_is_gone(run_dir: Path) -> None:
    done = _report_without_block_maze(run_dir)
    assert done.returncode == 0, done.stderr
    assert (run_dir / "plots" / "coverage_map.png").is_file()
    (run_dir / "game.json").unlink()  # an older run: only building the game would tell
    assert _report_without_block_maze(run_dir).returncode != 0


def test_a_run_without_game_json_still_reports_by_building_its_game(run_dir: Path) -> None:
    from evo.cli.main import main
    from evo.report.tables import game_facts, load_run

    (run_dir / "game.json").unlink()
    assert main(["report", str(run_dir)]) == 0
    facts = game_facts(load_run(run_dir))
    assert len(facts.injected) == INJECTED and facts.walls is not None
