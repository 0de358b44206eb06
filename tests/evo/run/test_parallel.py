"""Parallel backends: every backend gives the serial run's results, a dead worker is retried.

Ray and Dask are optional extras (``pip install -e ".[ray]"``, ``".[dask]"``); their tests
are skipped only where the extra is not installed, and CI installs both. Each cluster starts
once per module, on 127.0.0.1 only.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator
from unittest import mock

import numpy as np
import pandas as pd
import pytest
import torch

from evo.run.config import parse_experiment
from evo.run.chunks import chunks
from evo.run.parallel import Executor, ParallelConfig
from evo.run.kinds.evolve import Evolve
from tests.evo.run.test_loop import comparable_bugs, comparable_generations


def run(config: dict[str, Any], parallel: dict[str, Any], out: Path) -> Path:
    config = {**config, "parallel": parallel}
    Evolve(parse_experiment(config), out).run()
    return out


def assert_same_run(a: Path, b: Path) -> None:
    pd.testing.assert_frame_equal(comparable_generations(a), comparable_generations(b))
    pd.testing.assert_frame_equal(comparable_bugs(a), comparable_bugs(b))


def torch_threads(_: int) -> int:
    return torch.get_num_threads()


# ------------------------------------------------------------------------------ chunks
def test_chunks_cut_the_population_into_near_equal_contiguous_parts() -> None:
    assert chunks(10, 3) == [slice(0, 3), slice(3, 7), slice(7, 10)]
    assert chunks(2, 5) == [slice(0, 1), slice(1, 2)]  # never an empty chunk
    assert chunks(0, 3) == []
    for n in range(1, 25):
        for parts in range(1, 8):
            cut = chunks(n, parts)
            assert [i for c in cut for i in range(n)[c]] == list(range(n))
            assert len(cut) == min(n, parts)
            sizes = [c.stop - c.start for c in cut]
            assert max(sizes) - min(sizes) <= 1


# ------------------------------------------------------------------------------ runs
@pytest.fixture(scope="module")
def serial_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny experiment (A2C fine-tuning on), played in this process."""
    from tests.conftest import TINY

    return run(TINY, {"backend": "serial"}, tmp_path_factory.mktemp("serial") / "run")


@pytest.mark.parametrize("n_jobs", [2, 3])
def test_loky_gives_the_serial_results_with_any_number_of_workers(
    tiny_config, serial_run: Path, tmp_path: Path, n_jobs: int
) -> None:
    assert_same_run(serial_run, run(tiny_config, {"backend": "loky", "n_jobs": n_jobs}, tmp_path / "run"))


def dying_game(config: dict[str, Any], marker: Path) -> dict[str, Any]:
    """The tiny experiment on a game that kills the process hosting it, once: the worker's,
    since it runs in-process (isolated, it would kill only its own copy's process). Its rates
    are not asked for: bug_replays auto would play it first in the run's own process (the
    engine's process, which a game with isolated false may stop), not in a worker."""
    game = {"fault": "raise", "at_position": 2, "die_once_marker": str(marker)}
    return {
        **config,
        "game": {"entry_point": "tests.games.faulty_envs:LineWalk", "kwargs": game, "isolated": False},
        "oracles": [{"name": "crash"}],
        "bug_replays": 0,
    }


def assert_worker_death_is_survived(config: dict[str, Any], parallel: dict[str, Any], tmp_path: Path) -> None:
    """A run whose worker dies mid-evaluation ends as a serial run where nothing dies."""
    marker = tmp_path / "died"
    config = dying_game(config, marker)
    killed = run(config, parallel, tmp_path / "killed")
    assert marker.exists()  # a worker really died
    calm = run(config, {"backend": "serial"}, tmp_path / "serial")  # the marker is there now
    assert_same_run(calm, killed)
    assert len(comparable_bugs(killed)) == 1  # the game's crash bug, found once


def test_loky_runs_the_call_again_when_a_worker_dies(tiny_config, tmp_path: Path, caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="evo.run.parallel"):
        assert_worker_death_is_survived(tiny_config, {"backend": "loky", "n_jobs": 2}, tmp_path)
    assert "a worker died (TerminatedWorkerError)" in caplog.text


def test_workers_use_the_experiments_torch_threads() -> None:
    for threads in (2, 1):
        with Executor(ParallelConfig(backend="loky", n_jobs=2), torch_threads=threads) as executor:
            assert executor.map(torch_threads, [0, 1]) == [threads, threads]


_HELD: list[Any] = []


def grow_then_pid(megabytes: int) -> int:
    """Hold ``megabytes`` more of resident memory in this worker for good, then its pid. A
    growth is held past loky's check, which looks at most once a second; a light task takes
    long enough that every worker gets one."""
    if megabytes:
        _HELD.append(np.ones(megabytes << 20, dtype=np.uint8))
    time.sleep(1.2 if megabytes else 0.3)
    return os.getpid()


def test_a_loky_worker_that_grows_by_design_is_kept_with_its_games() -> None:
    # Loky took 300 MB of growth after a worker's first task for a leak and replaced the
    # worker (and so its cached games): a Gymnasium game's fine-tuning grew a worker so.
    with Executor(ParallelConfig(backend="loky", n_jobs=2)) as executor:
        workers = set(executor.map(grow_then_pid, [0] * 4))
        assert len(workers) == 2 and os.getpid() not in workers
        assert set(executor.map(grow_then_pid, [400, 400])) <= workers
        assert set(executor.map(grow_then_pid, [0] * 4)) == workers


# ------------------------------------------------------------------------------ ray
@dataclass(frozen=True)
class RayHead:
    gcs: str  # what a driver on a cluster node connects to
    client: str  # ray://, what a driver anywhere else connects to


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ray_head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RayHead]:
    """A Ray head node with 2 CPUs and a client server, on 127.0.0.1, as ``ray start`` makes it."""
    pytest.importorskip("ray")
    pytest.importorskip("grpc")  # ray[client], for ray:// addresses
    from ray._private import ray_constants

    port, client_port = free_port(), free_port()
    env = {
        **os.environ,
        # Ray turns 127.0.0.1 into the machine's outward address unless clusters are off, both
        # when it starts a node and when a driver connects to one (see evo.run.parallel).
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
        "RAY_AUTH_MODE": "disabled",
        # The Ray Client proxier forks a server per client; with gRPC's fork handlers on, the
        # child sometimes aborts (ray-project/ray#63202): 2 of 4 connections here, 0 of 11 off.
        "GRPC_ENABLE_FORK_SUPPORT": "0",
        "PYTHONPATH": os.pathsep.join(sys.path),  # workers import the engine and these tests
    }
    log = (tmp_path_factory.mktemp("ray") / "head.log").open("w")
    head = subprocess.Popen(
        [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block",
         "--node-ip-address=127.0.0.1", f"--port={port}", f"--ray-client-server-port={client_port}",
         "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while socket.socket().connect_ex(("127.0.0.1", client_port)) != 0:
            assert head.poll() is None and time.monotonic() < deadline, "the Ray head did not start"
            time.sleep(0.2)
        with mock.patch.object(ray_constants, "ENABLE_RAY_CLUSTER", False):
            yield RayHead(f"127.0.0.1:{port}", f"ray://127.0.0.1:{client_port}")
    finally:
        os.killpg(head.pid, signal.SIGKILL)  # the head, and every process it started
        head.wait()
        log.close()


def test_ray_cluster_workers_render_in_processes_of_their_own(tiny_config, serial_run: Path, ray_head: RayHead,
                                                            tmp_path: Path) -> None:
    """Sample Factory's shape on each node of a cluster: a worker's copies render in processes
    it starts there, and the run is the serial one (on a cluster over ``ray://``; a run over
    the head's own address, whose copies render where they play, is the serial one too in
    :func:`test_ray_runs_the_call_again_when_a_worker_dies`)."""
    parallel = {"backend": "ray", "n_jobs": 2, "address": ray_head.client, "render_processes": 2}
    assert_same_run(serial_run, run(tiny_config, parallel, tmp_path / "run"))


def test_ray_runs_the_call_again_when_a_worker_dies(tiny_config, ray_head: RayHead, tmp_path: Path, caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="evo.run.parallel"):
        assert_worker_death_is_survived(tiny_config, {"backend": "ray", "n_jobs": 2, "address": ray_head.gcs}, tmp_path)
    assert "a worker died (ActorDiedError)" in caplog.text


def test_ray_without_address_starts_a_local_instance_on_loopback() -> None:
    ray = pytest.importorskip("ray")
    with Executor(ParallelConfig(backend="ray", n_jobs=2), torch_threads=1) as executor:
        assert ray.get_runtime_context().gcs_address.startswith("127.0.0.1:")
        assert executor.map(torch_threads, [0, 1]) == [1, 1]
    assert not ray.is_initialized()


# ------------------------------------------------------------------------------ dask
@pytest.fixture(scope="module")
def dask_scheduler() -> Iterator[str]:
    """The address of a Dask scheduler with 2 single-thread worker processes on 127.0.0.1."""
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    with LocalCluster(
        host="127.0.0.1", n_workers=2, threads_per_worker=1, processes=True,
        dashboard_address=None, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
    ) as cluster:
        yield cluster.scheduler_address


def test_dask_cluster_workers_render_in_processes_of_their_own(tiny_config, serial_run: Path, dask_scheduler: str,
                                                             tmp_path: Path) -> None:
    """As on Ray; copies that render where they play give the serial run in
    :func:`test_dask_runs_a_task_again_when_its_worker_dies`."""
    parallel = {"backend": "dask", "n_jobs": 2, "address": dask_scheduler, "render_processes": 2}
    assert_same_run(serial_run, run(tiny_config, parallel, tmp_path / "run"))


def test_dask_runs_a_task_again_when_its_worker_dies(tiny_config, dask_scheduler: str, tmp_path: Path) -> None:
    # The scheduler itself gives the task to another worker: the call does not fail.
    assert_worker_death_is_survived(tiny_config, {"backend": "dask", "n_jobs": 2, "address": dask_scheduler}, tmp_path)


def test_dask_runs_the_call_again_when_the_scheduler_gives_up(tiny_config, tmp_path: Path, caplog) -> None:
    # With no failure allowed, the scheduler fails the task (KilledWorker) at the first death;
    # a local cluster, started by the executor, so that it reads this setting.
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with caplog.at_level(logging.WARNING, logger="evo.run.parallel"):
            assert_worker_death_is_survived(tiny_config, {"backend": "dask", "n_jobs": 2}, tmp_path)
    assert "a worker died (KilledWorker)" in caplog.text


def test_an_experiment_rendered_in_processes_finds_what_it_finds_in_one(tiny_config) -> None:
    """The tiny Wuji run, its copies in two processes, in this process and in each of two
    loky workers (whose spawned children once died setting up loky's start method): the
    same generations, bit for bit."""
    import tempfile
    from pathlib import Path

    import pandas as pd

    from evo.run.config import parse_experiment
    from evo.run.kinds.evolve import Evolve

    tables = []
    for parallel in ({"backend": "serial"}, {"backend": "serial", "render_processes": 2},
                     {"backend": "loky", "n_jobs": 2, "render_processes": 2}):
        tiny_config["parallel"] = parallel
        tiny_config["budget"] = {"generations": 2}
        out = Path(tempfile.mkdtemp()) / "run"
        Evolve(parse_experiment(tiny_config), out).run()
        gens = pd.read_csv(out / "generations.csv")
        tables.append(gens[[c for c in gens.columns if not c.endswith("_s") and "rss" not in c]])
    assert tables[0].equals(tables[1]) and tables[0].equals(tables[2]) and tables[0]["bugs_total"].iloc[-1] > 0


def _lane_of(task: int) -> tuple[int, int]:
    from evo.search.game_cache import current_lane

    if task == 0:
        time.sleep(0.2)  # the other lane is done by now: its error waits for this one
        _FINISHED.append(task)
    elif task == 3:
        raise ValueError("task 3 failed")
    return task, current_lane()


_FINISHED: list[int] = []


def test_the_serial_backend_plays_in_two_lanes_where_the_game_renders_in_processes() -> None:
    """One lane computes while the other's frames render: tasks alternate between two lanes,
    results come back in task order, and an error waits for the other lane to finish."""
    config = ParallelConfig(backend="serial", render_processes=4)
    assert (config.lanes, config.game_render_processes) == (2, 2)
    assert ParallelConfig(backend="serial").game_render_processes == 0  # in this process
    assert ParallelConfig(backend="loky", n_jobs=2, render_processes=4).lanes == 1
    with Executor(config) as executor:
        assert executor.parts == 2
        assert executor.map(_lane_of, [0, 1, 2, 4]) == [(0, 0), (1, 1), (2, 0), (4, 1)]
        _FINISHED.clear()
        with pytest.raises(ValueError, match="task 3 failed"):
            executor.map(_lane_of, [0, 3])
        assert _FINISHED == [0]
