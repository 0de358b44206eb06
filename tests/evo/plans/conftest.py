"""The text reader's pipeline, loaded once for every text-plan test (it trains once per machine)."""

from __future__ import annotations

import pytest

from evo.plans.text import load_pipeline


@pytest.fixture(scope="session")
def nlp():  # type: ignore[no-untyped-def]
    return load_pipeline()
