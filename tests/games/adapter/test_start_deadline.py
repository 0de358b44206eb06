"""Isolated copies start a few at a time, each within ``game.start_timeout_s`` of its own start.

The default experiment started 120 copies at once on 2 cores, all against one shared 60 s
deadline: under load the last ones missed it, and ``evo run`` ended in a 40-line
``GameStartError`` traceback. Now at most one copy per usable core starts at a time, each has
its own deadline, the deadline is a setting, and a copy that cannot start is one line naming
the game, the copy and the setting, exit 2, wherever the game was being made.
"""

from __future__ import annotations

import multiprocessing as mp
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import games.adapter.process_runner as process_runner
from games.adapter.process_runner import GameStartError
from games.core.base import GameError
from games.registry import GAMES, GameEntry, GameFactory
from tests.games.faulty_envs import LineWalk

SLOW = "tests.games.adapter.test_start_deadline:SlowStart"
"""The game below: its copies import this module, so what it imports at the top is what a
copy's start costs (the engine's modules are imported in the tests that use them)."""
RIGHT = 2


class SlowStart(LineWalk):
    """:class:`tests.games.faulty_envs.LineWalk` whose constructor takes ``start_s`` seconds,
    as a game that loads an engine or its assets does.

    Args:
        start_s: Seconds the constructor sleeps.
        marker: When set, the game is slow only in an isolated copy's process (a
            ``game-copy-*`` process) while this file exists; made anywhere else (the engine's
            own process, which reads the game's facts after its first copy started), it creates
            the file. So the first copy starts fast and the copies a run's workers start later
            are slow.
        raises: The constructor raises RuntimeError instead.
        log: A file each construction appends ``began ended`` (monotonic seconds) to.
        **kwargs: LineWalk's.
    """

    def __init__(self, start_s: float = 3.0, marker: str | None = None, raises: bool = False,
                 log: str | None = None, **kwargs: Any) -> None:
        began = time.monotonic()
        in_copy = mp.current_process().name.startswith("game-copy-")
        if marker is not None and not in_copy:
            Path(marker).touch()
        if raises:
            raise RuntimeError("the engine's licence server did not answer")
        if marker is None or (in_copy and Path(marker).exists()):
            time.sleep(start_s)
        if log is not None:
            with open(log, "a") as f:  # one short append: whole lines from concurrent copies
                f.write(f"{began} {time.monotonic()}\n")
        super().__init__(**kwargs)


def _factory(start_timeout_s: float | None, **kwargs: Any) -> GameFactory:
    return GameFactory(entry_point=SLOW, kwargs=tuple(sorted(kwargs.items())), step_timeout_s=10,
                       start_timeout_s=start_timeout_s)


def test_a_copy_slower_than_its_start_timeout_is_one_line_naming_game_copy_and_setting() -> None:
    _factory(30.0, start_s=0.0).make_vector(1).close()  # the fork server started, not timed here
    began = time.monotonic()
    with pytest.raises(GameStartError) as info:
        _factory(0.5, start_s=30.0).make_vector(4)
    took = time.monotonic() - began
    line = str(info.value)
    assert "\n" not in line
    assert line.startswith(f"game: {SLOW} could not be started (game copy 0 of 4 did not start within "
                           "game.start_timeout_s = 0.5 s (making the game took longer)")
    assert "raise game.start_timeout_s" in line
    # Neither the 30 s the game would take nor a retry per seed, 8 in all (a slow making is
    # no first reset that hangs on one seed): the deadline once.
    assert took < 3.0


def test_a_game_whose_constructor_raises_in_its_copy_is_one_line_with_its_error() -> None:
    with pytest.raises(GameStartError) as info:
        _factory(5.0, raises=True).make_vector(3)
    assert str(info.value) == (f"game: {SLOW} could not be started (RuntimeError: the engine's licence server "
                               "did not answer (game copy 0, in its worker process))")


def _refuses_after_the_first() -> LineWalk:
    """A game whose copies in a run's workers refuse to be made (a level pack another run
    deleted): the first copy, which the run read the game from, was made."""
    raise ValueError("the level pack is missing")


def test_a_copy_of_a_game_already_read_that_raises_valueerror_is_a_start_error() -> None:
    """A worker's copies are made with the spec the run read from a first copy, whose kwargs
    were the same: a ValueError there is the game failing to start (one line), not a refusal of
    its kwargs, which ended ``evo run`` in a worker's traceback."""
    from games.adapter.vector_game import GymVectorGame

    first = GymVectorGame(LineWalk, 1)  # the spec a run reads from its first copy
    spec = first.game_spec
    first.close()
    with pytest.raises(GameStartError) as info:
        process_runner.ProcessRunner(_refuses_after_the_first, 2, 10.0, spec=spec, start_timeout_s=30.0)
    assert re.fullmatch(r"game: _refuses_after_the_first could not be started \(ValueError: the level pack "
                        r"is missing \(game copy [01], in its worker process\)\)", str(info.value))
    with pytest.raises(ValueError, match="the level pack is missing"):  # read for the first time: a refusal
        process_runner.ProcessRunner(_refuses_after_the_first, 2, 10.0, start_timeout_s=30.0)


def test_the_error_names_the_game_as_the_user_did_and_pickles_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """A registered name is played through its entry point; the name is what the line says.
    The error crosses from a loky worker to the run pickled."""
    import pickle

    monkeypatch.setitem(GAMES, "slow_walk", GameEntry("slow_walk", SLOW))
    factory = GameFactory(name="slow_walk", kwargs=(("start_s", 3.0),), step_timeout_s=10, start_timeout_s=0.5)
    with pytest.raises(GameStartError) as info:
        factory.make_vector(1)
    assert str(info.value).startswith("game: slow_walk could not be started (game copy 0 of 1 did not start")
    again = pickle.loads(pickle.dumps(info.value))
    assert str(again) == str(info.value) and again.copy == 0 and again.game == "slow_walk"


def test_copies_start_one_per_slot_each_within_its_own_deadline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Eight copies of 0.4 s each, one at a time, take over 3 s in all: more than the 2.5 s
    each is given, which a deadline shared by all of them would have missed."""
    monkeypatch.setattr(process_runner, "start_slots", lambda: 1)
    log = tmp_path / "starts.txt"
    began = time.monotonic()
    game = _factory(2.5, start_s=0.4, log=str(log)).make_vector(8)
    try:
        took = time.monotonic() - began
        spans = sorted(tuple(map(float, line.split())) for line in log.read_text().splitlines())
        assert len(spans) == 8
        assert all(later[0] >= earlier[1] for earlier, later in zip(spans, spans[1:]))  # never two at once
        assert took > 2.5
        game.reset(list(range(8)))
    finally:
        game.close()


def test_a_copy_that_cannot_start_again_mid_run_is_a_crash_bug_of_that_copy(tmp_path: Path) -> None:
    """Both copies die in their first step; by their restart the game has become slow to make:
    each restart is that copy's crash bug (GameHang naming the setting), and the game goes on."""
    marker = tmp_path / "slow-from-now-on"
    game = _factory(2.0, start_s=10.0, marker=str(marker), fault="die", at_position=1).make_vector(2)
    try:
        game.reset([0, 1])
        died = game.step(np.array([RIGHT, RIGHT]))
        assert sorted(died.errors) == [0, 1] and died.errors[0].type == "GameProcessDied"
        marker.touch()
        game.reset([2, 3])  # no raise: the copies that cannot start report it at their first step
        out = game.step(np.array([RIGHT, RIGHT]))
        for i in (0, 1):
            error = out.errors[i]
            assert isinstance(error, GameError) and error.type == "GameHang"
            assert error.message == "start did not return within 2 s (game.start_timeout_s)"
    finally:
        game.close()


def test_start_timeout_s_is_a_game_setting_carried_to_the_factory(tiny_config: dict[str, Any]) -> None:
    from evo.run.config import game_factory, parse_experiment

    tiny_config["game"] = {"entry_point": SLOW, "start_timeout_s": 7}
    factory = game_factory(parse_experiment(tiny_config))
    assert factory.start_timeout_s == 7 and factory.step_timeout_s == 10
    tiny_config["game"] = {"entry_point": SLOW}
    factory = game_factory(parse_experiment(tiny_config))
    assert factory.start_timeout_s is None  # the runner's START_TIMEOUT_S, 60 s
    assert process_runner.START_TIMEOUT_S == 60.0


@pytest.mark.parametrize(
    ("game", "expected"),
    [
        ({"entry_point": SLOW, "isolated": False, "start_timeout_s": 5},
         "start_timeout_s bounds the start of isolated copies; drop it or isolated: false"),
        ({"entry_point": SLOW, "start_timeout_s": 0}, "game.start_timeout_s"),
        ({"entry_point": SLOW, "start_timeout_s": -1}, "game.start_timeout_s"),
    ],
)
def test_a_start_timeout_that_cannot_be_is_one_line(tiny_config: dict[str, Any], game: dict[str, Any],
                                                    expected: str) -> None:
    from evo.run.config import ConfigError, parse_experiment

    tiny_config["game"] = game
    with pytest.raises(ConfigError) as info:
        parse_experiment(tiny_config)
    assert expected in str(info.value) and "\n" not in str(info.value)


def _one_line(result: Any) -> str:
    assert result.returncode == 2, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_evo_run_on_a_game_slower_to_start_than_its_setting_exits_2_with_one_line(tmp_path: Path) -> None:
    from tests.e2e.test_untuned_games import _run_default_on

    game = {"entry_point": SLOW, "kwargs": {"start_s": 3}, "start_timeout_s": 1}
    line = _one_line(_run_default_on(game, tmp_path))
    assert line.startswith(f"evo: error: game: {SLOW} could not be started (game copy 0 of 1 did not start ")
    assert "game.start_timeout_s = 1 s" in line


def test_evo_run_whose_workers_cannot_start_the_game_exits_2_with_one_line(tmp_path: Path) -> None:
    """The game's first copy starts; the copies the loky workers start for the first
    generation do not (the issue's case): the same one line, not a worker's traceback."""
    from tests.e2e.test_untuned_games import _run_default_on

    game = {"entry_point": SLOW, "kwargs": {"start_s": 3, "marker": str(tmp_path / "made")}, "start_timeout_s": 1}
    line = _one_line(_run_default_on(game, tmp_path, budget={"wall_seconds": 60}))  # no injected bugs to find
    assert line.startswith(f"evo: error: game: {SLOW} could not be started (game copy ")
    assert "did not start within game.start_timeout_s = 1 s" in line
    copies = re.search(r"game copy \d+ of (\d+) ", line)
    assert copies is not None and int(copies.group(1)) > 1  # a worker's game, not the first copy
