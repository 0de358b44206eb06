"""``evo study ppgta`` on a tiny setting: PPGTA's agent, an evolved population and random play
from the same random starts on a level none was trained on; its tables, figures and errors."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from evo.report.studies.ppgta_figures import expected_over_episodes, objects_over_episodes

ROOT = Path(__file__).resolve().parents[4]


def test_objects_tested_over_episodes_counts_each_object_once() -> None:
    episodes = pd.DataFrame({"_tested": [[3], [], [3, 7], [1, 7, 9]]})
    assert list(objects_over_episodes(episodes)) == [1, 1, 2, 4]


def test_objects_tested_by_any_k_episodes_is_the_mean_over_every_choice_of_them() -> None:
    tested = [[3], [], [3, 7, 7], [1, 7, 9], [3, 9]]
    expected = expected_over_episodes(pd.DataFrame({"_tested": tested}))
    for k in range(1, len(tested) + 1):
        unions = [len(set().union(*(tested[i] for i in chosen))) for chosen in combinations(range(len(tested)), k)]
        assert expected[k - 1] == pytest.approx(np.mean(unions))
    # The first episodes were an unlucky draw: in order, two give 1 object; any two give 2.7 on average.
    assert objects_over_episodes(pd.DataFrame({"_tested": tested}))[1] == 1 < expected[1]


def episodes_of(out: Path, agent: str) -> pd.DataFrame:
    episodes = pd.read_csv(out / "episodes.csv")
    return episodes[episodes["agent"] == agent]


def _tiny(name: str, **search: int) -> dict:
    config = yaml.safe_load((ROOT / "experiments" / name).read_text())
    config["game"]["kwargs"]["max_steps"] = 40
    config["search"].update(search)
    config["budget"] = {"env_steps": 50}
    config["parallel"] = {"backend": "serial"}
    return config


@pytest.mark.slow
def test_the_study_scores_every_agent_from_the_same_starts(tmp_path: Path) -> None:
    pytest.importorskip("vizdoom")
    from tests.cli.test_cli import evo, evo_runs

    ppgta = _tiny("ppgta_park.yaml")
    ppgta["finetune"]["ppo"]["episodes"] = 2
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
    runs = evo_runs([(ppgta, tmp_path / "a"), (_tiny("ppgta_park_novelty.yaml", population=2), tmp_path / "b")])
    result = evo("study", "ppgta", *map(str, runs), "random", "imitation", "--episodes", "3", "--steps", "25", "--preset", "small",
                 "--batch", "2", "--out", "study", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "study"
    table = pd.read_csv(out / "table.csv")
    assert list(table["agent"]) == ["ppgta_park", "ppgta_park_novelty", "random", "imitation"]
    assert (table["objects"] == 16).all() and (table["steps"] == 75).all()
    # The imitation policy plays as a tester, as PPGTA's agent does; random play tests nothing.
    assert (episodes_of(out, "imitation")["tests_started"] >= 0).all()
    assert (episodes_of(out, "random")["tests_started"] == -1).all()
    # Every started test came to something, and a new one to an executed test; nobody tests an
    # object it never came close to.
    mine = episodes_of(out, "imitation")
    assert (mine[["tests_new", "tests_repeated", "tests_failed"]].sum(axis=1) == mine["tests_started"]).all()
    assert (episodes_of(out, "random")[["tests_new", "tests_repeated", "tests_failed"]] == -1).all().all()
    assert (table["objects_close"] >= table["objects_tested"]).all()
    testers = table[table["agent"] != "random"]
    assert (testers["tests_new"] <= testers["tests"]).all()
    assert table.loc[table["agent"] == "random", "tests_new"].isna().all()
    # A tester's tests take part of its steps, each at least one; random spends none testing.
    mine = episodes_of(out, "imitation")
    assert (mine["steps_testing"] >= mine["tests_started"]).all() and (mine["steps_testing"] <= mine["steps"]).all()
    assert table.loc[table["agent"] == "random", "test_steps_mean"].isna().all()
    # Coverage over all episodes is at least any one episode's.
    assert (table["preferred_coverage"] >= table["preferred_coverage_episode"]).all()
    assert table["preferred_coverage"].between(0, 1).all()
    # PPGTA's success rate: the objects with a successful test, of all objects.
    tests = pd.read_csv(out / "tests.csv")
    for row in table.itertuples():
        mine = tests[(tests["agent"] == row.agent) & tests["success"]]
        assert row.objects_succeeded == mine["object"].nunique() <= row.objects_tested
        assert row.objects_succeeded_share == pytest.approx(row.objects_succeeded / 16)
    episodes = pd.read_csv(out / "episodes.csv")
    starts = episodes.pivot(index="episode", columns="agent", values="start_x")
    assert np.allclose(starts.to_numpy(), starts.to_numpy()[:, :1])  # paired: episode i starts alike
    assert starts.iloc[:, 0].nunique() == 3  # and from random places
    pairwise = pd.read_csv(out / "pairwise.csv")
    assert set(pairwise["metric"]) == {"preferred_coverage", "objects_tested", "test_success"}
    assert len(pairwise) == 18  # six pairs of agents per metric
    assert (out / "objects_tested.png").stat().st_size > 0 and (out / "maps.png").stat().st_size > 0
    assert "PPGTA protocol: small park, level 100, 3 episodes of 25 steps" in result.stdout
    # A shorter study plays the first episodes of a longer one (PPGTA's 18 are the first of 45).
    shorter = evo("study", "ppgta", str(runs[0]), "--episodes", "2", "--steps", "25", "--preset", "small",
                  "--batch", "2", "--out", "first2", cwd=tmp_path)
    assert shorter.returncode == 0, shorter.stderr
    first = pd.read_csv(tmp_path / "first2" / "tests.csv")
    longer = tests[(tests["agent"] == "ppgta_park") & (tests["episode"] < 2)].drop(columns="agent")
    pd.testing.assert_frame_equal(first.drop(columns="agent").reset_index(drop=True), longer.reset_index(drop=True))
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "first2" / "episodes.csv"),
                                  episodes_of(out, "ppgta_park")[episodes_of(out, "ppgta_park")["episode"] < 2]
                                  .reset_index(drop=True), check_dtype=False)


def test_an_input_that_is_not_a_run_is_one_line_and_exit_2(tmp_path: Path) -> None:
    from tests.cli.test_cli import evo

    result = evo("study", "ppgta", str(tmp_path / "nowhere"), "--out", "study", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"evo: error: {tmp_path / 'nowhere'}: not a run directory (no config.yaml) and not one of 'imitation', "
        "'random'"]


def test_a_tester_setting_out_of_range_is_one_line_and_exit_2(tmp_path: Path) -> None:
    from tests.cli.test_cli import evo

    result = evo("study", "ppgta", "random", "--near", "0", "--out", "study", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "evo: error: --near and --test-steps must be at least 1 and --cooldown at least 0, got 0, 100, 50"]


def test_a_test_policy_without_a_test_end_is_one_line_and_exit_2(tmp_path: Path) -> None:
    pytest.importorskip("vizdoom")
    from tests.cli.test_cli import evo
    from tests.games.perception.imitation_data import make_tiny_demos, make_tiny_policy

    weights = make_tiny_policy(make_tiny_demos(tmp_path / "demos"), tmp_path / "test.pt", epochs=1)
    result = evo("study", "ppgta", "random", "--tests-weights", str(weights), "--out", "study", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"evo: error: --tests-weights: {weights} has no test end (add one: evo vision train test-end --weights "
        f"{weights} --demos DIR; or give --fixed-end)"]
    assert not (tmp_path / "study").exists()
