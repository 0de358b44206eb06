"""``evo plan from-text --explain``: how each clause of a tester's text was read, a block each."""

from __future__ import annotations

from typing import Collection, Sequence

from evo.plans.doubts import Doubt, reading
from evo.plans.lexicon import WordMatch
from evo.plans.text import MatchedStep


def _match(m: WordMatch | None) -> str:
    if m is None:
        return "-"
    via = "" if m.via.lower() == m.word.lower() else f" via {m.via!r}"
    return f"{m.word!r} -> {m.name} ({m.how}{via}, {m.score:.2f})"


def explain_lines(steps: Sequence[MatchedStep], in_doubt: Sequence[Doubt], accepted: Collection[int] = ()) -> list[str]:
    """A block of lines per clause, numbered as ``--accept`` takes them: the clause, its role (a
    step or a rule, with the classifier's probability), its action, actor and the instance an
    ordinal names, each with the word it was read from, how and how alike; its condition; the
    step it becomes; and what is in doubt (accepted or not)."""
    why = {d.clause: d.why for d in in_doubt}
    lines = []
    for number, step in enumerate(steps, 1):
        clause = step.parsed.clause
        ordinal = clause.ordinal if clause else None
        condition = " ".join(x for x in ((clause.condition if clause else None) or "",
                                         _match(step.condition_match) if step.condition_match else "") if x)
        actor = _match(step.actor_match) if step.actor_match else (f"{step.parsed.actor_word!r} (the actor before)"
                                                                  if step.parsed.actor_word else "-")
        lines += [f"clause {number}: {step.parsed.text!r}",
                  f"  role       {'step' if step.parsed.kind == 'node' else 'rule'} ({step.parsed.confidence:.2f})",
                  f"  action     {_match(step.action_match)}",
                  f"  actor      {actor}",
                  f"  instance   {'-' if ordinal is None else ordinal}",
                  f"  condition  {condition or '-'}",
                  f"  reads as   {reading(step)}"]
        if number in why:
            lines.append(f"  doubt      {'accepted: ' if number in accepted else ''}{why[number]}")
    return lines
