"""Checkpoints on disk: only the last few and the pinned are kept, a damaged one is skipped
with one line, a run killed before its first checkpoint starts over, torn lines are never read."""

from __future__ import annotations

import logging
import pickle
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import torch

from evo.run.checkpoint import CheckpointError, load_latest
from evo.run.config import ConfigError, parse_experiment
from evo.run.rundir import GENERATIONS, truncate_to_generation
from evo.run.counters import GenerationReport
from evo.run.kinds.evolve import Evolve
from tests.evo.run.test_loop import Kill, comparable_bugs, comparable_generations, run


def kept(run_dir: Path) -> list[str]:
    return sorted(p.name for p in (run_dir / "checkpoints").iterdir())


def test_only_the_last_k_and_the_pinned_checkpoints_stay(tiny_config, tmp_path: Path) -> None:
    tiny_config["budget"] = {"generations": 6}
    tiny_config["checkpoint"] = {"keep": 2, "pin": [1]}
    run(tiny_config, tmp_path / "r")
    assert kept(tmp_path / "r") == ["gen_00001.pt", "gen_00004.pt", "gen_00005.pt"]


@pytest.mark.parametrize(("override", "key"), [
    ({"keep": 0}, "checkpoint.keep"), ({"pin": [-1]}, "checkpoint.pin.0"), ({"every": 2}, "checkpoint.every"),
])
def test_bad_checkpoint_settings_name_the_key(tiny_config, override: dict[str, Any], key: str) -> None:
    tiny_config["checkpoint"] = override
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        parse_experiment(tiny_config)


def test_a_pruned_run_resumes_from_its_newest_checkpoint(tiny_config, tmp_path: Path) -> None:
    tiny_config["budget"] = {"generations": 6}
    run(tiny_config, tmp_path / "whole")
    tiny_config["checkpoint"] = {"keep": 1}

    def kill_after_generation_3(report: GenerationReport) -> None:
        if report.generation == 3:
            raise Kill

    killed = tmp_path / "killed"
    with pytest.raises(Kill):
        run(tiny_config, killed, progress=kill_after_generation_3)
    assert kept(killed) == ["gen_00003.pt"]
    Evolve(parse_experiment(tiny_config), killed).run(resume=True)
    assert kept(killed) == ["gen_00005.pt"]
    pd.testing.assert_frame_equal(comparable_generations(tmp_path / "whole"), comparable_generations(killed))
    pd.testing.assert_frame_equal(comparable_bugs(tmp_path / "whole"), comparable_bugs(killed))


def _cut_short(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _holding_a_pickled_object(path: Path) -> None:
    """The checkpoint's data.pkl replaced by one that would construct an object on load."""
    with zipfile.ZipFile(path) as z:
        names = {n: z.read(n) for n in z.namelist()}
    pkl = next(n for n in names if n.endswith("data.pkl"))
    names[pkl] = pickle.dumps({"meta": Path("/tmp/evo-should-not-run")}, protocol=2)
    with zipfile.ZipFile(path, "w") as z:
        for name, data in names.items():
            z.writestr(name, data)


@pytest.mark.parametrize("damage", [_cut_short, _holding_a_pickled_object])
def test_a_damaged_checkpoint_is_one_line_and_the_one_before_is_used(
    damage: Any, tiny_config, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    run(tiny_config, tmp_path / "whole")

    def kill_after_generation_2(report: GenerationReport) -> None:
        if report.generation == 2:
            raise Kill

    killed = tmp_path / "killed"
    with pytest.raises(Kill):
        run(tiny_config, killed, progress=kill_after_generation_2)
    newest = killed / "checkpoints" / "gen_00002.pt"
    damage(newest)
    with pytest.raises(Exception):
        torch.load(newest, weights_only=True)
    with caplog.at_level(logging.WARNING, logger="evo.run.checkpoint"):
        Evolve(parse_experiment(tiny_config), killed).run(resume=True)
    warnings = [r.getMessage() for r in caplog.records if r.name == "evo.run.checkpoint"]
    assert len(warnings) == 1 and "gen_00002.pt does not load" in warnings[0]
    assert "\n" not in warnings[0] and "trying the one before" in warnings[0]
    pd.testing.assert_frame_equal(comparable_generations(tmp_path / "whole"), comparable_generations(killed))
    pd.testing.assert_frame_equal(comparable_bugs(tmp_path / "whole"), comparable_bugs(killed))
    assert load_latest(killed).meta["generation"] == 3


def test_a_run_killed_before_its_first_checkpoint_starts_over(tiny_config, tmp_path: Path) -> None:
    run(tiny_config, tmp_path / "whole")

    def kill_at_generation_0(report: GenerationReport) -> None:
        raise Kill

    killed = tmp_path / "killed"
    with pytest.raises(Kill):
        run(tiny_config, killed, progress=kill_at_generation_0)
    (killed / "checkpoints" / "gen_00000.pt").unlink()  # as if the kill came just before it
    Evolve(parse_experiment(tiny_config), killed).run(resume=True)
    pd.testing.assert_frame_equal(comparable_generations(tmp_path / "whole"), comparable_generations(killed))
    pd.testing.assert_frame_equal(comparable_bugs(tmp_path / "whole"), comparable_bugs(killed))


def test_a_generation_row_cut_short_is_never_read(tiny_config, tmp_path: Path) -> None:
    run(tiny_config, tmp_path / "r")
    gens = tmp_path / "r" / GENERATIONS
    whole = gens.read_text()
    # Row 3 cut after its first character: "3" would read as generation 3 of a row of NaNs.
    gens.write_text(whole[: whole.rindex("\n3,") + 2])
    truncate_to_generation(tmp_path / "r", 3)
    assert list(pd.read_csv(gens)["generation"]) == [0, 1, 2]
    assert gens.read_text() == whole[: whole.rindex("\n3,") + 1]


def test_a_run_whose_checkpoints_all_fail_is_refused_and_left_as_it_was(tiny_config, tmp_path: Path) -> None:
    run(tiny_config, tmp_path / "r")
    for path in (tmp_path / "r" / "checkpoints").glob("gen_*.pt"):
        _cut_short(path)
    before = {p.name: p.read_bytes() for p in (tmp_path / "r").iterdir() if p.is_file()}
    with pytest.raises(CheckpointError, match=r"no checkpoint to resume from \(3 saved, none loads\)"):
        Evolve(parse_experiment(tiny_config), tmp_path / "r").run(resume=True)
    assert {p.name: p.read_bytes() for p in (tmp_path / "r").iterdir() if p.is_file()} == before
