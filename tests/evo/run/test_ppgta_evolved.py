"""``experiments/ppgta_park_evolved.yaml`` at a tiny budget: NSGA-II on novelty, the preferred
style and coverage, PPO on PPGTA's mixed reward, on the park's evaluation level."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

pytest.importorskip("vizdoom")

from tests.cli.test_cli import evo_run  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_the_evolved_experiment_runs_and_scores_the_preferred_style(tmp_path: Path) -> None:
    config = yaml.safe_load((ROOT / "experiments" / "ppgta_park_evolved.yaml").read_text())
    config["game"]["kwargs"]["max_steps"] = 40
    config["search"].update(population=2, offspring=2)
    config["budget"] = {"env_steps": 300}
    config["parallel"] = {"backend": "serial"}
    run = evo_run(config, tmp_path)
    generations = pd.read_csv(run / "generations.csv")
    assert len(generations) >= 2
    assert (generations["preference_kl_max"] <= 0).all() and (generations["preference_kl_mean"] < 0).all()
    assert generations["rl_approx_kl"].notna().iloc[-1]  # PPO fine-tuned on the mixed reward
    novelty = pd.read_csv(run / "preference_kl_novelty.csv")
    assert len(novelty) == len(generations)  # the novelty inside learned every generation
    resolved = yaml.safe_load((run / "config.yaml").read_text())
    kwargs = next(o["kwargs"] for o in resolved["objectives"] if o["name"] == "preference_kl")
    assert kwargs["alpha"] == 0.8 and kwargs["epsilon"] == -0.1 and kwargs["novelty_scale"] == 100.0
