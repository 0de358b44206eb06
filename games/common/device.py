"""Which torch device a network runs on: ``cpu``, ``cuda`` or ``cuda:N``.

An experiment's ``device`` is read in two steps. Its spelling is checked wherever the YAML is
parsed (:func:`check_spelling`), on any machine. Whether this machine has it is checked only
where a network is put on it (:func:`torch_device`), so that a run made on a GPU machine
still opens, replays and reports on one without a GPU (:func:`runnable_here` says whether
it would run here as it was made).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

CPU = "cpu"


def check_spelling(device: str) -> str:
    """``device`` itself when it is ``cpu``, ``cuda`` or ``cuda:N``.

    Raises:
        ValueError: any other string, one line naming what was expected.
    """
    kind, colon, index = device.partition(":")
    if kind not in (CPU, "cuda") or (colon and (kind == CPU or not index.isdigit())):
        raise ValueError(f"expected cpu, cuda or cuda:N, got {device!r}")
    return device


def unavailable(device: str) -> str | None:
    """Why this machine cannot run ``device`` (one line), or None where it can."""
    kind, _, index = check_spelling(device).partition(":")
    if kind == CPU:
        return None
    import torch  # here: games that use no network never load it

    if not torch.cuda.is_available():
        return f"{device} requested but torch sees no CUDA device here; use cpu"
    if index and int(index) >= torch.cuda.device_count():
        return f"{device} requested but there are {torch.cuda.device_count()} CUDA devices here"
    return None


def runnable_here(device: str) -> bool:
    """Whether networks can be put on ``device`` on this machine."""
    return unavailable(device) is None


def torch_device(device: str) -> "torch.device":
    """The ``torch.device`` a network of this experiment runs on.

    Raises:
        ValueError: a misspelt device, or one this machine does not have (one line).
    """
    why = unavailable(device)
    if why is not None:
        raise ValueError(why)
    import torch

    if device != CPU:
        # fp32 convolutions and matrix products, not TF32 (10 bits of mantissa, cuDNN's
        # default for convolutions): what keeps a GPU run within 1e-4 of the CPU's.
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    return torch.device(device)
