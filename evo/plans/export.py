"""Every bug of a run as a minimal plan: shrink its trace, record it as nodes, expect the bug.

A bug the search found is a trace of actions; a plan is what a person reads, edits and reruns.
Each bug's trace is first shrunk by delta debugging (:mod:`evo.bugs.shrink`, every candidate
verified by the bug's oracle), then recorded as a plan (:mod:`evo.plans.record`) that ends
with the bug's expectation: the oracle that reported it, with the run's settings and
calibrated state (:class:`evo.plans.base.ExpectedBug`), and for a failed validation the
validation itself, so that ``evo plan run`` fails with its message. The plan fails while the
bug remains and passes once it is fixed: a regression test (``evo regress RUN_DIR --plans``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

import pandas as pd

from evo.run.config import ConfigError
from evo.plans.base import ExpectedBug, Plan
from evo.plans.load import load_plan
from evo.plans.record import plan_yaml, record_plan
from evo.plans.run import run_plan
from evo.bugs.reproduce import Reproducer
from evo.bugs.shrink import shrink_bug
from games.registry import GameFactory
from oracles.action_checks import Validation, validation_signature

EXPORT_COLUMNS = ["id", "kind", "signature", "original", "shrunk", "recorded_nodes", "nodes", "reproduces", "plan"]
MAX_NODE_PLAYS = 200
"""Plans one node-shrinking may run before it settles for what it has."""
EVERY = 10
"""Steps between two sampled places of an exported plan."""


def plan_file(bug_id: int) -> str:
    return f"bug-{bug_id}.yaml"


def expectation(reproducer: Reproducer, record: Mapping[str, Any]) -> tuple[list[Validation], ExpectedBug]:
    """The bug's expectation: its oracle with the run's settings and state, and for a failed
    validation the validation that failed (matched by its signature)."""
    from oracles import resolved_kwargs

    entry = next(o for o in reproducer.built.exp.oracles if o.name == record["oracle"])
    kwargs = resolved_kwargs(entry.name, entry.kwargs)
    oracle = reproducer.oracle(record)
    oracle.forget_visits()  # the run's counts are the run's; the calibrated line is kept
    state = oracle.state_dict() or None
    expected = ExpectedBug(oracle=record["oracle"], kind=record["kind"], signature=record["signature"],
                           kwargs=kwargs, state=state, copies=reproducer.copies(record))
    validations: list[Validation] = []
    if record["oracle"] == "validation":
        data = record.get("data") or {}
        for v in (Validation.model_validate(raw) for raw in kwargs.get("validations", [])):
            if validation_signature(data.get("action", ""), data.get("target"), v.expectation()) == record["signature"]:
                validations.append(v)
    return validations, expected


def reproduces(plan: Plan, factory: GameFactory) -> bool:
    """Whether following ``plan`` on ``factory``'s build shows the plan's bug."""
    result = run_plan(plan, factory)
    return result.bug is not None and plan.bug is not None and result.bug.signature == plan.bug.signature


def bug_plan(reproducer: Reproducer, record: Mapping[str, Any], actions: list[int], every: int = EVERY) -> Plan:
    """The plan that replays ``actions`` from the bug's episode seed and expects the bug."""
    validations, expected = expectation(reproducer, record)
    plan, _ = record_plan(reproducer.built.factory, int(record["seed"]), actions, every=every,
                          name=f"bug {record['id']}: {record['kind']} {record['signature']}",
                          validations=validations, bug=expected)
    return plan


def minimal_nodes(plan: Plan, factory: GameFactory, max_plays: int = MAX_NODE_PLAYS) -> Plan:
    """``plan`` with as few nodes as still reproduce its bug: Zeller's ddmin over the nodes,
    each candidate run as a plan (the navigator walks where waypoints are dropped)."""
    from evo.bugs.shrink import ddmin

    def keep(candidates: list[list[int]]) -> list[bool]:
        return [bool(c) and reproduces(plan.model_copy(update={"nodes": [plan.nodes[k] for k in c]}), factory)
                for c in candidates]

    kept, _ = ddmin(list(range(len(plan.nodes))), keep, max_plays)
    smaller = plan.model_copy(update={"nodes": [plan.nodes[k] for k in kept]})
    return smaller if len(kept) < len(plan.nodes) and reproduces(smaller, factory) else plan


def export_bugs(run_dir: str | Path, out_dir: str | Path, *, every: int = EVERY, shrink: bool = True,
                progress: Callable[[dict[str, Any]], None] | None = None) -> pd.DataFrame:
    """Export every bug of a run as a plan YAML in ``out_dir`` (``bug-<id>.yaml``).

    With ``shrink``, the trace is shrunk first and the recorded plan's nodes after it
    (:func:`minimal_nodes`). Returns one row per bug: its id, kind, signature, the trace's
    length before and after shrinking, the plan's nodes as recorded and as kept, and whether
    following the plan on the run's build shows the bug again (``reproduces``).
    """
    from evo.run.rundir import bug_records

    run_dir, out_dir = Path(run_dir), Path(out_dir)
    try:
        records = bug_records(run_dir)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    with Reproducer(run_dir, repeats=1) as reproducer:
        for record in records:
            original = [int(a) for a in record["actions"]]
            actions = list(shrink_bug(reproducer, record).shrunk) if shrink else original
            recorded = bug_plan(reproducer, record, actions, every)
            factory = reproducer.built.factory
            # A statistical oracle (performance) judges frame times against the batch's own
            # quartiles: a shorter walk that idles in the slow place shifts them, so its plan
            # keeps the recorded nodes, which replay the shrunk trace exactly.
            deterministic = recorded.bug is not None and recorded.bug.copies == 1
            minimize = shrink and deterministic and reproduces(recorded, factory)
            plan = minimal_nodes(recorded, factory) if minimize else recorded
            path = out_dir / plan_file(int(record["id"]))
            path.write_text(plan_yaml(plan))
            row = {"id": int(record["id"]), "kind": record["kind"], "signature": record["signature"],
                   "original": len(original), "shrunk": len(actions), "recorded_nodes": len(recorded.nodes),
                   "nodes": len(plan.nodes), "reproduces": reproduces(plan, factory), "plan": path.name}
            rows.append(row)
            if progress is not None:
                progress(row)
    return pd.DataFrame(rows, columns=EXPORT_COLUMNS)


def regress_plans(plans_dir: str | Path, factory_of: Callable[[Plan], GameFactory]) -> pd.DataFrame:
    """Each exported bug plan of ``plans_dir`` run on another build: ``remains`` when its bug
    still shows, ``fixed`` when not (columns of :data:`evo.bugs.regress.REGRESS_COLUMNS`).

    Raises:
        ConfigError: no such folder, no bug plan in it, or a plan without a bug.
    """
    from evo.bugs.regress import REGRESS_COLUMNS

    folder = Path(plans_dir)
    files = sorted(folder.glob("bug-*.yaml"), key=lambda p: int(p.stem.split("-")[1])) if folder.is_dir() else []
    if not files:
        raise ConfigError(f"{folder}: no exported bug plans (bug-<id>.yaml); write them with evo plan export")
    rows = []
    for path in files:
        plan = load_plan(path)
        if plan.bug is None:
            raise ConfigError(f"{path}: bug: the plan expects no bug; expected an exported bug plan")
        remains = reproduces(plan, factory_of(plan))
        rows.append([int(path.stem.split("-")[1]), plan.bug.kind, plan.bug.signature, plan.max_steps,
                     "remains" if remains else "fixed"])
    return pd.DataFrame(rows, columns=REGRESS_COLUMNS)
