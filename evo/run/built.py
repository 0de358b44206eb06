"""What an experiment builds once, before its first generation: the game's factory and spec,
the policy architecture, the objectives and oracles with their contexts, and the game's facts
(ground truth, map) that the run directory keeps. Runs, replay and evaluate share it.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from evo.search.agents import AgentKind, agent_kind
from evo.run.config import ConfigError, Experiment, NetworkConfig, game_factory
from evo.run.game_facts import GameFacts, game_label, read_game_facts
from evo.run.fit import fitted
from evo.search.probe import few_places, learn_cells, play_probe
from evo.search.policy import PolicySpec
from games.core.component import Component, Context
from games.core.base import GameSpec, GameSpecError, InjectedBug
from games.adapter.game_copy import close_env
from games.adapter.observation_parts import numeric_parts
from games.adapter.spec import learns_cells
from games.adapter.wrapper_attrs import WrappedGame
from games.core.start_error import GameStartError
from games.common.process_tree import CopyProcesses
from games.core.record import CLOCK_KEY, RolloutBatch, info_keys
from games.core.wrappers import unpublished
from objectives import Objective, build_objectives
from oracles import Oracle, build_oracles

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from games.registry import GameFactory


def build_policy_spec(network: NetworkConfig, spec: GameSpec) -> PolicySpec:
    """The policy architecture of an experiment on a game.

    Raises:
        ConfigError: ``network.conv`` on a game whose observation is not an image
            ``(channels, height, width)``, or conv layers that do not fit the image.
    """
    obs_dim = int(np.prod(spec.obs_shape))
    hidden = tuple(network.hidden)
    if not network.conv:
        return PolicySpec(obs_dim, spec.n_actions, hidden)
    if len(spec.obs_shape) != 3:
        raise ConfigError(
            f"network.conv: conv layers need a game that observes an image (channels, height, width); "
            f"this game's observation has shape {tuple(spec.obs_shape)}"
        )
    conv = tuple((int(c), int(k), int(s)) for c, k, s in network.conv)
    image = (int(spec.obs_shape[0]), int(spec.obs_shape[1]), int(spec.obs_shape[2]))
    try:
        return PolicySpec(obs_dim, spec.n_actions, hidden, conv, image)
    except ValueError as exc:
        raise ConfigError(f"network.conv: {exc}") from None


GAME_REFUSALS = (ValueError, TypeError, KeyError, IndexError, OverflowError)
"""What a game's constructor raises for kwargs it cannot take (a preset it lacks, a negative seed)."""


def _game_spec(factory: GameFactory) -> GameSpec:
    """The game's spec, read from a copy of it; a copy the game's own constructor refuses to
    make is one line naming ``game.kwargs``, and a game that cannot start at all (a missing
    dependency, an engine that fails, in this process or in an isolated copy's) one line naming
    the game and its error, not a traceback."""
    try:
        return factory.spec()
    except GameSpecError:
        raise
    except GameStartError as exc:  # an isolated copy's, already one line naming game and copy
        raise ConfigError(str(exc.with_game(factory.label))) from None
    except GAME_REFUSALS as exc:
        why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ConfigError(f"game.kwargs: {factory.label} cannot be made with {dict(factory.kwargs)}: {why}") from None
    except Exception as exc:  # noqa: BLE001 - the game's own failure, said in one line
        why = (str(exc).strip().splitlines() or [""])[0]
        raise ConfigError(f"game: {factory.label} could not be started ({type(exc).__name__}: {why})") from None


def _components(exp: Experiment, spec: GameSpec, context: Context) -> tuple[list[Objective], list[Oracle]]:
    """The experiment's objectives and oracles on a game of ``spec``."""
    try:
        return (build_objectives([(o.name, o.kwargs) for o in exp.objectives], spec, context),
                build_oracles([(o.name, o.kwargs) for o in exp.oracles], spec, context))
    except ValueError as exc:  # a component that cannot work on this game
        raise ConfigError(str(exc)) from None


def _check_published(components: list[Any], wrapper_specs: Any) -> None:
    """A component that reads what only a wrapper publishes (RND the encoder's 64x64 frames)
    where the game has no such wrapper: one line at the start, not a traceback at the first
    scoring."""
    for column, by in unpublished(frozenset().union(*(c.requires for c in components)),
                                  [(w.name, w.kwargs) for w in wrapper_specs]).items():
        reader = next(c.name for c in components if column in c.requires)
        raise ConfigError(f"game.wrappers: {reader} reads {column}, which the {' or '.join(by)} wrapper "
                          f"publishes, and the game has none: add {{name: {by[0]}}} to game.wrappers")


def _as_played_before(factory: GameFactory, spec: GameSpec, run_dir: Path | None) -> tuple[GameFactory, GameSpec]:
    """The factory and spec of a game whose frames a run directory saw flattened.

    Before Gymnasium frames were handed on as ``(channels, height, width)``
    (:func:`games.adapter.spec.frame_layout`), they came flattened in the game's own order; a
    run of that time whose ``game.json`` says so gets them so again, so that its policies
    replay, resume and are evaluated on what they saw.
    """
    if run_dir is None or factory.wrappers or len(spec.obs_shape) != 3:
        return factory, spec
    try:
        saved = read_game_facts(run_dir)
    except (OSError, ValueError, KeyError, TypeError):  # unreadable: the game as it is now
        return factory, spec
    if saved is None or tuple(saved.spec.obs_shape) != (int(np.prod(spec.obs_shape)),):
        return factory, spec
    flat = replace(spec, obs_shape=tuple(saved.spec.obs_shape))
    return replace(factory, known_spec=flat), flat


def _learn_cells(exp: Experiment, factory: GameFactory, spec: GameSpec, run_dir: Path | None,
                 columns: frozenset[str]) -> tuple[GameFactory, GameSpec, RolloutBatch | None]:
    """The factory and spec with the cells of the game's open features (read back from the
    run directory, or learned by the probe), and the probe's record where it played."""
    raw = spec if not factory.wrappers else _game_spec(replace(factory, wrappers=()))
    learned, probe = _saved_cells(run_dir, spec), None
    if learned is None:
        probe, learned = learn_cells(replace(factory, known_spec=raw), spec, exp.seed, columns)
        warning = few_places(probe, learned, factory.label)
        if warning:
            log.warning("%s", warning)
    cells = {"feature_low": learned.feature_low, "feature_high": learned.feature_high,
             "feature_bins": learned.feature_bins}
    return replace(factory, known_spec=replace(raw, **cells)), replace(spec, **cells), probe


def _saved_cells(run_dir: Path | None, spec: GameSpec) -> GameSpec | None:
    """The learned spec a run directory's ``game.json`` holds for this game, if it holds one."""
    try:
        saved = read_game_facts(run_dir) if run_dir is not None else None
    except (OSError, ValueError, KeyError, TypeError):  # unreadable: the probe learns them again
        return None
    if saved is None or not saved.spec.cells_known:
        return None
    same = (saved.spec.feature_names, saved.spec.feature_open) == (spec.feature_names, spec.feature_open)
    return saved.spec if same else None


WUJI_POLICIES = 60
"""Wuji's population and offspring (30 each): a policy too big for even these is the policy's
fault, not the population's."""


def _say_text_parts(env: Any, label: str) -> None:
    """Once at start: the text parts of the game's observation, which no feature or policy
    reads (:class:`games.adapter.observation_parts.NumericParts`)."""
    space = getattr(env, "observation_space", None)
    dropped = numeric_parts(space, f"game {label}").dropped if space is not None else ()
    if dropped:
        log.warning("game %s: the observation's text part%s %s %s kept out of the state features and "
                    "of what agents see", label, "s" if len(dropped) > 1 else "", ", ".join(dropped),
                    "are" if len(dropped) > 1 else "is")


def check_memory(exp: Experiment, policy_spec: PolicySpec) -> None:
    """Refuse up front a population whose genomes alone cannot fit in this machine's memory.

    A generation holds the population and its offspring, and selection a copy of both:
    ``2 * (population + offspring)`` float32 genomes.

    Raises:
        ConfigError: naming ``search.population`` (or ``search.offspring``, or ``network`` when
            even Wuji's 60 genomes of it would not fit) and what it would need.
    """
    s = exp.search
    need = 2 * (s.population + s.offspring) * policy_spec.n_params * 4
    try:
        have = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # no such figure on this system
        return
    if need > have:
        key = "search.offspring" if s.offspring > s.population else "search.population"
        if 2 * WUJI_POLICIES * policy_spec.n_params * 4 > have:  # the policy is what is too big
            key = f"network (hidden {exp.network.hidden}, conv {exp.network.conv})"
        raise ConfigError(
            f"{key}: {s.population} policies and {s.offspring} offspring of {policy_spec.n_params} weights "
            f"need {need / 2**30:,.1f} GiB for their genomes alone; this machine has {have / 2**30:,.1f} GiB"
        )


class GroundTruth(Protocol):
    """What the engine reads off the game copy it keeps for its ground truth
    (:class:`games.core.base.Game`'s optional ``match``)."""

    def match(self, bug: Any) -> int | None:
        """The id of the injected bug that ``bug`` (a report) is, or None."""
        ...


@dataclass(frozen=True)
class Built:
    """Everything an experiment builds once: game factory, spec, objectives, oracles, facts.

    It holds what it opened: the game copy kept for its ground truth and the processes that
    copy's game started, both ended by :meth:`close`. Use it as a context manager, or close
    it where one object owns it for longer (the search, a :class:`evo.bugs.reproduce.Reproducer`).
    A variant (another build of the game) is ``dataclasses.replace(built, factory=...)``,
    which shares, and must not close twice, what this one opened.
    """

    exp: Experiment
    factory: GameFactory
    spec: GameSpec
    policy_spec: PolicySpec
    objectives: tuple[Objective, ...]
    oracles: tuple[Oracle, ...]
    facts: GameFacts
    truth: GroundTruth | None = None
    """The game copy kept for its ground truth (``match``); None for a game without one."""

    probe: RolloutBatch | None = None
    """The probe's episodes (:mod:`evo.search.probe`), played when the game's cells were learned."""
    learns_cells: bool = False
    """The game declares no bounds for some state feature: its cells were learned by a probe
    (or read back from the run directory's ``game.json``)."""
    probe_s: float = 0.0
    """Wall seconds the probe took while the experiment was built (part of the run's time)."""
    processes: CopyProcesses | None = None
    """The processes the ground-truth copy's game started, ended by :meth:`close`."""

    def close(self) -> None:
        """Close the game copy kept for its ground truth, and end what its game started."""
        if self.truth is not None:
            close_env(self.truth)
        if self.processes is not None:
            self.processes.end()

    def __enter__(self) -> "Built":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @classmethod
    def from_experiment(cls, exp: Experiment, run_dir: Path | None = None, *,
                        cells_from: Path | None = None) -> "Built":
        """Build it all; components get their contexts (``run_dir`` None: no run directory).

        A game that declares no bounds for some state feature has its cells learned by the
        probe (:mod:`evo.search.probe`), or read back from the ``game.json`` of ``cells_from``
        (``run_dir`` unless given) where the run already learned them, so that a resumed run,
        a replay and an evaluation cut states as the run did.
        """
        cells_from = run_dir if cells_from is None else cells_from
        factory = game_factory(exp)
        factory, spec = _as_played_before(factory, _game_spec(factory), cells_from)
        policy_spec = build_policy_spec(exp.network, spec)
        check_memory(exp, policy_spec)
        # The game's facts first: components that score against them (objects, preferred
        # area) get them in their context. Only match is read off this copy.
        processes = CopyProcesses()  # what the game starts ends with this copy too
        with processes.marked():
            env = factory.make_env()
        game = WrappedGame(env)  # what the user's wrappers add is read too
        _say_text_parts(env, factory.label)
        facts = GameFacts.of_game(game_label(exp.game.model_dump(mode="json")), spec, game)
        truth = game if facts.has_truth else None
        probe, probe_s = None, 0.0
        try:
            if exp.budget.until_all_found and not facts.injected:
                # The default experiment asks it; a user's own game plugged into it runs to the
                # other limits, without a warning about bugs it was never meant to declare.
                log.info("budget.until_all_found: game %r declares no injected bugs to find; "
                         "the run stops at its other limits", facts.label)
            objectives, oracles = _components(exp, spec, Context(exp.seed, exp.device, run_dir, facts))
            # A Gymnasium game hands on the info keys some component records (numpy games all).
            required = frozenset().union(*(c.requires for c in [*objectives, *oracles]))
            _check_published([*objectives, *oracles], exp.game.wrappers)
            factory = replace(factory, info_keys=info_keys(required))
            learns = learns_cells(spec)
            if learns:  # components cut states into cells: build them again
                started = time.perf_counter()
                factory, spec, probe = _learn_cells(exp, factory, spec, cells_from, required)
                probe_s = time.perf_counter() - started if probe is not None else 0.0
                facts = replace(facts, spec=spec)
                objectives, oracles = _components(exp, spec, Context(exp.seed, exp.device, run_dir, facts))
        except BaseException:
            close_env(env)
            processes.end()
            raise
        if truth is None:
            close_env(env)  # a game whose close hangs is left behind, not waited for
            processes.end()
        pace = float(probe.lengths.sum()) / probe_s if probe is not None and probe_s > 0 else None
        exp = fitted(exp, spec, pace)  # explore_steps: auto, generation_seconds (evo.run.fit)
        built = cls(exp, factory, spec, policy_spec, tuple(objectives), tuple(oracles), facts, truth, probe, learns,
                    probe_s, processes)
        try:
            built.agents  # a kind that cannot play this experiment's game says so now, in one line
        except ValueError as exc:
            built.close()
            raise ConfigError(str(exc)) from None
        return built

    def first_episodes(self) -> RolloutBatch | None:
        """The probe's episodes, which a run's first generation observes before its own
        (None for a game whose cells are declared): played now where they were not, for a
        run started again in a run directory whose ``game.json`` already holds its cells
        (played again at each call: the run asks once)."""
        if self.learns_cells and self.probe is None:
            return play_probe(self.factory, self.spec, self.exp.seed, self.columns)
        return self.probe

    @property
    def components(self) -> list[Component]:
        """Objectives then oracles: everything the loop calibrates, updates and saves (each
        derives from :class:`Component`: :func:`games.core.component.check_component`)."""
        return [*self.objectives, *self.oracles]  # type: ignore[list-item]

    @property
    def columns(self) -> frozenset[str]:
        """The optional record columns some objective or oracle requires, and when each step
        ended (to date bugs by their step: :mod:`evo.run.bug_times`): what play keeps."""
        return frozenset().union(*(c.requires for c in self.components)) | {f"info.{CLOCK_KEY}"}

    @property
    def agents(self) -> AgentKind:
        """The experiment's agent kind, fitted to the experiment and the game where the kind needs
        more of them than the policy architecture (its ``fitted(exp, obs_shape)``)."""
        kind = agent_kind(self.exp.search.agent, self.policy_spec, self.exp.device)
        fit = getattr(kind, "fitted", None)
        return kind if fit is None else fit(self.exp, self.spec.obs_shape)

    def match(self, bug: Any) -> int | None:
        """The injected bug a report is (its id), None where it is none or the game has no truth."""
        return None if self.truth is None else self.truth.match(bug)

    @property
    def injected(self) -> list[InjectedBug]:
        return list(self.facts.injected)
