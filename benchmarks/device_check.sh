#!/usr/bin/env bash
# The GPU checks of issue 30, in one run on a GPU machine, from the repository root:
#
#     OUT=/some/folder bash benchmarks/device_check.sh
#
# python3 must have torch (with CUDA) and this project's packages on PYTHONPATH. Writes six
# files to $OUT, in under 7 minutes (each step has its own time limit, so a slow step cannot
# eat the next one's time):
#   env.txt           the GPU, torch, CPU count, and any package python3 cannot import
#   gpu_tests.log     the GPU tests (every network on cuda equal to the CPU within 1e-4),
#                     then the CPU device tests (a cuda run opens on a machine without a GPU)
#   repro.log         a tiny ppgta_park_novelty run on cpu and on cuda: same bugs, objectives
#                     within 1e-4 (benchmarks/device_repro.py; its exit code at the end)
#   pixel_scale.log   raw park rendering against the engine, workers 16, 4, 8, 2, 1 (in that
#   pixel_scale.csv   order, so a cut keeps the widest), on cpu, cuda and cuda+batched (one
#                     process runs the networks on every copy, rendered in that many processes)
#                     (benchmarks/pixel_scale.py), one row at a time
#   nvidia-smi.txt    the GPU's memory and use just after the scaling runs
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
timeout 90 python3 -m pytest -q -rs -m "not slow" -p no:cacheprovider \
  tests/evo/run/test_device_gpu.py tests/evo/run/test_device.py > "$OUT/gpu_tests.log" 2>&1
echo "exit $? after $((SECONDS - started)) s" >> "$OUT/gpu_tests.log"

# 2. CPU against GPU on a tiny park run: the same bugs, objectives within 1e-4.
timeout 130 python3 benchmarks/device_repro.py --device cuda > "$OUT/repro.log" 2>&1
echo "exit $? after $((SECONDS - started)) s" >> "$OUT/repro.log"

# 3. The scaling table: what is left of 7 minutes, less 10 s for the last lines.
left=$((410 - (SECONDS - started)))
timeout "$left" python3 benchmarks/pixel_scale.py --workers 16,4,8,2,1 --device cpu,cuda,cuda+batched \
  --csv "$OUT/pixel_scale.csv" > "$OUT/pixel_scale.log" 2>&1
echo "exit $? after $((SECONDS - started)) s (limit ${left} s)" >> "$OUT/pixel_scale.log"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
echo "device_check done in $((SECONDS - started)) s"
