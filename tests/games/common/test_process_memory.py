"""Resident memory read from /proc: what bounds a game copy and what generations.csv records."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from games.common.process_memory import children_rss_mb, descendants, rss_mb, tree_rss_mb

pytestmark = pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc")

HOLD_200_MB = "import numpy, sys; a = numpy.ones(200 * 2**20, dtype=numpy.uint8); print(1, flush=True); sys.stdin.read()"


def test_touched_memory_shows_in_this_process() -> None:
    before = rss_mb()
    block = np.ones(100 * 2**20, dtype=np.uint8)  # written, so resident
    after = rss_mb()
    assert before is not None and after is not None
    assert after - before >= 90
    del block


def test_a_child_holding_memory_counts_in_the_tree_but_not_in_its_parent() -> None:
    child = subprocess.Popen([sys.executable, "-c", HOLD_200_MB], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == b"1"
        assert child.pid in descendants(os.getpid())
        child_rss = rss_mb(child.pid)
        assert child_rss is not None and child_rss >= 200
        tree = tree_rss_mb(os.getpid())
        own = rss_mb()
        assert tree is not None and own is not None and tree >= own + 200
        children = children_rss_mb()
        assert children is not None and children >= 200
    finally:
        child.kill()
        child.wait()


def test_a_process_that_is_gone_reads_none() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert rss_mb(child.pid) is None and tree_rss_mb(child.pid) is None
