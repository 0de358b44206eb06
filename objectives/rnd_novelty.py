"""Novelty from pixels: PPGTA's RND ensemble (Section IV-C).

Random Network Distillation (Burda et al. 2019) rewards frames a predictor network cannot yet
match to a fixed random target network's output: frames like the ones it trained on are
familiar. PPGTA extends it against catastrophic forgetting in open worlds: the input is the
frame downsized to 64x64 (and OD-masked, when the ``detect`` wrapper masks the observation),
and N predictors are trained instead of one; the intrinsic reward is the variance of their
predictions (ensemble disagreement), which falls where all of them have learned the target and
stays high where they still disagree.

As in PPGTA, target and predictors are the visual feature extractor (here the frozen
masked-inverse-dynamics encoder, :mod:`games.perception.encoder`) followed by two layers of 512
and 256 units. The extractor is shared and frozen, so the replay buffer of 1024 transitions
keeps each frame's features, and one forward of the extractor and of the stacked ensemble
serves every step of a batch. Where the policies observe that same encoder's features (the
``encode`` wrapper: ``game_spec.obs_encoder`` is its fingerprint), the record's observations
are those features, read instead of encoding the frames again (the encoder gives the same
features whatever the batch, so the scores are the same).

The predictors learn once per generation (``update``) on the buffer, each in its own order
(drawn from the component's seed), with AdamW as PPGTA; predictors, optimizer, buffer and the
update count are the state a resumed run restores, so it scores as the uninterrupted run.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import torch
from pydantic import Field
from torch import nn

from games.core.component import Context
from games.core.base import GameSpec
from games.common.device import torch_device
from games.core.record import Rollout, RolloutBatch
from games.perception.encode_wrapper import FRAME64_KEY
from games.perception.encoder import downscale, encode, fingerprint, load_encoder
from objectives.base import Objective, ObjectiveConfig, register

if TYPE_CHECKING:
    import pandas as pd

HIDDEN, OUT = 512, 256
"""PPGTA: the target and the predictors are the extractor followed by MLP layers of 512 and 256."""


class RndNoveltyConfig(ObjectiveConfig):
    """Options of the RND-ensemble novelty objective."""

    source: Literal["auto", "obs", "frame64", "features"] = Field(
        "auto", description="What it reads: obs (the observation is uint8 RGB frames, raw or "
        "masked by detect), frame64 (info.frame64, which the encode wrapper publishes when "
        "policies observe features), features (the observations are the encode wrapper's "
        "features from this objective's own encoder: read, not computed again), or auto "
        "(features when they are, else obs when the observation is frames, else frame64).",
    )
    members: int = Field(5, ge=2, description="Predictors in the ensemble (PPGTA's N).")
    buffer: int = Field(1024, ge=1, description="Replay buffer size in transitions (PPGTA: 1024).")
    epochs: int = Field(4, ge=1, description="Passes over the buffer per update (one update per generation).")
    batch_size: int = Field(128, ge=1, description="Transitions per predictor per gradient step.")
    lr: float = Field(1e-3, gt=0, description="AdamW learning rate of the predictors.")
    encoder: str | None = Field(
        None, description="Weights of the frozen feature extractor; null for the shipped "
        "games/perception/weights/encoder.pt.",
    )


class MLPEnsemble(nn.Module):
    """``members`` two-layer MLPs (ReLU between) as stacked weights: one call runs them all.

    Args:
        members: MLPs in the stack.
        d_in: Input size.
        generator: Draws the initial weights (``nn.Linear``'s uniform(-1/sqrt(fan_in), ...)).
    """

    def __init__(self, members: int, d_in: int, generator: torch.Generator) -> None:
        super().__init__()

        def uniform(shape: tuple[int, ...], fan_in: int) -> nn.Parameter:
            return nn.Parameter((torch.rand(shape, generator=generator) * 2 - 1) / math.sqrt(fan_in))

        self.w1 = uniform((members, d_in, HIDDEN), d_in)
        self.b1 = uniform((members, HIDDEN), d_in)
        self.w2 = uniform((members, HIDDEN, OUT), HIDDEN)
        self.b2 = uniform((members, OUT), HIDDEN)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Every member on the same inputs ``[N, D]`` -> ``[members, N, OUT]`` (the first
        layer of all members is one matrix product)."""
        m, d, h = self.w1.shape
        hidden = torch.relu(x @ self.w1.permute(1, 0, 2).reshape(d, m * h) + self.b1.reshape(-1))
        return torch.baddbmm(self.b2[:, None], hidden.view(-1, m, h).transpose(0, 1), self.w2)

    def forward_each(self, x: torch.Tensor) -> torch.Tensor:
        """Each member on its own inputs ``[members, B, D]`` -> ``[members, B, OUT]``."""
        hidden = torch.relu(torch.baddbmm(self.b1[:, None], x, self.w1))
        return torch.baddbmm(self.b2[:, None], hidden, self.w2)


@register("rnd_novelty", RndNoveltyConfig)
class RndNovelty(Objective):
    """Ensemble disagreement on the frames a policy saw (larger is better).

    ``score``: the novelty of every step of the policy's episodes, summed. ``step_rewards``:
    each step's novelty (the frame after the step), the dense reward of fine-tuning.
    """

    name = "rnd_novelty"
    sense: Literal["max", "min"] = "max"
    rescores_parents = True
    """Its scores fall as the predictors learn the frames seen, so a survivor's old score would
    outrank every child scored later (measured: the first generation's eight policies kept the
    population for a whole run): the loop scores the parents again with the children."""
    scores_on_threads = True
    """A score is the ensemble's forward over the policy's steps: it reads the predictors and
    frees the GIL in its matrix products."""

    def __init__(self, spec: GameSpec, config: RndNoveltyConfig, context: Context) -> None:
        self.spec = spec
        self.config = config
        self.backbone = load_encoder(config.encoder)
        self.backbone_id = fingerprint(self.backbone)
        self.source = _resolve_source(spec, config.source, self.backbone_id)
        self.requires = frozenset({f"info.{FRAME64_KEY}"} if self.source == "frame64" else {"obs"})
        self.seed = int(context.seed)
        self.device = torch_device(context.device)
        d = self.backbone.features
        gen = torch.Generator().manual_seed(self.seed)
        self.target = MLPEnsemble(1, d, gen).requires_grad_(False).to(self.device)
        self.predictors = MLPEnsemble(config.members, d, gen).to(self.device)
        self.optimizer = torch.optim.AdamW(self.predictors.parameters(), lr=config.lr)
        self.memory = torch.zeros((config.buffer, d), dtype=torch.float32, device=self.device)
        """The replay buffer: features of the last ``buffer`` transitions' frames (a ring)."""
        self.filled = 0
        self.cursor = 0
        self.updates = 0
        self.last_loss = float("nan")
        self.history: list[dict[str, float]] = []
        """One row per update: the generation's frames, how novel its sample was before
        training, the predictors' loss after (the table ``rnd_novelty.csv``)."""

    # ------------------------------------------------------------------ frames
    def _frames(self, obs: np.ndarray | None, info: dict[str, np.ndarray], valid: np.ndarray) -> np.ndarray:
        """``[K, 3, 64, 64]`` uint8: the frame after each valid step (``valid [N, T]``), for
        the sources that read frames."""
        if self.source == "obs":
            if obs is None:
                raise ValueError("rnd_novelty with source obs got a record without observations")
            after = obs[:, 1:][valid]
            if after.shape[0] == 0:
                return np.zeros((0, 3, 64, 64), dtype=np.uint8)
            return downscale(after.reshape(-1, *self.spec.obs_shape))
        column = info.get(FRAME64_KEY)
        if column is None or column.dtype != object:
            raise ValueError(f"rnd_novelty reads info.{FRAME64_KEY}, which the encode wrapper publishes: "
                             "add game.wrappers: [{name: encode}] or set source: obs")
        picked = column[valid]
        if picked.size == 0:
            return np.zeros((0, 3, 64, 64), dtype=np.uint8)
        return np.stack(picked)

    def _inputs(self, obs: np.ndarray | None, info: dict[str, np.ndarray], valid: np.ndarray) -> torch.Tensor:
        """``[K, D]`` the backbone's features of the frame after each valid step: read from
        the observations where they are those features (source ``features``), else encoded."""
        if self.source != "features":
            return self._features(self._frames(obs, info, valid))
        if obs is None:
            raise ValueError("rnd_novelty with source features got a record without observations")
        after = obs[:, 1:][valid].reshape(-1, self.backbone.features)
        return torch.from_numpy(np.ascontiguousarray(after, dtype=np.float32)).to(self.device)

    def _features(self, frames: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(encode(self.backbone, frames, device=str(self.device))).to(self.device)

    def novelty(self, frames: np.ndarray) -> np.ndarray:
        """``[K, 3, 64, 64]`` uint8 frames -> ``[K]`` float64 ensemble variance (the mean over
        the output units of the predictors' variance)."""
        return self._novelty(self._features(frames))

    def _novelty(self, features: torch.Tensor, batch: int = 4096) -> np.ndarray:
        """:meth:`novelty` of the frames with these features, in batched forwards. The
        variance is written out (deviations from the members' mean, squared, averaged):
        ``torch.var`` over 5 members took 13 ms for a 126-step episode, this 0.7 ms."""
        out = np.zeros(features.shape[0], dtype=np.float64)
        with torch.inference_mode():
            for a in range(0, features.shape[0], batch):
                preds = self.predictors(features[a:a + batch])
                spread = preds - preds.mean(dim=0, keepdim=True)
                out[a:a + batch] = spread.square_().mean(dim=(0, 2)).double().cpu().numpy()
        return out

    # ------------------------------------------------------------------ objective
    def score(self, rollouts: RolloutBatch) -> float:
        if not len(rollouts):
            return 0.0
        return float(self._novelty(self._inputs(rollouts.obs, rollouts.info, rollouts.valid)).sum())

    def step_rewards(self, rollout: Rollout) -> np.ndarray:
        valid = np.ones((1, rollout.length), dtype=bool)
        obs = None if rollout.obs is None else rollout.obs[None]
        info = {k: v[None] for k, v in rollout.info.items()}
        return self._novelty(self._inputs(obs, info, valid))

    def update(self, rollouts: RolloutBatch) -> None:
        """Put a sample of the generation's frames in the buffer (as many as it holds, drawn
        from the component's seed), then train the predictors ``epochs`` passes over it."""
        rng = np.random.default_rng([self.seed, self.updates])
        self.updates += 1
        if not len(rollouts):
            return
        features = self._inputs(rollouts.obs, rollouts.info, rollouts.valid)
        if features.shape[0] > self.config.buffer:
            rows = np.sort(rng.choice(features.shape[0], self.config.buffer, replace=False))
            features = features[torch.from_numpy(rows).to(features.device)]
        novel = float(self._novelty(features).mean()) if features.shape[0] else float("nan")
        if features.shape[0]:
            self._remember(features)
        self._train(rng)
        self.history.append({"update": self.updates, "frames": int(rollouts.valid.sum()), "buffer": self.filled,
                             "novelty_before": novel, "loss_after": self.last_loss})

    def _remember(self, features: torch.Tensor) -> None:
        size = self.memory.shape[0]
        slots = (self.cursor + torch.arange(features.shape[0])) % size
        self.memory[slots.to(self.device)] = features
        self.cursor = int((self.cursor + features.shape[0]) % size)
        self.filled = min(self.filled + features.shape[0], size)

    def _train(self, rng: np.random.Generator) -> None:
        if not self.filled:
            return
        seen = self.memory[: self.filled]
        with torch.no_grad():
            target = self.target(seen)[0]
        members, batch = self.config.members, min(self.config.batch_size, self.filled)
        losses = []
        for _ in range(self.config.epochs):
            # Each predictor its own order: the ensemble's members see different batches.
            order = np.stack([rng.permutation(self.filled) for _ in range(members)])
            for a in range(0, self.filled - batch + 1, batch):
                rows = torch.from_numpy(order[:, a:a + batch]).to(self.device)
                loss = ((self.predictors.forward_each(seen[rows]) - target[rows]) ** 2).mean(dim=(1, 2)).sum()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                losses.append(float(loss.detach()) / members)
        self.last_loss = float(np.mean(losses))

    # ------------------------------------------------------------------ state
    def state_dict(self) -> dict[str, Any]:
        opt = self.optimizer.state_dict()
        return {
            "backbone": self.backbone_id,
            "predictors": {k: v.detach().cpu().clone() for k, v in self.predictors.state_dict().items()},
            "optimizer": {"state": [{k: (v.clone() if torch.is_tensor(v) else v) for k, v in opt["state"][i].items()}
                                    for i in sorted(opt["state"])],
                          "param_groups": [{k: (list(v) if isinstance(v, tuple) else v) for k, v in g.items()}
                                           for g in opt["param_groups"]]},
            "memory": self.memory[: self.filled].detach().cpu().clone(),
            "cursor": self.cursor,
            "updates": self.updates,
            "history": [dict(row) for row in self.history],
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state["backbone"] != self.backbone_id:
            raise ValueError(f"rnd_novelty: the checkpoint was trained on encoder {state['backbone']}, "
                             f"this run loads encoder {self.backbone_id} (set encoder: to the same weights)")
        self.predictors.load_state_dict({k: torch.as_tensor(v).to(self.device) for k, v in state["predictors"].items()})
        opt = state["optimizer"]
        self.optimizer.load_state_dict({"state": dict(enumerate(opt["state"])), "param_groups": opt["param_groups"]})
        memory = torch.as_tensor(state["memory"]).to(self.device)
        self.memory.zero_()
        self.memory[: memory.shape[0]] = memory
        self.filled = int(memory.shape[0])
        self.cursor = int(state["cursor"])
        self.updates = int(state["updates"])
        self.history = [dict(row) for row in state.get("history", [])]

    def tables(self) -> dict[str, "pd.DataFrame"]:
        """``rnd_novelty.csv``: per generation, how novel its frames were and the loss after
        the predictors trained on them."""
        import pandas as pd

        return {"rnd_novelty": pd.DataFrame(self.history, columns=["update", "frames", "buffer", "novelty_before",
                                                                    "loss_after"])}


def _resolve_source(spec: GameSpec, source: str, backbone_id: str) -> str:
    """``auto`` made concrete; ``obs`` only for uint8 RGB frame observations, ``features``
    only for the features of this objective's own encoder."""
    frames = len(spec.obs_shape) == 3 and spec.obs_shape[0] == 3 and spec.obs_dtype == "uint8"
    if source == "auto":
        return "features" if spec.obs_encoder == backbone_id else "obs" if frames else "frame64"
    if source == "obs" and not frames:
        raise ValueError(f"rnd_novelty source obs needs uint8 RGB frame observations (3, H, W), this game "
                         f"observes {spec.obs_dtype} {tuple(spec.obs_shape)}; use source: frame64 with the encode wrapper")
    if source == "features" and spec.obs_encoder != backbone_id:
        made = f"encoder {spec.obs_encoder}" if spec.obs_encoder else "no encoder"
        raise ValueError(f"rnd_novelty source features needs observations made by its own encoder "
                         f"{backbone_id} (the encode wrapper with the same weights), this game's are made by {made}")
    return source
