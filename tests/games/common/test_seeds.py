"""The experiment's seed streams draw what the search drew before they were named: the same
YAML and seed give the same run."""

from __future__ import annotations

import numpy as np

from games.common.seeds import Stream, component_seed, probe_seed, stream_rng


def test_the_search_streams_are_the_children_of_the_experiment_seed() -> None:
    # What the generation loop drew before: default_rng of each of SeedSequence(seed).spawn(4).
    for seed in (0, 7, 2**40 + 3):
        children = np.random.SeedSequence(seed).spawn(4)
        for child, which in zip(children, (Stream.VARIATION, Stream.PLAY, Stream.FINETUNE, Stream.INIT)):
            assert (np.random.default_rng(child).integers(0, 2**63 - 1, 8)
                    == stream_rng(seed, which).integers(0, 2**63 - 1, 8)).all()
        explore = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(5,)))
        assert (explore.random(8) == stream_rng(seed, Stream.EXPLORE).random(8)).all()


def test_component_and_probe_seeds_are_the_ones_runs_were_made_with() -> None:
    # Values from before the streams moved here (oracles/component.py, evo/search/probe.py).
    assert component_seed(0, "objectives", "rnd_novelty", 0) == 3226468088767215932
    assert probe_seed(3) == 1267904135


def test_every_stream_has_its_own_key() -> None:
    assert len({int(s) for s in Stream}) == len(Stream)
