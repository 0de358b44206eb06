"""A generation's tail (learning, bugs, row, checkpoint, tables, progress) runs while the next
generation plays, and changes nothing a run gives: the same rows, bugs and checkpoints as a
run that waits for each tail, and an interrupted run still resumes from its last generation."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import torch

from evo.run.checkpoint import load_latest
from evo.run.config import parse_experiment
from evo.run.counters import GenerationReport
from evo.run.kinds.evolve import Evolve
from evo.run.parallel import Executor
from evo.run.rundir import MEASURED


def _loky(config: dict) -> dict:
    # Workers in processes: the only executors whose play leaves the run's thread free.
    return {**config, "parallel": {"backend": "loky", "n_jobs": 2}, "budget": {"generations": 3}}


def _comparable(run_dir: Path) -> tuple[pd.DataFrame, list[dict]]:
    gens = pd.read_csv(run_dir / "generations.csv").drop(columns=list(MEASURED))
    bugs = [json.loads(line) for line in (run_dir / "bugs.jsonl").read_text().splitlines()]
    for bug in bugs:
        bug.pop("wall_s")
        if bug["kind"] == "performance":  # measured frame times
            bug.pop("data"), bug.pop("message")
    return gens, bugs


@pytest.fixture(scope="module")
def overlapped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A loky run whose tails ran beside the next generation's play, never stopped."""
    from tests.conftest import TINY

    run_dir = tmp_path_factory.mktemp("tail") / "overlapped"
    Evolve(parse_experiment(_loky(TINY)), run_dir).run()
    return run_dir


def test_a_generations_tail_runs_while_the_next_one_plays(tiny_config, tmp_path: Path) -> None:
    """Progress of generation g is told after the workers were handed generation g + 1's
    fine-tuning or play and before the run waits for it; the last generation's once nothing is
    in their hands.
    (Whether the workers still play then depends on the machine's load, not on the loop.)"""
    events: list[str] = []
    search = Evolve(parse_experiment(_loky(tiny_config)), tmp_path / "run",
                    lambda report: events.append(f"told {report.generation}"))
    start = search.executor.start

    def logged_start(fn, tasks):
        events.append(f"start {fn.__name__}")
        results = start(fn, tasks)

        def wait(timeout=None):  # asked again every little while (evo.run.early_faults)
            if events[-1] != f"wait {fn.__name__}":
                events.append(f"wait {fn.__name__}")
            return results(timeout)
        return wait

    search.executor.start = logged_start  # type: ignore[method-assign]
    search.run()
    told = [events.index(f"told {g}") for g in range(3)]
    handed = [[e for e in events[:t] if not e.startswith("told")][-1] for t in told]
    # Generations 0 and 1: told while the next generation's fine-tuning or play is out.
    assert handed[0].startswith("start") and handed[1].startswith("start"), events
    assert events.count("start run_play") == 3 and handed[2] == "wait run_play", events


def test_the_overlap_changes_no_result(tiny_config, overlapped: Path, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows, bugs and the last checkpoint (policies, objectives, oracles, random states) are
    those of a run whose tails run at once: fine-tuning (whose reward reads the objectives)
    included."""
    monkeypatch.setattr(Executor, "overlaps", property(lambda self: False))
    Evolve(parse_experiment(_loky(tiny_config)), tmp_path / "in_turn").run()
    ours, in_turn = _comparable(overlapped), _comparable(tmp_path / "in_turn")
    pd.testing.assert_frame_equal(ours[0], in_turn[0])
    assert ours[1] == in_turn[1] and ours[1]
    a, b = load_latest(overlapped), load_latest(tmp_path / "in_turn")
    assert a is not None and b is not None
    assert torch.equal(torch.as_tensor(a.genomes), torch.as_tensor(b.genomes))
    assert a.meta["rng"] == b.meta["rng"] and a.meta["coverage"] == b.meta["coverage"]
    assert a.meta["next_id"] == b.meta["next_id"] and a.meta["generation"] == b.meta["generation"] == 2


def test_a_run_stopped_while_the_next_generation_plays_resumes_from_the_last(tiny_config, overlapped: Path,
                                                                           tmp_path: Path) -> None:
    """Ctrl-C while generation 2 plays (here: from generation 1's progress, told meanwhile)
    stops the workers; generation 1's checkpoint is there, and the run resumed ends as the
    run never stopped."""
    exp = parse_experiment(_loky(tiny_config))

    def interrupt(report: GenerationReport) -> None:
        if report.generation == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Evolve(exp, tmp_path / "cut", interrupt).run()
    kept = load_latest(tmp_path / "cut")
    assert kept is not None and kept.meta["generation"] == 1
    Evolve(exp, tmp_path / "cut").run(resume=True)
    whole, cut = _comparable(overlapped), _comparable(tmp_path / "cut")
    pd.testing.assert_frame_equal(whole[0], cut[0])
    assert whole[1] == cut[1]
