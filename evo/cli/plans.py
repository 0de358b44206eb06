"""``evo plan run PLAN [--game NAME] [--kwarg KEY=VALUE ...]``: run a plan as a test.

Each node, rule and validation is printed as it happens; the exit code is 0 when the test
passed and 1 when it failed (the failing validation is the last line). Bad input is exit 2.

``evo plan suite DIR [--game NAME] [--kwarg KEY=VALUE ...] [--out TABLE.csv]`` runs every
plan YAML of a folder, prints a line per plan and writes the table (:mod:`evo.plans.suite`);
exit 0 when all passed, 1 otherwise.

``evo plan record RUN_DIR BUG_ID [--every K] [--out PLAN]`` turns a bug's episode into a plan
that follows it to the same bug (:mod:`evo.plans.record`), ``evo plan record --actions FILE
--game NAME`` a person's recorded play; ``evo plan export RUN_DIR [--out
DIR]`` does it for every bug after shrinking its trace (:mod:`evo.plans.export`), exit 0 when
every plan reproduces its bug.

``evo plan from-text FILE --game NAME [--validations PLAN] [--out PLAN] [--run]`` reads a
tester's steps into a plan (:mod:`evo.plans.from_text`), prints how each sentence was read,
writes the plan YAML, and with ``--run`` runs it as ``evo plan run`` would.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from rich.console import Console
from rich.markup import escape

from evo.run.user_paths import ConfigError, check_out_file, check_out_folder, read_text
from games.registry import GameFactory, GameNotFound

if TYPE_CHECKING:  # the plans load the oracles (and torch) with the command, not with the parser
    from evo.plans.base import Plan


def add_plan_parser(sub: argparse._SubParsersAction) -> None:
    """The ``plan`` command and its subcommands."""
    plan = sub.add_parser("plan", help="run explicit test plans")
    plan_sub = plan.add_subparsers(dest="plan_command", required=True)
    run = plan_sub.add_parser("run", help="follow a plan YAML on a game; exit 0 passed, 1 failed")
    run.add_argument("plan", type=Path, help="plan YAML file")
    run.add_argument("--game", help="registered game name (default: the plan's game)")
    run.add_argument("--kwarg", action="append", default=[], metavar="KEY=VALUE",
                     help="a game keyword argument, value read as YAML (repeatable), e.g. bugs=[dead_jump]")
    suite = plan_sub.add_parser("suite", help="run every plan YAML of a folder; exit 0 when all passed, 1 otherwise")
    suite.add_argument("folder", type=Path, help="folder of plan YAMLs")
    suite.add_argument("--game", help="registered game name (default: each plan's game)")
    suite.add_argument("--kwarg", action="append", default=[], metavar="KEY=VALUE",
                       help="a game keyword argument for every plan, value read as YAML (repeatable)")
    suite.add_argument("--out", type=Path, help="write the table here (CSV: plan, passed, steps, failure)")
    record = plan_sub.add_parser("record", help="a bug's episode, or a person's play, as a plan that follows it")
    record.add_argument("run_dir", type=Path, nargs="?", help="run directory of the bug")
    record.add_argument("bug_id", type=int, nargs="?", help="the bug's id in bugs.jsonl")
    record.add_argument("--actions", type=Path, help="or a person's play: a file of action names (or numbers), in order")
    record.add_argument("--game", help="the game the --actions were played on (registered name)")
    record.add_argument("--kwarg", action="append", default=[], metavar="KEY=VALUE",
                        help="a game keyword argument of that game, value read as YAML (repeatable)")
    record.add_argument("--seed", type=int, default=0, help="the episode seed the --actions were played from")
    record.add_argument("--every", type=int, default=10, help="steps between two sampled places (default 10)")
    record.add_argument("--out", type=Path, help="write the plan here (default: print it)")
    export = plan_sub.add_parser("export", help="every bug of a run as a minimal plan (shrunk trace, then nodes)")
    export.add_argument("run_dir", type=Path)
    export.add_argument("--out", type=Path, help="folder of the plans (default: RUN_DIR/plans)")
    export.add_argument("--every", type=int, default=10, help="steps between two sampled places (default 10)")
    export.add_argument("--no-shrink", action="store_true", help="keep each bug's whole trace and every recorded node")
    text = plan_sub.add_parser("from-text", help="read a tester's written steps into a plan YAML")
    text.add_argument("text", type=Path, help="text file: one step per line or sentence")
    text.add_argument("--game", required=True, help="registered game name whose names the steps are matched to")
    text.add_argument("--kwarg", action="append", default=[], metavar="KEY=VALUE",
                      help="a game keyword argument, value read as YAML (repeatable)")
    text.add_argument("--validations", type=Path, metavar="PLAN",
                      help="take the validations of this plan YAML (text says what to do, not what to check)")
    text.add_argument("--out", type=Path, help="write the plan here (default: print it)")
    text.add_argument("--run", action="store_true", help="run the plan too; exit 0 passed, 1 failed")
    text.add_argument("--accept", type=int, action="append", default=[], metavar="N",
                      help="take clause N's closest reading though it was read without confidence (repeatable)")
    text.add_argument("--explain", action="store_true",
                      help="show how each clause was read: role, action, actor, instance, condition, match, doubt")


def parse_kwargs(items: list[str]) -> dict[str, Any]:
    """``--kwarg KEY=VALUE`` options as a dict, each value read as YAML.

    Raises:
        ConfigError: an item without ``=`` or a value that is not YAML.
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--kwarg {item!r}: expected KEY=VALUE, e.g. level_seed=3")
        try:
            out[key] = yaml.safe_load(value)
        except yaml.YAMLError:
            raise ConfigError(f"--kwarg {item!r}: the value is not valid YAML") from None
    return out


def game_factory(plan: Plan, name: str | None, kwargs: list[str]) -> GameFactory:
    """The game to run on: ``--game`` (else the plan's, in the plan's wrappers), its kwargs
    updated by ``--kwarg``."""
    if name is None and plan.game is None:
        raise ConfigError("plan: no game; give --game NAME or a game: {name: ...} in the plan")
    own = plan.game is not None and name is None
    base = dict(plan.game.kwargs) if own else {}  # type: ignore[union-attr]
    base.update(parse_kwargs(kwargs))
    game_name = name if name is not None else plan.game.name  # type: ignore[union-attr]
    wrappers = plan.game.wrapper_specs() if own else ()  # type: ignore[union-attr]
    factory = GameFactory(name=game_name, kwargs=tuple(sorted(base.items())), wrappers=wrappers)
    try:
        factory.validate()
    except GameNotFound as exc:
        raise ConfigError(str(exc)) from None
    return factory


def plan_command(args: argparse.Namespace, console: Console) -> int:
    """Run ``evo plan run`` or ``evo plan from-text``; returns the exit code."""
    from evo.plans.load import load_plan

    if args.plan_command == "from-text":
        return _from_text(args, console)
    if args.plan_command == "suite":
        return _suite(args, console)
    if args.plan_command in ("record", "export"):
        return _record(args, console) if args.plan_command == "record" else _export(args, console)
    plan = load_plan(args.plan)
    return _run(plan, game_factory(plan, args.game, args.kwarg), str(args.plan), console)


def _suite(args: argparse.Namespace, console: Console) -> int:
    from evo.plans.suite import run_suite

    def show(path: Path, result: Any) -> None:
        verdict = "[green]PASSED[/green]" if result.passed else "[red]FAILED[/red]"
        why = f"  {escape(result.failure)}" if result.failure else ""
        console.print(f"{verdict} {escape(path.name)}  {result.steps} steps{why}")

    if args.out is not None:
        check_out_file(args.out)
    table = run_suite(args.folder, lambda plan: game_factory(plan, args.game, args.kwarg), show)
    passed = int(table["passed"].sum())
    console.print(f"{passed} of {len(table)} plans passed")
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out, index=False)
        console.print(f"table written to {args.out}")
    return 0 if passed == len(table) else 1


def _write(out: Path, text: str) -> None:
    """Write a plan to ``--out`` (checked by :func:`evo.run.user_paths.check_out_file` before the
    work), making the folders above it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)


def _run_dir(run_dir: Path) -> None:
    """One line (exit 2) unless ``run_dir`` is a run directory."""
    from evo.run.rundir import bug_records

    try:
        bug_records(run_dir)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _record(args: argparse.Namespace, console: Console) -> int:
    from evo.plans.export import bug_plan, reproduces
    from evo.plans.record import plan_yaml
    from evo.bugs.reproduce import Reproducer

    if args.actions is not None:
        return _record_play(args, console)
    if args.run_dir is None or args.bug_id is None:
        raise ConfigError("evo plan record: give RUN_DIR BUG_ID, or --actions FILE --game NAME")
    _run_dir(args.run_dir)
    if args.out is not None:
        check_out_file(args.out)
    with Reproducer(args.run_dir, repeats=1) as reproducer:
        try:
            record = reproducer.bug(args.bug_id)
        except KeyError:
            raise ConfigError(f"{args.run_dir}: no bug with id {args.bug_id} in bugs.jsonl") from None
        plan = bug_plan(reproducer, record, [int(a) for a in record["actions"]], args.every)
        again = reproduces(plan, reproducer.built.factory)
    text = plan_yaml(plan)
    if args.out is not None:
        _write(args.out, text)
    else:
        console.print(escape(text))
    where = f" written to {args.out}" if args.out is not None else ""
    console.print(f"bug {args.bug_id}: {len(record['actions'])} actions -> {len(plan.nodes)} nodes{where}; "
                  f"following it {'shows the bug again' if again else 'does NOT show the bug'}")
    return 0 if again else 1


def _record_play(args: argparse.Namespace, console: Console) -> int:
    """A person's recorded play (``--actions``) as a plan that plays the same moves."""
    from evo.plans.base import Plan
    from evo.plans.record import plan_yaml, record_plan

    if args.game is None:
        raise ConfigError("--actions needs --game NAME: the game they were played on")
    words = read_text(args.actions, "file of actions").replace(",", " ").split()
    if args.out is not None:
        check_out_file(args.out)
    factory = game_factory(Plan(game={"name": args.game}, nodes=[{"location": (0, 0)}]), None, args.kwarg)
    game = factory.make_vector(1)
    names = list(getattr(game, "action_names", ()))
    game.close()
    actions = []
    for word in words:
        if word.isdigit() and int(word) < game.game_spec.n_actions:
            actions.append(int(word))
        elif word in names:
            actions.append(names.index(word))
        else:
            raise ConfigError(f"{args.actions}: {word!r} is no action of {args.game}; expected one of {', '.join(names)}")
    plan, _ = record_plan(factory, args.seed, actions, every=args.every, name=args.actions.stem)
    text = plan_yaml(plan)
    if args.out is not None:
        _write(args.out, text)
    else:
        console.print(escape(text))
    console.print(f"{len(actions)} actions -> {len(plan.nodes)} nodes" + (f" written to {args.out}" if args.out else ""))
    return 0


def _export(args: argparse.Namespace, console: Console) -> int:
    from evo.plans.export import export_bugs

    _run_dir(args.run_dir)
    if args.every < 1:
        raise ConfigError(f"--every {args.every}: expected a positive number of steps")
    out = args.out if args.out is not None else args.run_dir / "plans"
    check_out_folder(out)

    def show(row: dict) -> None:
        verdict = "reproduces" if row["reproduces"] else "[red]does NOT reproduce[/red]"
        console.print(f"bug {row['id']:>3} {row['kind']:<11} {row['original']:>4} -> {row['shrunk']:>3} actions, "
                      f"{row['recorded_nodes']:>3} -> {row['nodes']:>3} nodes  {verdict}  {escape(row['signature'][:60])}")

    table = export_bugs(args.run_dir, out, every=args.every, shrink=not args.no_shrink, progress=show)
    table.to_csv(out / "export.csv", index=False)
    ok = int(table["reproduces"].sum())
    if len(table):
        console.print(f"{ok} of {len(table)} plans reproduce their bug; traces {int(table['original'].sum())} -> "
                      f"{int(table['shrunk'].sum())} actions in all; plans in {out}")
    else:
        console.print(f"no bugs in {args.run_dir}")
    return 0 if ok == len(table) else 1


def _read_as(text: str, factory: Any, console: Console) -> None:
    """The text as its steps are read on the game, where words around them were taken out or steps put in order."""
    from evo.plans.budgets import without_budget
    from evo.plans.from_text import read_as

    plain = without_budget(text)
    plain = text if plain is None else plain
    read = read_as(plain, factory).strip()
    if " ".join(read.split()) != " ".join(plain.split()):
        console.print(f"read as: {read!r}", markup=False, highlight=False)


def _from_text(args: argparse.Namespace, console: Console) -> int:
    from evo.plans.base import Plan
    from evo.cli.plan_explain import explain_lines
    from evo.plans.doubts import UnsureReading, doubts
    from evo.plans.from_text import plan_from_text
    from evo.plans.load import load_plan

    sentences = read_text(args.text, "text file")
    if args.out is not None:
        check_out_file(args.out)
    factory = game_factory(Plan(game={"name": args.game}, nodes=[{"location": (0, 0)}]), None, args.kwarg)
    validations = load_plan(args.validations).validations if args.validations else []
    try:
        plan, steps = plan_from_text(sentences, factory, name=args.text.stem, validations=validations,
                                     accept=set(args.accept))
    except ImportError as exc:
        raise ConfigError(str(exc)) from None
    except UnsureReading as exc:
        if args.explain:
            _read_as(sentences, factory, console)
            console.print("\n".join(explain_lines(exc.steps, exc.doubts)), markup=False, highlight=False)
        raise
    for written, meant in plan.respelled:  # slips of the game's words (evo.plans.spelling)
        console.print(f"read {written!r} as {meant!r}", markup=False, highlight=False)
    for sentence in plan.taken_back:  # said, then said again otherwise (evo.plans.taken_back)
        console.print(f"taken back: {sentence!r}", markup=False, highlight=False)
    for sentence in plan.left_out:  # refused with them, read without them (evo.plans.talk)
        console.print(f"left out as talk: {sentence!r}", markup=False, highlight=False)
    if args.explain:
        _read_as(sentences, factory, console)
        console.print("\n".join(explain_lines(steps, doubts(steps), set(args.accept))), markup=False, highlight=False)
    else:
        for step in steps:
            near = step.actor_type or (step.condition_match.name if step.condition_match else None)  # a rule's trigger
            what = f"{step.action or 'go'} {near or '(fallback place)'}"
            why = ", ".join(f"{m.word!r}~{m.via} {m.score:.2f} {m.how}"
                            for m in (step.action_match, step.actor_match, step.condition_match) if m is not None)
            console.print(f"{step.parsed.kind:>4}  {escape(step.parsed.text)}  ->  {escape(what)}"
                          + (f"  ({escape(why)})" if why else ""))
    text = yaml.safe_dump(plan.model_dump(mode="json", exclude_defaults=True), sort_keys=False)
    if args.out is not None:
        _write(args.out, text)
        console.print(f"plan written to {args.out}")
    else:
        console.print(escape(text))
    return _run(plan, factory, args.text.stem, console) if args.run else 0


def _run(plan: Plan, factory: GameFactory, label: str, console: Console) -> int:
    from evo.plans.run import run_plan

    console.print(f"[bold]evo plan run[/bold] {escape(plan.name or label)} on {escape(factory.label)} "
                  f"{escape(str(dict(factory.kwargs)))}")

    def show(copy: int, step: int, text: str) -> None:
        style = "red" if text.startswith(("validation failed", "FAILED")) else (
            "green" if text.startswith("validation passed") else "")
        line = f"step {step:>4}  {escape(text)}"
        console.print(f"[{style}]{line}[/{style}]" if style else line)

    result = run_plan(plan, factory, log=show)
    if result.passed:
        done = f"{len(plan.nodes)} nodes" if plan.nodes else f"{len(plan.rules)} rules alone"
        console.print(f"[bold green]PASSED[/bold green] {done} in {result.steps} steps")
        return 0
    if result.bug is not None:
        console.print(f"bug {escape(result.bug.signature)}: replays in {len(result.bug.actions)} actions "
                      f"from episode seed {result.bug.episode_seed}")
    console.print(f"[bold red]FAILED[/bold red] {escape(result.failure or '')}")
    return 1
