"""The detector runs a batch-norm-folded, channels-last copy of its network: same outputs."""

from __future__ import annotations

import numpy as np
import torch

from games.vision.detector import CenterNet, CNNDetector, decode, frames_tensor, inference_net


def trained_looking(width: int = 8) -> CenterNet:
    """A small network whose batch norms hold statistics far from the identity (as after
    training), so that folding them wrongly shows."""
    torch.manual_seed(0)  # the convolutions' initial weights
    gen = torch.Generator().manual_seed(0)
    model = CenterNet(4, width)
    for bn in (m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)):
        n = bn.num_features
        bn.running_mean.copy_(torch.randn(n, generator=gen))
        bn.running_var.copy_(torch.rand(n, generator=gen) * 3 + 0.2)
        bn.weight.data.copy_(torch.randn(n, generator=gen))
        bn.bias.data.copy_(torch.randn(n, generator=gen))
    return model.eval()


def test_the_folded_network_computes_the_models_map_and_the_same_boxes() -> None:
    torch.set_num_threads(1)
    model = trained_looking()
    frames = np.random.default_rng(0).integers(0, 256, (3, 3, 120, 160), dtype=np.uint8)
    net = inference_net(model)
    assert not any(isinstance(m, torch.nn.BatchNorm2d) for m in net.modules())
    with torch.inference_mode():
        want = model(frames_tensor(frames))
        got = net(frames_tensor(frames).contiguous(memory_format=torch.channels_last))
    assert torch.allclose(got, want, atol=1e-4, rtol=1e-4)
    found = CNNDetector(model, ("barrel", "pillar", "stump", "lamp"), threshold=0.02).detect(frames)
    for det, (boxes, types, scores) in zip(found, decode(want, 4, 0.02, (120, 160))):
        assert len(boxes) > 0 and np.array_equal(det.boxes, boxes) and np.array_equal(det.types, types)


def test_the_detector_keeps_the_weights_it_was_made_with() -> None:
    model = trained_looking()
    detector = CNNDetector(model, ("barrel", "pillar", "stump", "lamp"), threshold=0.02)
    frames = np.random.default_rng(1).integers(0, 256, (2, 3, 120, 160), dtype=np.uint8)
    before = [d.boxes.copy() for d in detector.detect(frames)]
    assert all(len(b) for b in before)
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(0.0)
    assert all(np.array_equal(a, d.boxes) for a, d in zip(before, detector.detect(frames)))
