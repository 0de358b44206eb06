"""End to end: the ``evo`` command as a user types it, with tiny budgets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evo.report.tables import load_run

ROOT = Path(__file__).resolve().parents[2]


def evo(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``evo ARGS`` in a fresh interpreter, as the console script would."""
    return subprocess.run(
        [sys.executable, "-m", "evo.cli", *args],
        cwd=cwd, capture_output=True, text=True, timeout=600,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"},
    )


def evo_run(config: dict[str, Any], folder: Path) -> Path:
    """``evo run`` of an experiment given as a dict, written to ``folder/exp.yaml``; asserts
    it succeeded and returns its run directory."""
    return evo_runs([(config, folder)])[0]


def evo_runs(runs: list[tuple[dict[str, Any], Path]]) -> list[Path]:
    """:func:`evo_run` of each ``(config, folder)``, all at once; asserts each succeeded."""
    import yaml

    for config, folder in runs:
        (folder / "exp.yaml").write_text(yaml.safe_dump(config))
    for result in evos(*[(("run", "exp.yaml", "--out", "run"), folder) for _, folder in runs]):
        assert result.returncode == 0, result.stderr
    return [folder / "run" for _, folder in runs]


def evos(*calls: tuple[tuple[str, ...], Path]) -> list[subprocess.CompletedProcess[str]]:
    """:func:`evo` of each ``(args, cwd)``, all at once: independent commands that each keep
    about one core busy (runs on the serial backend) take the suite less time side by side."""
    started = [subprocess.Popen([sys.executable, "-m", "evo.cli", *args], cwd=cwd, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env={**__import__("os").environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"})
               for args, cwd in calls]
    done = []
    for process, (args, _) in zip(started, calls):
        out, err = process.communicate(timeout=600)
        done.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return done


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One tiny Wuji run through the CLI, shared by the tests that read it."""
    from tests.conftest import TINY
    import yaml

    folder = tmp_path_factory.mktemp("cli")
    (folder / "exp.yaml").write_text(yaml.safe_dump(TINY))
    result = evo("run", "exp.yaml", "budget.generations=3", "--out", "run", cwd=folder)
    assert result.returncode == 0, result.stderr
    (folder / "stdout.txt").write_text(result.stdout)
    return folder / "run"


def test_run_prints_progress_and_a_summary(tiny_run: Path) -> None:
    out = (tiny_run.parent / "stdout.txt").read_text()
    assert "gen   0" in out and "gen   2" in out
    for metric in ["bugs", "coverage", "winning_max", "hypervolume", "injected found", "unmatched reports"]:
        assert metric in out
    data = load_run(tiny_run)
    assert len(data.generations) == 3 and len(data.bugs) > 0


def test_every_reported_bug_replays(tiny_run: Path) -> None:
    from evo.bugs.replay import replay

    data = load_run(tiny_run)
    for bug_id in data.bugs["id"]:
        result = replay(tiny_run, int(bug_id))
        assert result.reproduced, result.message
    first = evo("replay", str(tiny_run), str(data.bugs["id"].iloc[0]), cwd=tiny_run.parent)
    assert first.returncode == 0 and "reproduced" in first.stdout, first.stdout


def test_a_replay_that_does_not_reproduce_exits_1(tiny_run: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(tiny_run, copy)
    records = [json.loads(line) for line in (copy / "bugs.jsonl").read_text().splitlines()]
    records[0]["actions"] = records[0]["actions"][:1]  # the bug's step is never reached
    (copy / "bugs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = evo("replay", str(copy), str(records[0]["id"]), cwd=tmp_path)
    assert result.returncode == 1
    assert "did not reproduce" in result.stdout


def test_resume_continues_a_run(tiny_run: Path, tmp_path: Path) -> None:
    import shutil

    import yaml

    copy = tmp_path / "run"
    shutil.copytree(tiny_run, copy)
    config = yaml.safe_load((copy / "config.yaml").read_text())
    config["budget"]["generations"] = 4
    (copy / "config.yaml").write_text(yaml.safe_dump(config))
    result = evo("run", "--resume", str(copy), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert list(load_run(copy).generations["generation"]) == [0, 1, 2, 3]


def _error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["run", "missing.yaml"], "missing.yaml: no such experiment file"),
        (["run", "exp.yaml", "search.populaton=3"], "search.populaton: unknown key"),
        (["run", "exp.yaml", "search.population=lots"], "search.population: "),
        (["run", "exp.yaml", "game.name=tetris"], "game.name: unknown game 'tetris'; expected one of "),
        (["run", "exp.yaml", "objectives=[{name: fun}]"], "objectives[0].name: unknown objective 'fun'"),
        (["run", "exp.yaml", "oracles=[{name: psychic}]"], "oracles[0].name: unknown oracle 'psychic'"),
        (["run", "exp.yaml", "game.kwargs.colour=red"], "game.kwargs do not fit block_maze"),
        (["run", "exp.yaml", "network.conv=[[8, 8, 4]]"], "network.conv: conv layers need a game that observes an "
                                                        "image (channels, height, width); this game's observation "
                                                        "has shape (29,)"),
        (["run", "exp.yaml", "network.conv=[[8, 8]]"], "network.conv: each layer is [channels, kernel, stride]"),
        (["run"], "give an experiment YAML"),
        (["replay", "no_run_here", "0"], "no_run_here: not a run directory"),
        (["run", "--resume", "no_run_here"], "no_run_here: not a run directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(bad_input, tmp_path: Path, args: list[str], expected: str) -> None:
    assert expected in bad_input(args)
    assert not (tmp_path / "runs").exists()  # nothing started


def test_bad_input_through_the_console_script(tmp_path: Path) -> None:
    assert "missing.yaml: no such experiment file" in _error(evo("run", "missing.yaml", cwd=tmp_path))


def test_unknown_bug_id_and_existing_out_dir(tiny_run: Path, tmp_path: Path) -> None:
    assert "no bug with id 9999" in _error(evo("replay", str(tiny_run), "9999", cwd=tmp_path))
    from tests.conftest import TINY
    import yaml

    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(TINY))
    before = sorted(p.name for p in tiny_run.iterdir())
    assert "already exists" in _error(evo("run", "exp.yaml", "--out", str(tiny_run), cwd=tmp_path))
    assert sorted(p.name for p in tiny_run.iterdir()) == before  # nothing lost


@pytest.mark.parametrize("fault", ["raise", "hang", "die"])
def test_a_game_that_raises_hangs_or_dies_is_a_crash_bug(tmp_path: Path, fault: str) -> None:
    import yaml

    config: dict[str, Any] = {
        "name": f"faulty_{fault}",
        "game": {
            "entry_point": "tests.games.faulty_envs:LineWalk",
            "kwargs": {"fault": fault, "at_position": 2},
            "step_timeout_s": 1.0,
        },
        "network": {"hidden": [8]},
        "search": {"population": 2, "offspring": 2, "episodes": 1},
        "budget": {"generations": 2},
        "objectives": [{"name": "coverage"}],
        "oracles": [{"name": "crash"}],
        "finetune": {"algorithm": "none"},
        # Played by the run's process, its copies isolated in processes of their own: loky's
        # workers meeting faults are tests/evo/run/test_early_faults.py's.
        "parallel": {"backend": "serial"},
    }
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(config))
    result = evo("run", "exp.yaml", "--out", "run", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = load_run(tmp_path / "run")
    assert len(data.generations) == 2  # the search went on with fresh game instances
    expected = {"raise": "RuntimeError", "hang": "GameHang", "die": "GameProcessDied"}[fault]
    assert list(data.bugs["kind"]) == ["crash"]
    assert expected in data.bugs["signature"].iloc[0]


def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads worker processes from /proc")
def test_a_killed_run_stops_its_workers_and_keeps_what_it_played(tmp_path: Path) -> None:
    """SIGTERM (a scheduler's timeout, `kill`) stops a run like Ctrl-C: exit 130, the worker
    processes go with it instead of playing on orphaned, and what it played is kept."""
    import os

    import yaml

    from tests.conftest import TINY

    config = {**TINY, "parallel": {"backend": "loky", "n_jobs": 2}, "budget": {"generations": 400}}
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(config))
    proc = subprocess.Popen(
        [sys.executable, "-m", "evo.cli", "run", "exp.yaml", "--out", "run", "--quiet"], cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        _kill_midway(proc, tmp_path / "run" / "generations.csv")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def _kill_midway(proc: subprocess.Popen, generations: Path) -> None:
    import signal
    import time

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (generations.exists() and len(generations.read_text().splitlines()) > 2):
        time.sleep(0.2)
    workers = _children(proc.pid)
    workers += [g for c in list(workers) for g in _children(c)]
    assert workers, "the run started no worker processes"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "resume with evo run --resume" in err
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.2)
    assert not any(_alive(w) for w in workers)
    cut = load_run(generations.parent).generations
    assert 1 <= len(cut) < 400
