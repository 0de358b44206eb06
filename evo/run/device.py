"""An experiment's ``device`` on this machine: required where a run starts, a fallback to the
CPU where a finished run is opened.

A run made with ``device: cuda`` writes ``cuda`` into its ``config.yaml``. Starting (or
resuming) it needs the GPU: :func:`check_runnable` refuses it in one line where torch sees
none. Replaying, reporting, evaluating or filming it does not: :func:`on_this_machine` gives
the same experiment on the CPU and says so in one line, since a network's results on the CPU
equal the GPU's within floating-point tolerance (docs/guides/devices.md).
"""

from __future__ import annotations

import logging

from evo.run.config import Experiment
from evo.run.user_paths import ConfigError
from games.common.device import CPU, unavailable

log = logging.getLogger(__name__)


def check_runnable(exp: Experiment) -> None:
    """Refuse to start a run whose device this machine does not have.

    Raises:
        ConfigError: ``device: ...`` and why, one line.
    """
    why = unavailable(exp.device)
    if why is not None:
        raise ConfigError(f"device: {why}")


def on_this_machine(exp: Experiment) -> Experiment:
    """``exp`` itself where its device is here, else the same experiment on the CPU (with one
    line on the log saying so): what opening a finished run plays on."""
    why = unavailable(exp.device)
    if why is None:
        return exp
    log.warning("device: the run was made on %s; torch sees no such device here, so it plays on cpu "
                "(results equal within floating-point tolerance)", exp.device)
    return exp.model_copy(update={"device": CPU})
