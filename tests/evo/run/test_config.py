"""Experiment YAMLs: validation errors name the key and what was expected."""

from __future__ import annotations

import copy
import logging

from pathlib import Path

import pytest
import yaml

from evo.run.config import ConfigError, dump_experiment, load_experiment, parse_experiment

EXPERIMENTS = sorted(Path(__file__).resolve().parents[3].glob("experiments/**/*.yaml"))


@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: p.name)
def test_shipped_experiments_are_valid(path: Path) -> None:
    exp = load_experiment(path)
    assert exp.name and exp.objectives


def test_overrides_set_nested_keys(write_yaml, tiny_config) -> None:
    exp = load_experiment(write_yaml(tiny_config), ["search.population=9", "game.kwargs.maze_seed=4"])
    assert exp.search.population == 9
    assert exp.game.kwargs["maze_seed"] == 4


def test_resolved_config_round_trips(tiny_config) -> None:
    import yaml

    exp = parse_experiment(tiny_config)
    again = parse_experiment(yaml.safe_load(dump_experiment(exp)))
    # The dump fills in the objectives' and oracles' defaults; reading it back and dumping
    # again changes nothing.
    assert dump_experiment(again) == dump_experiment(exp)
    assert again.model_copy(update={"objectives": exp.objectives, "oracles": exp.oracles}) == exp
    assert again.finetune.a2c.lr == exp.finetune.a2c.lr  # defaults are written out


def test_config_yaml_lists_every_objective_and_oracle_default(tiny_config) -> None:
    """A reader of config.yaml sees every threshold the run used, defaults included."""
    import yaml

    from objectives.fps_drop import FpsDropConfig
    from oracles.performance import PerformanceConfig

    tiny_config["objectives"].append({"name": "fps_drop", "kwargs": {"sd_factor": 3.0}})
    written = yaml.safe_load(dump_experiment(parse_experiment(tiny_config)))
    fps = written["objectives"][2]["kwargs"]
    assert fps == {**FpsDropConfig().model_dump(mode="json"), "sd_factor": 3.0}
    assert fps["floor_ms"] == 0.0 and fps["warmup_rollouts"] is None and fps["delta"] is True
    perf = written["oracles"][3]["kwargs"]
    assert perf == {**PerformanceConfig().model_dump(mode="json"), "floor_ms": 1.0}
    assert perf["sd_factor"] == 5.0 and perf["slow_share"] == 0.5 and perf["min_visits"] == 2
    assert written["oracles"][1]["kwargs"]["window"] == 8  # stuck's default window


def test_device_defaults_to_cpu_and_a_misspelt_one_is_one_line(tiny_config, monkeypatch) -> None:
    """The YAML checks how a device is spelt; whether this machine has it is checked where a
    run starts (tests/evo/run/test_device.py), so a GPU run's config.yaml loads anywhere."""
    import torch

    assert parse_experiment(tiny_config).device == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert parse_experiment({**tiny_config, "device": "cuda:1"}).device == "cuda:1"
    for bad in ("gpu", "cpu:0", "cuda:", "cuda:x"):
        with pytest.raises(ConfigError, match=rf"^device: expected cpu, cuda or cuda:N, got '{bad}'$"):
            parse_experiment({**tiny_config, "device": bad})


def test_device_cuda_is_accepted_where_torch_sees_one(tiny_config, monkeypatch) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert parse_experiment({**tiny_config, "device": "cuda"}).device == "cuda"
    assert parse_experiment({**tiny_config, "device": "cuda:0"}).device == "cuda:0"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda c: c["search"].update(populaton=3), "search.populaton: unknown key"),
        (lambda c: c["search"].update(population="many"), "search.population: "),
        (lambda c: c.pop("budget"), "budget: required key is missing"),
        (lambda c: c["game"].update(name="no_such_game"), "game.name: unknown game 'no_such_game'; expected one of block_maze"),
        (lambda c: c["objectives"].append({"name": "fun"}), "objectives[2].name: unknown objective 'fun'"),
        (lambda c: c["oracles"].append({"name": "psychic"}), "oracles[4].name: unknown oracle 'psychic'"),
        (lambda c: c["oracles"][1].update(kwargs={"windw": 3}), "oracles[1].kwargs.windw: unknown key"),
        (lambda c: c["game"]["kwargs"].update(colour="red"), "game.kwargs do not fit block_maze"),
        (lambda c: c["finetune"]["a2c"].update(lr=-1), "finetune.a2c.lr: "),
        (lambda c: c.update(budget={}), "set at least one of generations, env_steps, wall_seconds"),
        (lambda c: c["game"].update(gym_id="CartPole-v1"), "give exactly one of name, entry_point, gym_id"),
        (lambda c: c["game"].update(name=None, entry_point="nowhere.at_all:Game"), "cannot import 'nowhere.at_all'"),
        (lambda c: c["search"].update(policy="dqn"),
         "search.agent: unknown agent kind 'dqn'; expected one of imitation, mlp, random"),
    ],
)
def test_bad_input_names_the_key(tiny_config, edit, expected: str) -> None:
    edit(tiny_config)
    with pytest.raises(ConfigError) as info:
        parse_experiment(tiny_config)
    message = str(info.value)
    assert expected in message
    assert "\n" not in message


def test_missing_file_and_bad_yaml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such experiment file"):
        load_experiment(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML at line"):
        load_experiment(bad)


def test_bad_override(write_yaml, tiny_config) -> None:
    with pytest.raises(ConfigError, match="expected key=value"):
        load_experiment(write_yaml(tiny_config), ["search.population"])


def test_search_agent_is_any_registered_agent_kind(tiny_config, monkeypatch) -> None:
    """The kinds a YAML may name are the registry's: a kind registered by a plug-in is one."""
    from evo.search.agents import AGENT_KINDS

    monkeypatch.setitem(AGENT_KINDS, "scripted", AGENT_KINDS["random"])
    tiny_config["search"]["agent"] = "scripted"
    assert parse_experiment(tiny_config).search.agent == "scripted"


def test_search_policy_is_the_old_name_of_search_agent_and_loads_with_one_warning(
        tiny_config, write_yaml, caplog: pytest.LogCaptureFixture) -> None:
    tiny_config["search"]["agent"] = "random"
    new = parse_experiment(tiny_config)
    old = copy.deepcopy(tiny_config)
    old["search"]["policy"] = old["search"].pop("agent")
    with caplog.at_level(logging.WARNING):
        assert load_experiment(write_yaml(old)) == new
        assert load_experiment(write_yaml(tiny_config), ["search.policy=mlp"]).search.agent == "mlp"
    assert caplog.messages == ["search.policy: is now search.agent: (the same kinds); search.policy: still loads "
                               "for now", "override search.policy: is now search.agent; search.policy still works for now"]
    assert "  agent: random\n" in dump_experiment(new) and "policy" not in dump_experiment(new)
    with pytest.raises(ConfigError, match=r"search.policy is the old name of search.agent; give agent only"):
        parse_experiment({**tiny_config, "search": {**tiny_config["search"], "policy": "mlp"}})


def test_an_experiment_written_before_0_2_is_one_line_naming_evo_migrate(tiny_config, write_yaml) -> None:
    old = {("policy" if key == "network" else key): value for key, value in tiny_config.items()}
    old["game"] = {"entry_point": "games.block_maze:BlockMaze", "kwargs": {"preset": "small"}}
    path = write_yaml(old)
    with pytest.raises(ConfigError) as caught:
        load_experiment(path)
    assert str(caught.value) == (
        f"{path}: written before 0.2 (key policy: is network:; game.entry_point games.block_maze:BlockMaze is "
        f"games.maze.block_maze:BlockMaze); run evo migrate {path} to rename")


def test_evo_migrate_renames_an_experiment_keeping_its_comments(tiny_config, tmp_path: Path) -> None:
    from evo.run.migrate import migrate

    new = tiny_config | {"game": {"entry_point": "games.maze.block_maze:BlockMaze", "kwargs": {"preset": "small"}}}
    old = {("policy" if key == "network" else key): value for key, value in new.items()}
    old["game"] = {"entry_point": "games.block_maze:BlockMaze", "kwargs": {"preset": "small"}}
    path = tmp_path / "exp.yaml"
    before = "# the network we always used\n" + yaml.safe_dump(old, sort_keys=False)
    path.write_text(before)
    (line,) = migrate(path)
    assert line.startswith(f"{path}: key policy: is network:; game.entry_point games.block_maze:BlockMaze")
    assert path.read_text().startswith("# the network we always used\n")
    assert load_experiment(path) == parse_experiment(new)
    assert (tmp_path / "exp.yaml.before-migrate").read_text() == before
    assert migrate(path) == []  # nothing old is left: nothing written


def test_both_names_at_once_is_one_line(tiny_config, tmp_path: Path) -> None:
    from evo.run.migrate import migrate

    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump({**tiny_config, "policy": {"hidden": [8]}}))
    with pytest.raises(ConfigError, match=r"^both policy: and network: are given; policy: is the old name of "
                                          r"network:, keep one$"):
        migrate(path)


def test_n_jobs_auto_is_every_core_the_run_may_use_written_as_a_number(
        write_yaml, tiny_config, monkeypatch, tmp_path: Path) -> None:
    """A YAML shared between a laptop and a workstation asks for their cores with one word;
    the run's config.yaml keeps the number it ran with, so that it replays as it ran."""
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(16)), raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    exp = load_experiment(write_yaml(tiny_config), ["parallel.n_jobs=auto"])
    assert exp.parallel.n_jobs == 16
    assert yaml.safe_load(dump_experiment(exp))["parallel"]["n_jobs"] == 16
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)  # taskset -c 0,3,5
    monkeypatch.setattr("os.cpu_count", lambda: 3)
    assert load_experiment(write_yaml(tiny_config), ["parallel.n_jobs=auto"]).parallel.n_jobs == 3


@pytest.mark.parametrize(
    "overrides, expected",
    [
        (["parallel.n_jobs=-1"], "parallel: n_jobs must be a number of workers (1 or more) or auto, got -1"),
        (["parallel.n_jobs=all"], "n_jobs must be a number of workers (1 or more) or auto, got 'all'"),
        (["parallel.n_jobs=0"], "got 0"),
        (["parallel.backend=dask", "parallel.address=tcp://scheduler:8786", "parallel.n_jobs=auto"],
         "n_jobs: auto counts this machine's cores, not those of the cluster at 'tcp://scheduler:8786'"),
    ],
)
def test_a_worker_count_that_is_not_one_is_one_line(write_yaml, tiny_config, overrides, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_experiment(write_yaml(tiny_config), overrides)
    assert expected in str(info.value)
    assert "\n" not in str(info.value)


def test_a_run_that_leaves_cores_idle_says_so_once(monkeypatch) -> None:
    from evo.run.parallel import ParallelConfig, idle_cores

    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(16)), raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    line = idle_cores(ParallelConfig())
    assert line == ("parallel: 2 workers on a machine with 16 cores (parallel.n_jobs=auto plays on all 16; "
                    "same results either way)")
    assert idle_cores(ParallelConfig(n_jobs="auto")) is None
    assert idle_cores(ParallelConfig(backend="serial")) is None  # one process by choice: lanes, a game's processes
    assert idle_cores(ParallelConfig(backend="dask", n_jobs=4)).startswith("parallel: 4 workers on a machine with 16")
    assert idle_cores(ParallelConfig(backend="ray", n_jobs=4, address="ray://head:10001")) is None  # the cluster's cores


def test_no_fine_tuning_has_no_settings(tiny_config) -> None:
    tiny_config["finetune"] = {"algorithm": "none"}
    assert parse_experiment(tiny_config).finetune.settings is None
    tiny_config["finetune"] = {"algorithm": "ppo", "ppo": {"episodes": 3}}
    assert parse_experiment(tiny_config).finetune.settings.episodes == 3


def test_the_single_agent_run_before_run_kinds_loads_with_one_warning_and_migrates(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """``finetune.algorithm: preference_ppo`` picked PPGTA's one-agent run before ``run:``
    named run kinds; it loads as ``run: single_agent`` for one release, and ``evo migrate``
    rewrites it, the file's comments kept."""
    from evo.run.migrate import migrate

    shipped = Path(__file__).resolve().parents[3] / "experiments" / "ppgta_park.yaml"
    text = shipped.read_text()
    assert "\nrun: single_agent\n" in text and "  algorithm: ppo\n" in text
    old = text.replace("run: single_agent\n", "").replace("  algorithm: ppo\n", "  algorithm: preference_ppo\n")
    path = tmp_path / "ppgta_park.yaml"
    path.write_text(old)
    with caplog.at_level(logging.WARNING):
        assert load_experiment(path) == load_experiment(shipped)
    assert caplog.messages == ["finetune.algorithm: preference_ppo: is now run: single_agent with "
                               "finetune.algorithm: ppo; it still loads for now (evo migrate rewrites it)"]
    (line,) = migrate(path)
    assert line == (f"{path}: finetune.algorithm: preference_ppo is run: single_agent with "
                    "finetune.algorithm: ppo")
    assert path.read_text().startswith("# PPGTA's exploring agent")  # its comments kept
    assert load_experiment(path) == load_experiment(shipped) and migrate(path) == []
    with pytest.raises(ConfigError, match=r"finetune.algorithm: preference_ppo is the old spelling of "
                                          r"run: single_agent, but run: is evolve"):
        parse_experiment({**yaml.safe_load(old), "run": "evolve"})


def test_an_unknown_run_kind_is_one_line_naming_the_kinds(tiny_config) -> None:
    with pytest.raises(ConfigError, match=r"^run: .*unknown run kind 'evolution'; expected one of evolve, "
                                          r"single_agent$"):
        parse_experiment({**tiny_config, "run": "evolution"})
