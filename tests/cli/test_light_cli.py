"""The ``evo`` command starts light and leaves a process as it found it: building the parser
(and ``evo --help``) loads no torch, pandas or training code; ``main`` called from Python
(tests, notebooks) puts back the SIGTERM handler and the environment it found."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tests.cli.test_cli import ROOT

HEAVY = ("torch", "pandas", "games.doom.park.doom_park", "games.perception.training.detector", "evo.run.kinds.base")


def _fresh(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_building_the_parser_and_help_import_nothing_heavy() -> None:
    check = f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\nassert not heavy, heavy\n"
    built = _fresh("import sys\nfrom evo.cli.main import _parser\n_parser()\n" + check)
    assert built.returncode == 0, built.stderr
    helped = _fresh("import sys, contextlib, io\nfrom evo.cli.main import main\n"
                    "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
                    "    try:\n        main(['--help'])\n    except SystemExit as exc:\n        assert exc.code == 0\n"
                    "assert 'vision' in out.getvalue()\n" + check)
    assert helped.returncode == 0, helped.stderr


def test_a_model_kind_still_parses_its_own_options() -> None:
    from evo.cli.main import _parser

    args = _parser().parse_args(["vision", "train", "texture", "--levels", "1", "--epochs", "2"])
    assert (args.kind, args.levels, args.epochs) == ("texture", "1", 2)
    assert _parser().parse_args(["vision", "eval", "detector", "--level-seed", "3"]).level_seed == 3


def test_main_from_python_puts_back_the_sigterm_handler_and_the_environment(
        tiny_config: dict[str, Any], write_yaml, tmp_path: Path, monkeypatch) -> None:
    from evo.cli import main as cli
    from evo.run.kinds.evolve import Evolve

    during: list[Any] = []
    play = Evolve.run

    def run(self: Evolve, resume: bool = False) -> Any:
        during.append(signal.getsignal(signal.SIGTERM))
        return play(self, resume)

    monkeypatch.setattr(Evolve, "run", run)
    monkeypatch.setenv("EVO_GAME_RUN", "the-caller's")

    def callers(signum: int, frame: object) -> None:
        raise AssertionError("not called")

    before = signal.signal(signal.SIGTERM, callers)
    try:
        tiny_config["budget"] = {"generations": 1}
        assert cli.main(["run", str(write_yaml(tiny_config)), "--out", str(tmp_path / "run"), "--quiet"]) == 0
        assert during == [cli._interrupt]  # a run stops on SIGTERM as on Ctrl-C
        assert signal.getsignal(signal.SIGTERM) is callers
        assert os.environ["EVO_GAME_RUN"] == "the-caller's"
    finally:
        signal.signal(signal.SIGTERM, before)


def test_main_runs_off_the_main_thread(tmp_path: Path, monkeypatch) -> None:
    """Python sets signal handlers on the main thread only: a command called from another
    thread runs without one (it used to fail in ``signal.signal``)."""
    from evo.cli.main import main

    monkeypatch.chdir(tmp_path)
    codes: list[int] = []
    thread = threading.Thread(target=lambda: codes.append(main(["run", "missing.yaml"])))
    thread.start()
    thread.join(60)
    assert codes == [2]


def test_every_command_of_the_parser_runs_its_own_handler() -> None:
    import argparse

    from evo.cli.main import _parser, handlers

    (sub,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(handlers()) == set(sub.choices)
