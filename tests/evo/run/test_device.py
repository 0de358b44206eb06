"""A run made on a GPU opens anywhere: its ``device`` is checked where a run starts, and
replay, report, evaluate and videos fall back to the CPU with one line."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml

from evo.cli.main import main
from evo.run.config import ConfigError, Experiment, parse_experiment
from evo.run.device import check_runnable, on_this_machine

NO_GPU = "device: cuda requested but torch sees no CUDA device here; use cpu"


@pytest.fixture
def no_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine as one without a GPU, whatever it has."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


@pytest.fixture(scope="module")
def cuda_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny run, its config.yaml then saying it was made with ``device: cuda``."""
    from tests.conftest import TINY

    folder = tmp_path_factory.mktemp("cuda_run")
    (folder / "exp.yaml").write_text(yaml.safe_dump(TINY))
    assert main(["run", str(folder / "exp.yaml"), "budget.generations=2", "--out", str(folder / "run"),
                "--quiet"]) == 0
    config = folder / "run" / "config.yaml"
    raw = yaml.safe_load(config.read_text())
    raw["device"] = "cuda"
    config.write_text(yaml.safe_dump(raw, sort_keys=False))
    return folder / "run"


def test_starting_a_run_on_a_missing_gpu_is_one_line(tiny_config, no_gpu) -> None:
    exp = parse_experiment({**tiny_config, "device": "cuda"})  # the YAML itself is fine
    with pytest.raises(ConfigError, match=rf"^{NO_GPU}$"):
        check_runnable(exp)
    assert on_this_machine(exp).device == "cpu" and exp.device == "cuda"


def test_evo_run_on_a_missing_gpu_is_one_line_and_exit_2(bad_input, no_gpu) -> None:
    assert bad_input(["run", "exp.yaml", "device=cuda", "--out", "run"]) == f"evo: error: {NO_GPU}"


def test_resuming_a_cuda_run_without_a_gpu_exits_2(cuda_run: Path, no_gpu, capsys) -> None:
    assert main(["run", "--resume", str(cuda_run)]) == 2
    assert capsys.readouterr().err.strip() == f"evo: error: {NO_GPU}"


def test_a_cuda_run_replays_and_evaluates_without_a_gpu(
        cuda_run: Path, no_gpu, tmp_path: Path, capsys, caplog: pytest.LogCaptureFixture) -> None:
    bugs = (cuda_run / "bugs.jsonl").read_text().splitlines()
    assert bugs, "the tiny run found no bug to replay"
    assert main(["replay", str(cuda_run), "0"]) == 0
    assert "reproduced" in capsys.readouterr().out
    assert "the run was made on cuda" in caplog.text and "plays on cpu" in caplog.text
    assert main(["evaluate", str(cuda_run), "--episodes", "2", "--out", str(tmp_path / "eval")]) == 0


def test_a_cuda_run_reports_and_films_without_a_gpu(cuda_run: Path, no_gpu, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the report extra (matplotlib) is not installed")
    pytest.importorskip("imageio", reason="the report extra (imageio) is not installed")
    assert main(["report", str(cuda_run)]) == 0
    video = tmp_path / "bug0.gif"
    assert main(["replay", str(cuda_run), "0", "--video", str(video)]) == 0
    assert video.stat().st_size > 0


def test_the_experiments_device_reaches_the_wrappers_that_run_networks(tiny_config, no_gpu) -> None:
    """``device`` goes to detect and encode (their networks), not to a resize; on the CPU the
    wrappers are built exactly as they were before devices."""
    from evo.run.config import game_factory

    tiny_config["game"] = {"name": "doom_park", "kwargs": {"preset": "small"}, "wrappers": [
        {"name": "detect", "kwargs": {"every": 2}}, {"name": "resize", "kwargs": {"height": 60, "width": 80}},
        {"name": "encode"}]}
    exp = Experiment.model_validate({**tiny_config, "device": "cuda:0"})  # validated names aside: no GPU here
    assert game_factory(exp).wrappers == (
        ("detect", (("device", "cuda:0"), ("every", 2))), ("resize", (("height", 60), ("width", 80))),
        ("encode", (("device", "cuda:0"),)))
    on_cpu = game_factory(exp.model_copy(update={"device": "cpu"})).wrappers
    assert on_cpu == (("detect", (("every", 2),)), ("resize", (("height", 60), ("width", 80))), ("encode", ()))
