"""Re-run a run's bugs against another build of the game: which are fixed, which remain.

A developer fixes bugs the search found and wants to know, without a new search, which of
them are gone. ``evo regress RUN_DIR --game KEY=VALUE ...`` plays every bug's trace from its
episode seed on the game built with other kwargs, and asks the bug's own oracle, with the
run's thresholds, whether it still shows (:class:`evo.bugs.reproduce.Reproducer`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping

import pandas as pd

from evo.run import rundir
from evo.bugs.reproduce import Reproducer

REGRESS_COLUMNS = ["id", "kind", "signature", "steps", "status"]


def regress(run_dir: str | Path, game_kwargs: Mapping[str, Any], repeats: int = 3,
            progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """One row per bug of the run: ``status`` is ``remains`` when its trace still shows it on
    the game built with ``game_kwargs`` (over the run's own kwargs), ``fixed`` when not.

    Raises:
        ValueError: ``game_kwargs`` that the game does not take.
    """
    path = Path(run_dir) / rundir.BUGS
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
    rows = []
    with Reproducer(run_dir, repeats=repeats, game_kwargs=game_kwargs) as reproducer:
        for k, record in enumerate(records):
            remains = reproducer.reproduces(record, [[int(a) for a in record["actions"]]])[0]
            rows.append([int(record["id"]), record["kind"], record["signature"], len(record["actions"]),
                         "remains" if remains else "fixed"])
            if progress is not None:
                progress(k + 1, len(records))
    return pd.DataFrame(rows, columns=REGRESS_COLUMNS)
