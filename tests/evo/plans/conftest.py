"""The text reader's pipeline, loaded once for every text-plan test (it trains once per machine),
and the development sets the session checks, read once on every core."""

from __future__ import annotations

import pytest

from evo.plans.text import load_pipeline


@pytest.fixture(scope="session")
def nlp():  # type: ignore[no-untyped-def]
    return load_pipeline()


READ_ONLY = frozenset({"test_dev_sets", "test_the_development_sets_give_the_meant_plans"})
"""Tests that read a development set (parameter ``held``) without running its plans."""


@pytest.fixture(scope="session")
def readings(request):  # type: ignore[no-untyped-def]
    """Set -> its texts read, for every set a read-only test of this session checks."""
    from tests.evo.plans.heldout.score import read_all

    sets = sorted({item.callspec.params["held"] for item in request.session.items
                   if getattr(item, "originalname", None) in READ_ONLY and "held" in getattr(getattr(item, "callspec", None), "params", {})})
    return read_all(sets)
