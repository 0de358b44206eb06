"""``evo plan run PLAN [--game NAME] [--kwarg KEY=VALUE ...]``: run a plan as a test.

Each node, rule and validation is printed as it happens; the exit code is 0 when the test
passed and 1 when it failed (the failing validation is the last line). Bad input is exit 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml
from rich.console import Console
from rich.markup import escape

from evo.config import ConfigError
from evo.plans.base import Plan
from games.registry import GameFactory, GameNotFound


def add_plan_parser(sub: argparse._SubParsersAction) -> None:
    """The ``plan`` command and its subcommands."""
    plan = sub.add_parser("plan", help="run explicit test plans")
    plan_sub = plan.add_subparsers(dest="plan_command", required=True)
    run = plan_sub.add_parser("run", help="follow a plan YAML on a game; exit 0 passed, 1 failed")
    run.add_argument("plan", type=Path, help="plan YAML file")
    run.add_argument("--game", help="registered game name (default: the plan's game)")
    run.add_argument("--kwarg", action="append", default=[], metavar="KEY=VALUE",
                     help="a game keyword argument, value read as YAML (repeatable), e.g. bugs=[dead_jump]")


def game_factory(plan: Plan, name: str | None, kwargs: list[str]) -> GameFactory:
    """The game to run on: ``--game`` (else the plan's), its kwargs updated by ``--kwarg``."""
    if name is None and plan.game is None:
        raise ConfigError("plan: no game; give --game NAME or a game: {name: ...} in the plan")
    base = dict(plan.game.kwargs) if plan.game is not None and name is None else {}
    for item in kwargs:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--kwarg {item!r}: expected KEY=VALUE, e.g. level_seed=3")
        try:
            base[key] = yaml.safe_load(value)
        except yaml.YAMLError:
            raise ConfigError(f"--kwarg {item!r}: the value is not valid YAML") from None
    game_name = name if name is not None else plan.game.name  # type: ignore[union-attr]
    factory = GameFactory(name=game_name, kwargs=tuple(sorted(base.items())))
    try:
        factory.validate()
    except GameNotFound as exc:
        raise ConfigError(str(exc)) from None
    return factory


def plan_command(args: argparse.Namespace, console: Console) -> int:
    """Run ``evo plan run``; returns the exit code."""
    from evo.plans.load import load_plan
    from evo.plans.run import run_plan

    plan = load_plan(args.plan)
    factory = game_factory(plan, args.game, args.kwarg)
    console.print(f"[bold]evo plan run[/bold] {escape(plan.name or str(args.plan))} on {escape(factory.label)} "
                  f"{escape(str(dict(factory.kwargs)))}")

    def show(copy: int, step: int, text: str) -> None:
        style = "red" if text.startswith(("validation failed", "FAILED")) else (
            "green" if text.startswith("validation passed") else "")
        line = f"step {step:>4}  {escape(text)}"
        console.print(f"[{style}]{line}[/{style}]" if style else line)

    result = run_plan(plan, factory, log=show)
    if result.passed:
        console.print(f"[bold green]PASSED[/bold green] {len(plan.nodes)} nodes in {result.steps} steps")
        return 0
    if result.bug is not None:
        console.print(f"bug {escape(result.bug.signature)}: replays in {len(result.bug.actions)} actions "
                      f"from episode seed {result.bug.episode_seed}")
    console.print(f"[bold red]FAILED[/bold red] {escape(result.failure or '')}")
    return 1
