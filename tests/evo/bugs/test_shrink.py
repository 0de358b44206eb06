"""Delta debugging: a bug's trace shrinks to a short one that still reproduces it."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from evo.run.config import parse_experiment
from evo.bugs.reproduce import Reproducer
from evo.run.kinds.evolve import Evolve
from evo.bugs.shrink import ddmin, shrink


def _contains_in_order(needle: list[int]):  # type: ignore[no-untyped-def]
    def reproduces(candidates: list[list[int]]) -> list[bool]:
        out = []
        for c in candidates:
            it = iter(c)
            out.append(all(any(x == n for x in it) for n in needle))
        return out
    return reproduces


def test_ddmin_finds_the_actions_that_matter() -> None:
    trace = [0, 5, 1, 1, 7, 2, 9, 3, 0, 0, 4, 8, 3, 6]
    shrunk, plays = ddmin(trace, _contains_in_order([7, 3, 6]))
    assert shrunk == [7, 3, 6] and plays > 0


def test_ddmin_tells_its_progress_after_each_round() -> None:
    trace = [0, 5, 1, 1, 7, 2, 9, 3, 0, 0, 4, 8, 3, 6]
    told: list[tuple[int, int]] = []
    shrunk, plays = ddmin(trace, _contains_in_order([7, 3, 6]), progress=lambda n, p: told.append((n, p)))
    assert told[-1] == (len(shrunk), plays) and told[0][0] <= len(trace)
    assert [p for _, p in told] == sorted(p for _, p in told)  # plays only grow
    assert [n for n, _ in told] == sorted((n for n, _ in told), reverse=True)  # the trace only shrinks


def test_ddmin_results_are_one_minimal() -> None:
    rng = __import__("numpy").random.default_rng(0)
    for _ in range(20):
        trace = rng.integers(0, 6, size=40).tolist()
        needle = [trace[i] for i in sorted(rng.choice(40, size=4, replace=False))]
        test = _contains_in_order(needle)
        shrunk, _ = ddmin(trace, test)
        assert test([shrunk]) == [True]
        # removing any one action loses the bug
        assert not any(test([shrunk[:i] + shrunk[i + 1:]])[0] for i in range(len(shrunk)))


def test_ddmin_stops_at_its_budget() -> None:
    calls: list[int] = []

    def count(candidates: list[list[int]]) -> list[bool]:
        calls.append(len(candidates))
        return [False] * len(candidates)

    ddmin(list(range(1000)), count, max_plays=50)
    assert sum(calls) < 50 + 1000


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.conftest import TINY

    out = tmp_path_factory.mktemp("shrink") / "run"
    Evolve(parse_experiment(json.loads(json.dumps(TINY))), out).run()
    return out


def test_every_bug_of_a_run_shrinks_to_a_trace_that_still_reproduces_it(finished_run: Path) -> None:
    bugs = [json.loads(line) for line in (finished_run / "bugs.jsonl").read_text().splitlines()]
    assert {b["kind"] for b in bugs} >= {"crash", "logic", "stuck", "performance"}
    shorter = 0
    for bug in bugs:
        result = shrink(finished_run, int(bug["id"]))
        assert result.reproduced and len(result.shrunk) <= len(result.original)
        shorter += len(result.shrunk) < len(result.original)
        with Reproducer(finished_run) as again:  # judged as evo replay judges, 3 copies
            assert again.reproduces(bug, [list(result.shrunk)]) == [True], bug["signature"]
    assert shorter >= len(bugs) - 1


def test_a_trace_that_never_shows_the_bug_is_left_as_it_is(finished_run: Path, tmp_path: Path) -> None:
    import shutil

    copy = Path(shutil.copytree(finished_run, tmp_path / "run"))
    records = [json.loads(line) for line in (copy / "bugs.jsonl").read_text().splitlines()]
    crash = next(r for r in records if r["kind"] == "crash")
    crash["actions"] = crash["actions"][:1]
    (copy / "bugs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = shrink(copy, int(crash["id"]))
    assert not result.reproduced and result.shrunk == result.original


def test_regress_reports_exactly_the_bugs_a_build_fixed(finished_run: Path) -> None:
    from evo.bugs.regress import regress
    from games.maze.block_maze import BlockMaze

    truth = BlockMaze(preset="small", maze_seed=0, heavy_ms=3.0)
    bugs = [json.loads(line) for line in (finished_run / "bugs.jsonl").read_text().splitlines()]
    found = {int(b["id"]): truth.match(SimpleNamespace(**b)) for b in bugs}
    fixed = sorted({i for i in found.values() if i is not None})[::2]  # every other bug found
    table = regress(finished_run, {"fixed_bugs": fixed})
    expect = {bug_id: ("fixed" if injected in fixed else "remains") for bug_id, injected in found.items()}
    assert dict(zip(table["id"], table["status"])) == expect
    assert (table["status"] == "fixed").sum() >= 1 and (table["status"] == "remains").sum() >= 1


def test_regress_refuses_kwargs_the_game_does_not_take(finished_run: Path) -> None:
    from evo.bugs.regress import regress

    with pytest.raises(ValueError, match="game.kwargs do not fit"):
        regress(finished_run, {"no_such_kwarg": 1})


def test_evo_shrink_and_regress_commands(finished_run: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    from evo.cli.main import main

    run = Path(shutil.copytree(finished_run, tmp_path / "run"))
    assert main(["shrink", str(run), "0"]) == 0
    assert "shrinking bug 0 (1 of 1" in capsys.readouterr().out
    (line,) = [json.loads(x) for x in (run / "shrunk.jsonl").read_text().splitlines()]
    assert line["id"] == 0 and line["reproduced"] and len(line["actions"]) <= line["original_length"]
    assert main(["regress", str(run)]) == 1  # the same build: every bug remains
    assert "0 of" in capsys.readouterr().out
    assert main(["shrink", str(run), "999"]) == 2
    assert "no bug with id 999" in capsys.readouterr().err
