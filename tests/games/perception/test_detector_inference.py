"""The detector runs a folded, channels-last copy of its network on uint8 frames: the
model's map and the same boxes."""

from __future__ import annotations

import numpy as np
import torch

from games.perception.detector import CenterNet, CNNDetector, InferenceNet, decode, frames_tensor


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
    net = InferenceNet(model)
    assert not any(isinstance(m, torch.nn.BatchNorm2d) for m in net.modules())
    with torch.inference_mode():
        want = model(frames_tensor(frames))
        got = net(frames)
        again = net(frames[:2])  # a smaller batch reuses the input buffer
    assert got.shape == (3, 15, 20, 8)
    assert torch.allclose(got, want.permute(0, 2, 3, 1), atol=1e-4, rtol=1e-4)
    assert torch.allclose(again, got[:2], atol=1e-5)
    found = CNNDetector(model, ("barrel", "pillar", "stump", "lamp"), threshold=0.02).detect(frames)
    for det, (boxes, types, scores) in zip(found, decode(want, 4, 0.02, (120, 160))):
        assert len(boxes) > 0 and np.array_equal(det.boxes, boxes) and np.array_equal(det.types, types)


def test_decoding_keeps_the_peaks_over_the_threshold_best_first() -> None:
    """Two objects' peaks, a weaker neighbour of one (not a peak), a peak under the threshold."""
    out = np.full((1, 8, 15, 20), -9.0, dtype=np.float32)
    out[0, 4:6] = 0.0  # offsets: the cell's corner
    out[0, 6:8] = np.log(2.0)  # boxes 2 cells (16 px) a side
    out[0, 1, 5, 5], out[0, 1, 5, 6] = 3.0, 2.0  # a pillar and its weaker neighbour
    out[0, 3, 10, 15] = 4.0  # a lamp, the best
    out[0, 0, 2, 2] = -1.0  # a barrel under the threshold (0.27)
    ((boxes, types, scores),) = decode(out, 4, 0.5, (120, 160))
    assert types.tolist() == [3, 1]
    assert boxes.tolist() == [[112, 72, 16, 16], [32, 32, 16, 16]]
    assert np.allclose(scores, 1 / (1 + np.exp(-np.array([4.0, 3.0]))))
    nothing = decode(np.full((2, 8, 15, 20), -9.0, dtype=np.float32), 4, 0.5, (120, 160))
    assert [len(b) for b, _, _ in nothing] == [0, 0]


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
