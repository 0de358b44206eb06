"""Experiment configuration: pydantic models mirrored one-to-one by the YAML files.

Every model rejects unknown keys. :func:`load_experiment` turns any problem (a missing file,
bad YAML, an unknown key, a wrong type, an unknown game, objective or oracle) into a
:class:`ConfigError` whose message is one line naming the key or file and what was expected,
which the CLI prints before exiting with code 2.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, Literal, Sequence

import pydantic
import yaml
from pydantic import Field, field_validator, model_validator

from evo.run.checkpoint import CheckpointConfig
from evo.run.search_config import FinetuneConfig, SearchConfig, Strict
from games.common.device import check_spelling
from evo.run.user_paths import ConfigError, read_yaml
from evo.run.game_config import GameConfig
from evo.run.parallel import ParallelConfig
from evo.run.migrate import OLD_SINGLE_AGENT, check_current, single_agent_renamed
from evo.run.raw_experiment import apply_overrides
from evo.run.scalars import LoggingConfig

log = logging.getLogger(__name__)


NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")
"""An experiment's name: a folder name that cannot climb out of runs_dir (no '/', no leading '.')."""




class NetworkConfig(Strict):
    """The network every policy of ``search.agent: mlp`` shares (:class:`evo.search.policy.PolicySpec`)."""

    conv: list[list[int]] = Field(
        default_factory=list,
        description="Conv layers before the hidden layers, [channels, kernel, stride] each (square "
        "kernels, no padding, ReLU), for games that observe an image (channels, height, width); "
        "e.g. [[8, 8, 4], [16, 4, 2]]. Empty: an MLP on the flattened observation.",
    )
    hidden: list[Annotated[int, Field(ge=1)]] = Field(
        default_factory=lambda: [64, 64], description="Hidden layer sizes (tanh), after the conv layers if any."
    )

    @field_validator("conv")
    @classmethod
    def _conv_layers(cls, conv: list[list[int]]) -> list[list[int]]:
        for layer in conv:
            if len(layer) != 3 or min(layer) < 1:
                raise ValueError(f"each layer is [channels, kernel, stride] of positive integers, got {layer}")
        return conv


class BudgetConfig(Strict):
    """When to stop; the first limit reached ends the run (checked after each generation)."""

    generations: int | None = Field(None, ge=1, description="Generations, the initial one included.")
    env_steps: int | None = Field(None, ge=1, description="Game steps, fine-tuning included.")
    wall_seconds: float | None = Field(
        None, gt=0,
        description="Wall-clock seconds from the command's start (imports and the game's making "
        "included). Checked during play: no step starts after it in any worker, and the generation "
        "it cuts short is the run's last (its bugs count; its episodes are truncated).",
    )
    until_all_found: bool = Field(
        False, description="Also stop once every injected bug of the game is found (games with "
        "ground truth; on another game, a warning, and the other limits stop the run): strategies "
        "are then compared by when they got there, not by idle time after.",
    )

    @model_validator(mode="after")
    def _some_limit(self) -> "BudgetConfig":
        if self.generations is None and self.env_steps is None and self.wall_seconds is None:
            raise ValueError("set at least one of generations, env_steps, wall_seconds")
        return self


class NamedConfig(Strict):
    """An objective or oracle by registered name, with its options."""

    name: str
    kwargs: dict[str, Any] = Field(default_factory=dict)


class Experiment(Strict):
    """One experiment: a game, a search, objectives, oracles and a budget."""

    name: str = Field(description="Names the run directory runs/<name>/: one folder name of letters, "
                      "digits, '_', '-' and '.', so that no name writes outside runs_dir.")
    seed: int = Field(0, ge=0, description="Every random draw of the run derives from it (numpy's SeedSequence: non-negative).")
    run: str = Field(
        "evolve", description="The run kind, by its name in evo.run.kinds.RUN_KINDS: evolve, a population evolved "
        "by NSGA-II with RL fine-tuning (Wuji); single_agent, PPGTA's one agent trained by PPO on preference_kl's "
        "reward from its imitation policy.",
    )
    game: GameConfig
    network: NetworkConfig = Field(default_factory=NetworkConfig, description="The policy network's layers "
                                   "(search.agent: mlp).")
    search: SearchConfig = Field(default_factory=SearchConfig)
    budget: BudgetConfig
    objectives: list[NamedConfig] = Field(min_length=1)
    oracles: list[NamedConfig] = Field(default_factory=list)
    bug_replays: Annotated[int, Field(ge=0)] | Literal["auto"] = Field(
        "auto", description="Each bug the oracles report is played again this many times from its seed and "
        "actions as the run finds it, each copy judged alone, and bugs.jsonl keeps in how many it showed "
        "(reproduced: [7, 10]): a game that does not replay shows its bugs in some. Replays are episodes "
        "played in the run's own process: a park episode takes 2 s. 0: none. auto: the run plays a few "
        "episodes twice as it starts, then 10 where they differed (the game does not replay), else none "
        "(config.yaml records the number).",
    )
    finetune: FinetuneConfig = Field(default_factory=FinetuneConfig)
    parallel: ParallelConfig = Field(default_factory=ParallelConfig)
    checkpoint: CheckpointConfig = Field(default_factory=CheckpointConfig)
    logging: LoggingConfig = Field(default_factory=LoggingConfig)
    runs_dir: str = Field("runs", description="Parent folder of run directories.")
    device: str = Field(
        "cpu",
        description="Torch device of every network: the detector, encoder, texture judge, RND, the "
        "population's forward pass and A2C/PPO fine-tuning: cpu, cuda or cuda:N. Checked when a run "
        "starts; replay, report, evaluate and videos of a run fall back to cpu on a machine without it.",
    )
    torch_threads: int = Field(
        1,
        ge=1,
        description="CPU threads torch may use. The policies are small batched networks, for "
        "which one thread is fastest: on 2 cores, 2 threads ran the Wuji experiment 3x slower.",
    )

    @field_validator("name")
    @classmethod
    def _folder_name(cls, name: str) -> str:
        if not NAME.fullmatch(name):
            raise ValueError(f"one folder name of letters, digits, '_', '-' and '.' (it names runs/<name>/), got {name!r}")
        return name

    @model_validator(mode="before")
    @classmethod
    def _old_single_agent(cls, raw: Any) -> Any:
        if isinstance(raw, dict) and isinstance(raw.get("finetune"), dict):
            raw = {**raw, "finetune": dict(raw["finetune"])}
            if single_agent_renamed(raw):  # the spelling before run kinds, loaded for one release
                log.warning("%s: is now run: single_agent with finetune.algorithm: ppo; it still loads for now "
                            "(evo migrate rewrites it)", OLD_SINGLE_AGENT)
        return raw

    @field_validator("run")
    @classmethod
    def _run_kind(cls, name: str) -> str:
        from evo.run.kinds import RUN_KINDS  # names only: a kind's module loads when its run starts

        RUN_KINDS.check(name)
        return name

    @field_validator("device")
    @classmethod
    def _device(cls, device: str) -> str:
        # Only the spelling: whether this machine has the device is checked where a run
        # starts (evo.run.device), so a run made on a GPU machine opens on any other.
        return check_spelling(device)

    @model_validator(mode="after")
    def _consistent(self) -> "Experiment":
        names = [o.name for o in self.objectives]
        unknown = sorted(set(self.finetune.reward_weights) - set(names))
        if unknown:
            raise ValueError(f"finetune.reward_weights names {unknown}, not among the objectives {names}")
        if self.search.hv_ref is not None and len(self.search.hv_ref) != len(names):
            raise ValueError(f"search.hv_ref has {len(self.search.hv_ref)} values for {len(names)} objectives")
        return self


def _format_error(exc: pydantic.ValidationError, prefix: str = "") -> str:
    err = exc.errors()[0]
    # A key is printed as it is unless it would break the line (a YAML key may hold anything).
    loc = ".".join(str(p) if str(p).isprintable() else repr(str(p)) for p in (prefix, *err["loc"]) if p != "")
    kind = err["type"]
    if kind == "extra_forbidden":
        return f"{loc}: unknown key"
    if kind == "missing":
        return f"{loc}: required key is missing"
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    got = err.get("input")
    if kind not in ("value_error",) and not isinstance(got, (dict, list)):
        msg = f"{msg} (got {got!r})"
    return f"{loc}: {msg}" if loc else msg


def parse_experiment(raw: Any, source: str = "experiment") -> Experiment:
    """Validate a raw dict into an :class:`Experiment`, then check names against registries."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: expected a mapping of keys at the top level")
    check_current(raw, source)
    try:
        exp = Experiment.model_validate(raw)
    except pydantic.ValidationError as exc:
        raise ConfigError(_format_error(exc)) from None
    validate_names(exp)
    return exp


def load_experiment(path: str | Path, overrides: Sequence[str] = ()) -> Experiment:
    """Read, override and validate an experiment YAML."""

    raw = read_yaml(path, "experiment file") or {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping of keys at the top level")
    check_current(raw, str(path))
    return parse_experiment(apply_overrides(raw, overrides), str(path))


def validate_names(exp: Experiment) -> None:
    """Unknown objectives, oracles, games and their options fail here, before any run."""
    from games.common.registry import UnknownName
    from games.registry import GameNotFound
    from objectives import OBJECTIVES
    from oracles import ORACLES

    for section, entries, registry in (
        ("objectives", exp.objectives, OBJECTIVES),
        ("oracles", exp.oracles, ORACLES),
    ):
        for i, entry in enumerate(entries):
            try:
                registry[entry.name].resolved_kwargs(entry.kwargs)
            except UnknownName as exc:
                raise ConfigError(f"{section}[{i}].name: {exc}") from None
            except pydantic.ValidationError as exc:
                raise ConfigError(_format_error(exc, f"{section}[{i}].kwargs")) from None
    from evo.run.kinds import RUN_KINDS

    RUN_KINDS[exp.run].check(exp)
    try:
        game_factory(exp).validate()
    except GameNotFound as exc:
        raise ConfigError(str(exc)) from None
    if exp.game.wrappers:
        _validate_wrappers(exp)


def _validate_wrappers(exp: Experiment) -> None:
    """Unknown wrappers, kwargs they do not take or values they refuse, and observations they
    cannot transform fail here as one line naming ``game.wrappers[i]``. Reading the game's
    observation shape builds it once."""
    import dataclasses

    from games.core.wrappers import check_wrapper, wrapped_spec

    for i, w in enumerate(exp.game.wrappers):
        try:
            check_wrapper(w.name, w.kwargs)
        except ValueError as exc:
            raise ConfigError(f"game.wrappers[{i}]: {exc}") from None
    # Shapes only: checked on the CPU, so a run made on a GPU opens on any machine.
    factory = game_factory(exp.model_copy(update={"device": "cpu"}))
    try:
        spec = dataclasses.replace(factory, wrappers=()).spec()
    except ValueError as exc:
        raise ConfigError(f"game.kwargs: {exc}") from None
    for i in range(len(factory.wrappers)):
        try:
            wrapped_spec(spec, factory.wrappers[: i + 1])
        except ValueError as exc:
            raise ConfigError(f"game.wrappers[{i}]: {exc}") from None


def game_factory(exp: Experiment):  # -> games.GameFactory (import kept lazy for the CLI's start-up)
    """The :class:`games.GameFactory` of an experiment."""
    from games import GameFactory

    from evo.run.game_config import DEFAULT_STEP_TIMEOUT_S
    from games.core.wrappers import on_device

    g = exp.game
    factory = GameFactory(
        name=g.name,
        entry_point=g.entry_point,
        gym_id=None if g.gym_id is None else _played_gym_id(g.gym_id),
        kwargs=tuple(sorted(g.kwargs.items())),
        max_rss_mb=g.max_rss_mb,
        action_levels=g.action_levels,
        wrappers=on_device(tuple((w.name, tuple(sorted(w.kwargs.items()))) for w in g.wrappers), exp.device),
        render_processes=exp.parallel.game_render_processes,
    )
    # A game the project did not write runs isolated unless the YAML says otherwise.
    isolated = g.isolated if g.isolated is not None else (
        g.step_timeout_s is not None or g.start_timeout_s is not None or not factory.has_vector_form()
    )
    if isolated and factory.has_vector_form():
        raise ConfigError(
            f"game.isolated: {factory.label} is a numpy vector game stepped in one call; "
            "only Gymnasium games (entry_point, gym_id) run in processes of their own"
        )
    step_timeout_s = (g.step_timeout_s or DEFAULT_STEP_TIMEOUT_S) if isolated else None
    return replace(factory, step_timeout_s=step_timeout_s, step_timeout_learned=isolated and g.step_timeout_s is None,
                   start_timeout_s=g.start_timeout_s if isolated else None)


def _played_gym_id(gym_id: str) -> str:
    """``gym_id`` in the form every process plays it (``module:id`` where a package must be
    imported to register it: :func:`games.gym_ids.resolve_gym_id`)."""
    from games.gym_ids import GymIdNotFound, resolve_gym_id

    try:
        return resolve_gym_id(gym_id)
    except GymIdNotFound as exc:
        raise ConfigError(str(exc)) from None


def dump_experiment(exp: Experiment) -> str:
    """The resolved config as YAML (every default filled in, every objective's and oracle's
    kwargs included, validated through their config models), for ``config.yaml``."""
    from objectives import resolved_kwargs as objective_kwargs
    from oracles import resolved_kwargs as oracle_kwargs

    raw = exp.model_dump(mode="json")
    for section, resolve in (("objectives", objective_kwargs), ("oracles", oracle_kwargs)):
        for entry in raw[section]:
            entry["kwargs"] = resolve(entry["name"], entry["kwargs"])
    return yaml.safe_dump(raw, sort_keys=False)
