"""The text reader's pipeline, loaded once for every text-plan test (it trains once per machine),
and the development sets the session checks, read once on every core (once for all workers)."""

from __future__ import annotations

import os
import pickle

import pytest

from evo.plans.text import load_pipeline


@pytest.fixture(scope="session")
def nlp():  # type: ignore[no-untyped-def]
    return load_pipeline()


READ_ONLY = frozenset({"test_dev_sets", "test_the_development_sets_give_the_meant_plans"})
"""Tests that read a development set (parameter ``held``) without running its plans."""


@pytest.fixture(scope="session")
def readings(request, tmp_path_factory):  # type: ignore[no-untyped-def]
    """Set -> its texts read, for every set a read-only test of this session checks. With
    ``-n`` (pytest-xdist) every worker collects every test: the first worker to need the sets
    reads them, and the others load what it wrote instead of reading them again."""
    from tests.evo.plans.heldout.score import read_all

    sets = sorted({item.callspec.params["held"] for item in request.session.items
                   if getattr(item, "originalname", None) in READ_ONLY and "held" in getattr(getattr(item, "callspec", None), "params", {})})
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return read_all(sets)
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp().parent / "readings.pickle"  # one folder for all workers
    with FileLock(f"{shared}.lock"):
        if shared.is_file():
            return pickle.loads(shared.read_bytes())
        read = read_all(sets)
        shared.write_bytes(pickle.dumps(read))
        return read
