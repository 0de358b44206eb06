"""The archive keeps the first report of each signature, numbered in discovery order."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from oracles.archive import RECORD_KEYS, BugArchive, Reproduction, append_jsonl, injected_found, to_record
from oracles.base import Bug

PATH = [(0.5, 0.5), (1.5, 0.5), (2.5, 0.5), (3.5, 0.5)]


def _bug(make_rollout, signature: str, kind: str = "crash", policy: int = 0, step: int = 1) -> Bug:
    r = make_rollout(PATH, policy=policy, seed=policy + 100)
    return Bug.at_step(r, step, kind=kind, oracle=kind, signature=signature,
                       message=f"{signature} happened", data={"frame_ms": np.float64(3.5)})


def test_dedups_by_signature_and_keeps_the_first(make_rollout):
    archive = BugArchive()
    a1, a2, b = (_bug(make_rollout, "s:a", policy=1), _bug(make_rollout, "s:a", policy=2),
                 _bug(make_rollout, "s:b", kind="stuck", policy=3))
    new = archive.add([a1, a2, b], generation=0, env_steps=100, wall_s=1.5)
    assert [(x.id, x.bug.policy) for x in new] == [(0, 1), (1, 3)]
    later = archive.add([_bug(make_rollout, "s:b", policy=4), _bug(make_rollout, "s:c")],
                        generation=3, env_steps=900, wall_s=9.0)
    assert [(x.id, x.bug.signature, x.generation, x.env_steps) for x in later] == [
        (2, "s:c", 3, 900)]
    assert len(archive) == 3
    assert archive.signatures == {"s:a", "s:b", "s:c"}
    assert [x.bug.policy for x in archive] == [1, 3, 0]
    assert archive.by_kind() == {"crash": 2, "stuck": 1}
    assert "s:a" in archive and "s:z" not in archive


def test_ids_are_deterministic_given_the_bug_order(make_rollout):
    bugs = [_bug(make_rollout, f"s:{k % 3}", policy=k) for k in range(7)]
    ids = []
    for _ in range(2):
        archive = BugArchive()
        archive.add(bugs, generation=0, env_steps=0, wall_s=0.0)
        ids.append([(a.id, a.bug.signature, a.bug.policy) for a in archive])
    assert ids[0] == ids[1] == [(0, "s:0", 0), (1, "s:1", 1), (2, "s:2", 2)]


def test_injected_id_comes_from_match(make_rollout):
    calls = []

    def match(bug: Bug) -> int | None:
        calls.append(bug.signature)
        return 4 if bug.signature == "s:a" else None

    archive = BugArchive()
    new = archive.add([_bug(make_rollout, "s:a"), _bug(make_rollout, "s:b"),
                       _bug(make_rollout, "s:a")], generation=1, env_steps=5, wall_s=0.1,
                      match=match)
    assert [x.injected_id for x in new] == [4, None]
    assert calls == ["s:a", "s:b"]  # only new bugs are matched


def test_injected_found_counts_distinct_injected_bugs_not_reports(make_rollout):
    # Two signatures of injected bug 4 (two stuck states in one trap) and a false report.
    archive = BugArchive()
    ids = {"s:a": 4, "s:b": 4, "s:c": None, "s:d": 0}
    archive.add([_bug(make_rollout, s) for s in ids], generation=0, env_steps=1, wall_s=0.0,
                match=lambda b: ids[b.signature])
    assert archive.injected_found() == 2 == injected_found([4, 4, None, 0])
    assert injected_found(np.array([3, 3, 1], dtype=np.int64)) == 2 and injected_found([]) == 0


def test_record_has_exactly_the_documented_keys(make_rollout):
    archive = BugArchive()
    (a,) = archive.add([_bug(make_rollout, "s:a", policy=2, step=2)], generation=1,
                       env_steps=50, wall_s=0.25, match=lambda b: 0)
    rec = to_record(a)
    assert list(rec) == list(RECORD_KEYS)
    assert set(rec) == {
        "id", "kind", "oracle", "signature", "message", "generation", "env_steps", "wall_s",
        "policy", "seed", "step", "actions", "state", "next_state", "injected_id", "reproduced", "from_snapshot", "data"}
    assert rec["reproduced"] is None and rec["from_snapshot"] is None  # no replays asked of the archive
    assert rec["seed"] == 102 and rec["step"] == 2 and rec["actions"] == [0, 1, 2]
    assert rec["state"] == [2.5, 0.5] and rec["next_state"] == [3.5, 0.5]
    assert rec["injected_id"] == 0
    assert json.loads(json.dumps(rec)) == rec
    assert type(rec["data"]["frame_ms"]) is float


def test_jsonl_round_trip_and_ids_continue(make_rollout, tmp_path: Path):
    path = tmp_path / "bugs.jsonl"
    archive = BugArchive()
    append_jsonl(path, archive.add([_bug(make_rollout, "s:a"), _bug(make_rollout, "s:b")],
                                   generation=0, env_steps=10, wall_s=0.5, match=lambda b: 1,
                                   rate=lambda b: Reproduction(7, 10, 380, 3, 10, b"state")))
    append_jsonl(path, archive.add([_bug(make_rollout, "s:c", kind="logic")],
                                   generation=2, env_steps=30, wall_s=2.0))
    assert len(path.read_text().splitlines()) == 3

    restored = BugArchive.from_jsonl(path)
    assert [to_record(a) for a in restored] == [to_record(a) for a in archive]
    assert [a.bug for a in restored] == [a.bug for a in archive]
    assert [a.reproduced for a in restored] == [Reproduction(7, 10, 380, 3, 10)] * 2 + [None]
    first = json.loads(path.read_text().splitlines()[0])
    assert (first["reproduced"], first["from_snapshot"]) == ([7, 10], {"step": 380, "reproduced": [3, 10]})
    new = restored.add([_bug(make_rollout, "s:a"), _bug(make_rollout, "s:d")],
                       generation=3, env_steps=40, wall_s=3.0)
    assert [(x.id, x.bug.signature) for x in new] == [(3, "s:d")]


def test_a_line_cut_by_a_kill_is_skipped_and_overwritten(make_rollout, tmp_path: Path):
    path = tmp_path / "bugs.jsonl"
    archive = BugArchive()
    append_jsonl(path, archive.add([_bug(make_rollout, "s:a")], generation=0, env_steps=0,
                                   wall_s=0.0))
    with open(path, "a") as f:
        f.write('{"id": 1, "kind": "cra')  # killed mid-write
    restored = BugArchive.from_jsonl(path)
    assert len(restored) == 1
    append_jsonl(path, restored.add([_bug(make_rollout, "s:b")], generation=1, env_steps=1,
                                    wall_s=1.0))
    assert [a.bug.signature for a in BugArchive.from_jsonl(path)] == ["s:a", "s:b"]
