#!/usr/bin/env bash
# The GPU checks of issue 30, in one run on a GPU machine, from the repository root:
#
#     OUT=/some/folder bash benchmarks/device_check.sh
#
# python3 must have torch (with CUDA) and this project's packages on PYTHONPATH. Writes eight
# files to $OUT in under 10 minutes (each step has its own time limit, so a slow step cannot
# eat the next one's time):
#   env.txt           the GPU, torch, CPU count, any package python3 cannot import, and
#                     nvidia-smi just after the scaling runs
#   gpu_tests.log     the GPU tests (every network on cuda equal to the CPU within 1e-4, the mask
#                     and downscale byte for byte), the tensor path's CPU tests, then the CPU
#                     device tests (a cuda run opens on a machine without a GPU)
#   scale16.log/.csv  raw park rendering against the engine on 16 workers: cpu and cuda (16
#                     workers that render and compute, the networks on the CPU or the GPU),
#                     cuda+batchedK (K processes computing on the GPU, each for the copies of
#                     its 16/K render processes) (benchmarks/pixel_scale.py), one row at a time
#   scale8.log/.csv   the same on 8 workers (the scaling curve)
#   frames.log        the OD mask and the 64x64 downscale per step: numpy on the host against
#                     the GPU's tensor forms, upload included (benchmarks/frame_work.py)
#   repro.log         a tiny ppgta_park_novelty run on cpu and on cuda: same bugs, objectives
#                     within 1e-4 (benchmarks/device_repro.py; its exit code at the end)
set -u
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
started=$SECONDS

{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1
  python3 -c "import torch, os; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), torch.cuda.device_count(), 'cpus', os.cpu_count())"
  for m in vizdoom pymoo gymnasium pydantic deap yaml pandas joblib rich scipy matplotlib pytest imageio; do
    python3 -c "import $m" 2>/dev/null || echo "missing: $m"
  done
} > "$OUT/env.txt" 2>&1

# 1. The GPU tests (skipped with the reason where torch sees no GPU), then the CPU fallback.
timeout 80 python3 -m pytest -q -rs -m "not slow" -p no:cacheprovider tests/evo/run/test_device_gpu.py \
  tests/games/vision/test_device_frames.py tests/evo/run/test_device.py > "$OUT/gpu_tests.log" 2>&1
echo "exit $? after $((SECONDS - started)) s" >> "$OUT/gpu_tests.log"

# 2. The scaling tables.
timeout 230 python3 benchmarks/pixel_scale.py --workers 16 --device cpu,cuda,cuda+batched4,cuda+batched8 \
  --csv "$OUT/scale16.csv" > "$OUT/scale16.log" 2>&1
echo "exit $? after $((SECONDS - started)) s" >> "$OUT/scale16.log"
timeout 120 python3 benchmarks/pixel_scale.py --workers 8 --device cpu,cuda,cuda+batched4 \
  --csv "$OUT/scale8.csv" > "$OUT/scale8.log" 2>&1
echo "exit $? after $((SECONDS - started)) s" >> "$OUT/scale8.log"
nvidia-smi >> "$OUT/env.txt" 2>&1

# 3. The mask and the downscale: numpy on the host against the GPU's tensors, per step.
timeout 30 python3 benchmarks/frame_work.py --device cuda > "$OUT/frames.log" 2>&1
echo "exit $? after $((SECONDS - started)) s" >> "$OUT/frames.log"

# 4. CPU against GPU on a tiny park run: the same bugs, objectives within 1e-4.
timeout 110 python3 benchmarks/device_repro.py --device cuda > "$OUT/repro.log" 2>&1
echo "exit $? after $((SECONDS - started)) s" >> "$OUT/repro.log"
echo "device_check done in $((SECONDS - started)) s"
