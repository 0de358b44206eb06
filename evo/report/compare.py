"""``evo compare``: run experiments over seeds in parallel, or read runs, and compare them.

Every experiment YAML runs for seeds 0..N-1 (the ``seed`` key overridden), each run through
the same code path as ``evo run`` (:func:`evo.run.kinds.base.run_for`) in a joblib worker (loky
backend), into ``<out>/runs/<experiment>/seed<k>``. Directories given instead of YAMLs are
read as they are: a directory with a ``config.yaml`` is a run, any other directory stands for
the runs found under it. Then ``<out>`` gets:

- ``summary.csv``: one row per strategy (the run's config ``name``), :func:`evo.report.tables.compare`;
- ``pairwise.csv``: one row per pair of strategies on the same game, :func:`evo.report.tables.pairwise`;
- ``runs.csv``: one row per run, :func:`evo.report.tables.runs_table`;
- ``plots/``: bugs over env steps and over wall seconds, final Pareto fronts, coverage maps;
- ``compare.html`` with ``--html``: all of the above on one page (:mod:`evo.report.html`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

import pandas as pd

from evo.run.config import ConfigError, Experiment, load_experiment
from evo.run.rundir import CONFIG, GENERATIONS
from evo.run.user_paths import check_out_folder


class CompareError(ValueError):
    """Bad input to a comparison (a missing file, a directory without runs); one line."""


@dataclass(frozen=True)
class Job:
    """One run to make: the experiment (read once, seed set) and where the run goes."""

    experiment: Experiment
    run_dir: Path


@dataclass(frozen=True)
class Finished:
    """What a worker reports about a run it finished (one progress line)."""

    name: str
    seed: int
    bugs: int
    injected_found: int | None
    seconds: float
    run_dir: Path


@dataclass
class Comparison:
    """The tables of a comparison and the files written for it."""

    runs: pd.DataFrame
    summary: pd.DataFrame
    pairwise: pd.DataFrame
    files: list[Path]


def find_run_dirs(folder: Path) -> list[Path]:
    """``folder`` itself when it is a run directory, else every run directory under it."""
    if (folder / CONFIG).is_file():
        return [folder]
    return sorted(p.parent for p in folder.rglob(CONFIG))


def plan(inputs: Sequence[str | Path], seeds: int, out: Path) -> tuple[list[Job], list[Path]]:
    """Check every input before anything runs.

    Returns:
        The runs to make, and every run directory of the comparison (those to make and those
        to read) in the order of the inputs, seeds in order within an experiment.

    Raises:
        CompareError: a missing input, a folder with no runs, a run folder already in use,
            two experiments with one name, fewer than one seed.
        evo.run.config.ConfigError: a YAML that does not validate (names its key), or ``out``
            is a file (or below one).
    """
    check_out_folder(out)
    if seeds < 1:
        raise CompareError(f"--seeds must be at least 1, got {seeds}")
    if not inputs:
        raise CompareError("compare: give experiment YAMLs or run directories")
    jobs: list[Job] = []
    run_dirs: list[Path] = []
    names: dict[str, Path] = {}
    for item in map(Path, inputs):
        if item.is_dir():
            found = find_run_dirs(item)
            if not found:
                raise CompareError(f"{item}: not a run directory and holds none (no {CONFIG} under it)")
            unfinished = [d for d in found if not (d / GENERATIONS).is_file()]
            if unfinished:
                raise CompareError(f"{unfinished[0]}: run has no {GENERATIONS} (not one generation finished)")
            run_dirs += found
            continue
        if not item.is_file():
            raise CompareError(f"{item}: no such experiment file or run directory")
        try:
            exp: Experiment = load_experiment(item)
        except ConfigError as exc:
            message = str(exc)
            raise ConfigError(message if message.startswith(str(item)) else f"{item}: {message}") from None
        if exp.name in names:
            raise CompareError(f"{item}: experiment name {exp.name!r} is also the name in {names[exp.name]}")
        names[exp.name] = item
        for seed in range(seeds):
            run_dir = out / "runs" / exp.name / f"seed{seed}"
            if run_dir.exists() and any(run_dir.iterdir()):
                raise CompareError(f"{run_dir}: already exists and is not empty; choose another --out")
            jobs.append(Job(_one_process(exp.model_copy(update={"seed": seed})), run_dir))
            run_dirs.append(run_dir)
    return jobs, list(dict.fromkeys(run_dirs))  # a run named twice (a folder and its parent) counts once


def run_job(job: Job) -> Finished:
    """Run one experiment with one seed, as ``evo run EXP seed=K --out DIR --quiet`` would."""
    from evo.run.kinds.base import run_for

    exp = job.experiment
    started = time.perf_counter()
    run = run_for(exp, job.run_dir)
    run.run()
    archive, found = run.state.archive, None
    if run.built.truth is not None:
        found = archive.injected_found()
    return Finished(exp.name, exp.seed, len(archive), found, time.perf_counter() - started, job.run_dir)


def _one_process(exp: Experiment) -> Experiment:
    """The experiment with its episodes played in the worker's own process.

    ``--jobs`` already gives each core a run; a pool of local processes inside every run
    (``parallel.backend: loky``) would put several processes on each core. Results do not
    change: a run is the same serially and with any number of workers. Cluster backends
    (Ray, Dask) are left as configured.
    """
    parallel = getattr(exp, "parallel", None)
    if parallel is None or getattr(parallel, "backend", None) != "loky":
        return exp
    return exp.model_copy(update={"parallel": parallel.model_copy(update={"backend": "serial"})})


def run_jobs(jobs: Sequence[Job], n_jobs: int) -> Iterator[Finished]:
    """Run the jobs on ``n_jobs`` loky workers; yield each run as it finishes."""
    from joblib import Parallel, delayed

    if not jobs:
        return iter(())
    parallel = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator_unordered")
    return parallel(delayed(run_job)(job) for job in jobs)


def write_outputs(run_dirs: Sequence[Path], out: Path, html: bool = False) -> Comparison:
    """Tables (``summary.csv``, ``pairwise.csv``, ``runs.csv``) and plots of the runs, into
    ``out``; with ``html``, ``compare.html`` too (:func:`evo.report.html.compare_page`)."""
    from evo.report import plots
    from evo.report.tables import load_run, pairwise_tests, run_metrics, summarize

    out.mkdir(parents=True, exist_ok=True)
    loaded = [load_run(d) for d in run_dirs]
    runs = pd.DataFrame([run_metrics(r) for r in loaded])
    summary = summarize(runs)
    pairs = pairwise_tests(runs)
    files = [out / "summary.csv", out / "pairwise.csv", out / "runs.csv"]
    summary.to_csv(files[0], index=False)
    pairs.to_csv(files[1], index=False)
    runs.to_csv(files[2], index=False)
    figures = out / "plots"
    files.append(plots.bugs_over(loaded, "env_steps", figures / "bugs_over_steps.png"))
    files.append(plots.bugs_over(loaded, "wall_s", figures / "bugs_over_seconds.png"))
    files.append(plots.pareto_fronts(loaded, figures / "pareto_fronts.png"))
    coverage = plots.coverage_maps(loaded, figures / "coverage_maps.png")
    if coverage is not None:
        files.append(coverage)
    if html:
        from evo.report.html import compare_page

        files.append(compare_page(summary, pairs, runs, [f for f in files if f.suffix == ".png"], out))
    return Comparison(runs, summary, pairs, files)


def compare(
    inputs: Sequence[str | Path],
    seeds: int = 5,
    n_jobs: int = 2,
    out: str | Path | None = None,
    on_finished: Callable[[int, int, Finished], None] | None = None,
    html: bool = False,
) -> Comparison:
    """Run what needs running, read the rest, and write the comparison into ``out``.

    Args:
        inputs: Experiment YAMLs (each run for seeds 0..``seeds``-1) and run directories.
        seeds: Seeds per experiment.
        n_jobs: Runs at the same time (loky worker processes).
        out: Output folder; ``compare/<stamp>`` when None.
        on_finished: Called as ``(done, total, finished)`` after each run.
        html: Write ``compare.html`` too; checked before anything runs (Jinja2 installed).
    """
    out = Path(out) if out is not None else Path("compare") / time.strftime("%Y%m%d-%H%M%S")
    jobs, run_dirs = plan(inputs, seeds, out)
    if html:
        from evo.report.html import check_installed

        check_installed()
    for done, finished in enumerate(run_jobs(jobs, n_jobs), start=1):
        if on_finished is not None:
            on_finished(done, len(jobs), finished)
    return write_outputs(run_dirs, out, html)
