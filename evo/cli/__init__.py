"""The ``evo`` command line: :mod:`evo.cli.main` has the parser and the run, report, replay and
compare commands; :mod:`evo.cli.plans`, :mod:`evo.cli.traces` and :mod:`evo.cli.vision` the
plan, shrink/regress and vision commands."""


def main(argv: list[str] | None = None) -> int:
    """The ``evo`` console script (kept light: the commands import what they need)."""
    from evo.cli.main import main as run

    return run(argv)
