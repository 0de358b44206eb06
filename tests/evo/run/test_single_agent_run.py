"""``experiments/ppgta_park.yaml`` (``run: single_agent``) at a tiny budget: ``evo run`` trains PPGTA's one agent by
PPO from the imitation policy and keeps it; a population in such an experiment is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

pytest.importorskip("vizdoom")

from evo.search.agents.imitation import ImitationSpec  # noqa: E402
from games.perception.imitation import load_policy  # noqa: E402
from tests.cli.test_cli import evo, evo_run  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def _config() -> dict:
    config = yaml.safe_load((ROOT / "experiments" / "ppgta_park.yaml").read_text())
    config["game"]["kwargs"]["max_steps"] = 40
    config["budget"] = {"env_steps": 100}
    config["finetune"]["ppo"]["episodes"] = 2
    return config


@pytest.mark.slow
def test_the_ppgta_experiment_trains_one_agent_and_keeps_it(tmp_path: Path) -> None:
    run = evo_run(_config(), tmp_path)
    generations = pd.read_csv(run / "generations.csv")
    assert list(generations["env_steps"]) == [80, 160]  # one row per update of 2 x 40 steps
    assert generations["rl_approx_kl"].notna().all()
    # The first update acts as the imitation policy; PPO then moves it away.
    assert generations["preference_kl_mean"].iloc[0] == pytest.approx(0.0, abs=1e-6)
    assert generations["preference_kl_mean"].iloc[1] < 0
    assert generations["objects_seen"].iloc[-1] > 0  # the oracles watched its episodes
    trained, meta = load_policy(run / "policy.pt")
    start, _ = load_policy()
    assert meta["trained_by"] == "preference_ppo" and meta["updates"] == 2
    changed = [k for k, v in trained.state_dict().items() if not (v == start.state_dict()[k]).all()]
    assert changed  # the kept actor is the trained one, not the imitation policy
    assert ImitationSpec((3, 120, 160), str(run / "policy.pt")).build(1, np.zeros((1, 40, 9))).playing.model is not None


def test_a_population_of_ppgta_agents_is_refused(tmp_path: Path) -> None:
    config = _config()
    config["search"]["population"] = 4
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(config))
    result = evo("run", "exp.yaml", "--out", "run", cwd=tmp_path)
    assert result.returncode == 2
    assert "trains one agent: expected search.population 1 and offspring 0, got 4 and 0" in result.stderr
