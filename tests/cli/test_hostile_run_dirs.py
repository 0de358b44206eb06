"""Malformed and hostile run directories: ``evo report``, ``evo replay`` and ``evo run --resume``
give one line naming the file, exit code 2, execute nothing from it and change nothing in it;
a last line a kill cut short is simply not read. Names from a YAML never write outside the
chosen output directory. (Damaged checkpoints, a pickled object in one included, are in
tests/evo/test_checkpoint.py.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from evo.run.config import parse_experiment
from evo.run.kinds.evolve import Evolve
from tests.conftest import TINY


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One tiny run, copied by each test before it damages it."""
    run_dir = tmp_path_factory.mktemp("hostile") / "run"
    Evolve(parse_experiment({**TINY, "budget": {"generations": 2}}), run_dir).run()
    return run_dir


@pytest.fixture
def run_dir(finished: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(finished, copy)
    return copy


def _snapshot(run_dir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run_dir)): p.read_bytes() for p in sorted(run_dir.rglob("*")) if p.is_file()}


COMMANDS = [["report", "run"], ["replay", "run", "0"], ["run", "--resume", "run", "--quiet"]]


@pytest.mark.parametrize("command", COMMANDS, ids=["report", "replay", "resume"])
def test_a_config_yaml_with_a_tag_that_would_construct_an_object_runs_nothing(
    bad_input, run_dir: Path, tmp_path: Path, command: list[str]
) -> None:
    marker = tmp_path / "pwned"
    config = run_dir / "config.yaml"
    config.write_text(config.read_text() + f"pwn: !!python/object/apply:os.system ['touch {marker}']\n")
    before = _snapshot(run_dir)
    line = bad_input(command)
    assert "config.yaml: not valid YAML at line" in line
    assert not marker.exists() and _snapshot(run_dir) == before


@pytest.mark.parametrize("command", COMMANDS, ids=["report", "replay", "resume"])
def test_a_bugs_jsonl_with_a_line_that_is_not_a_bug_is_one_line(bad_input, run_dir: Path, command: list[str]) -> None:
    bugs = run_dir / "bugs.jsonl"
    lines = bugs.read_text().splitlines(keepends=True)
    assert len(lines) >= 2
    bugs.write_text('{"id": "../../etc/passwd"}\n' + "".join(lines))  # a complete, hostile first line
    before = _snapshot(run_dir)
    line = bad_input(command)
    assert "bugs.jsonl" in line and ("line 1 is not a bug record" in line or "bugs.jsonl:1: not a bug record" in line)
    assert _snapshot(run_dir) == before


def test_a_bugs_jsonl_cut_short_by_a_kill_still_reports_and_replays(
    run_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from evo.cli.main import main
    from evo.report.tables import load_run

    bugs = run_dir / "bugs.jsonl"
    text = bugs.read_text()
    n = text.count("\n")
    bugs.write_text(text[: text.rindex("\n", 0, len(text) - 1) + 12])  # the last bug cut after 11 bytes
    monkeypatch.chdir(run_dir.parent)
    assert main(["report", "run"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    assert len(load_run(run_dir).bugs) == n - 1
    assert main(["replay", "run", str(n - 1)]) == 2  # the cut bug is not there
    assert f"no bug with id {n - 1}" in capsys.readouterr().err


def test_a_generations_csv_of_garbage_is_one_line(bad_input, run_dir: Path) -> None:
    (run_dir / "generations.csv").write_bytes(b"\xff\xfe garbage\n")
    assert "generations.csv: not UTF-8 text" in bad_input(["report", "run"])


@pytest.mark.parametrize("name", ["../../escaped", "/tmp/abs", "..", ".hidden", "a/b", ""])
def test_an_experiment_name_cannot_climb_out_of_runs(bad_input, tmp_path: Path, name: str) -> None:
    line = bad_input(["run", "exp.yaml", f"name={yaml.safe_dump(name).splitlines()[0]}", "--quiet"])
    assert line.startswith("evo: error: name: one folder name")
    assert not (tmp_path / "runs").exists() and not (tmp_path.parent / "escaped").exists()


OUT_OF_A_RUN = {
    "evaluate": (["evaluate", "run", "--episodes", "2", "--warmup", "1", "--out"], "a folder to write into"),
    "plan export": (["plan", "export", "run", "--out"], "a folder to write into"),
    "plan record": (["plan", "record", "run", "0", "--out"], None),
    "replay --video": (["replay", "run", "0", "--video"], None),
}


@pytest.mark.parametrize(("command", "folder"), OUT_OF_A_RUN.values(), ids=OUT_OF_A_RUN.keys())
def test_an_output_that_cannot_be_written_is_one_line_before_any_work(
    bad_input, run_dir: Path, tmp_path: Path, command: list[str], folder: str | None
) -> None:
    """A file where a folder goes (or a folder where a file goes, or a file above either) is
    refused before a single episode is played, and what is there is left as it was."""
    (tmp_path / "notes.gif").write_bytes(b"a week of notes\n")
    (tmp_path / "taken.gif").mkdir()
    before = _snapshot(run_dir)
    if folder is not None:
        assert bad_input([*command, "notes.gif"]) == f"evo: error: --out notes.gif: is a file; expected {folder}"
    else:
        option = command[-1]
        assert bad_input([*command, "taken.gif"]) == f"evo: error: {option} taken.gif: is a folder; expected a file name"
    option = command[-1]
    assert bad_input([*command, "notes.gif/x.gif"]) == (
        f"evo: error: {option} notes.gif/x.gif: notes.gif is a file; expected a folder")
    assert (tmp_path / "notes.gif").read_bytes() == b"a week of notes\n"
    assert list((tmp_path / "taken.gif").iterdir()) == []
    assert _snapshot(run_dir) == before


@pytest.mark.parametrize("command", COMMANDS[1:], ids=["replay", "resume"])
def test_a_config_yaml_that_is_not_utf8_text_is_one_line(bad_input, run_dir: Path, command: list[str]) -> None:
    config = run_dir / "config.yaml"
    config.write_bytes("# café\n".encode("latin-1") + config.read_bytes())
    before = _snapshot(run_dir)
    assert bad_input(command) == ("evo: error: run/config.yaml: not UTF-8 text (byte 0xe9 at offset 5); "
                                  "expected an experiment file in UTF-8")
    assert _snapshot(run_dir) == before
