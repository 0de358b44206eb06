#!/usr/bin/env bash
# The GPU checks of issue 30, in one run on a GPU machine, from the repository root:
#
#     OUT=/some/folder bash benchmarks/device_check.sh
#
# python3 must have torch (with CUDA) and this project's packages on PYTHONPATH. Writes eight
# files to $OUT in at most 9.5 minutes (each step has its own time limit, so a slow step cannot
# eat the next one's time):
#   env.txt           the GPU, torch, CPU count, any package python3 cannot import, and
#                     nvidia-smi just after the scaling runs
#   gpu_tests.log     the GPU tests (every network on cuda equal to the CPU within 1e-4, the mask
#                     and downscale byte for byte) and the tensor path's CPU tests
#   step.log          one process's step in ms, alone and beside others (1x4 ... 16x4: P
#                     processes of C copies): rendering, the networks over replayed frames, and
#                     both; cProfile of 1x16's full step (benchmarks/gpu_step.py)
#   step_mps.log      4x16 and 16x4 again, the processes clients of a CUDA MPS server
#   scale16.log/.csv  raw park rendering against the engine on 16 cores: 16 cpu workers (with
#                     each generation's tail beside the next one's play since 2026-11-28: 27%
#                     of the wall time was between generations on the H200), cuda+batched (one
#                     process computing on the GPU for the copies of 16 render processes, in
#                     two lanes) and cuda+batched4 (four of them, 4 render processes each)
#                     (benchmarks/pixel_scale.py), one row at a time
#   lockstep.log      1, 15 and 16 render processes of 4 park copies stepped in lockstep by one
#                     process, idle or busy 5 ms a step: whether the batched layouts' renderers
#                     (11-12 ms a step on the H100 against 2.7 ms raw) lose their time to the
#                     round trip, to idling between steps, or to a core short (benchmarks/render_lockstep.py)
#   repro.log         a tiny ppgta_park_novelty run on cpu and on cuda at once: same bugs, objectives
#                     within 1e-4 (benchmarks/device_repro.py; its exit code at the end)
#
# The layouts measured on the 2026-11-27 H200 (16 workers cpu and cuda, cuda+batched8, the
# 8-worker rows, frame_work.py) are in docs/measured.md; run pixel_scale.py for them again.
set -u
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
started=$SECONDS

{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version,compute_mode --format=csv 2>&1
  command -v nvidia-cuda-mps-control || echo "no nvidia-cuda-mps-control: step_mps.log will say so"
  nproc; lscpu | grep -E "^(Model name|Thread|Core|Socket|L2|L3)" 2>&1
  python3 -c "import torch, os; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), torch.cuda.device_count(), 'cpus', os.cpu_count())"
  for m in vizdoom pymoo gymnasium pydantic deap yaml pandas joblib rich scipy matplotlib pytest imageio; do
    python3 -c "import $m" 2>/dev/null || echo "missing: $m"
  done
} > "$OUT/env.txt" 2>&1

# 1. The GPU tests (skipped with the reason where torch sees no GPU), and the tensor path's.
timeout 70 python3 -m pytest -q -rs -m "not slow" -p no:cacheprovider tests/evo/run/test_device_gpu.py \
  tests/games/perception/test_device_frames.py > "$OUT/gpu_tests.log" 2>&1
echo "exit $? after $((SECONDS - started)) s" >> "$OUT/gpu_tests.log"

# 2. One process's step, alone and beside others: rendering, the networks over replayed
#    frames, and both, per layout of P processes x C copies (benchmarks/gpu_step.py).
timeout 140 python3 benchmarks/gpu_step.py --device cuda --layouts 1x4,1x16,1x64,4x16,16x4 \
  --steps 100 --profile 1x16 > "$OUT/step.log" 2>&1
echo "exit $? after $((SECONDS - started)) s" >> "$OUT/step.log"
# The same layouts of several processes under a CUDA MPS server of the run's own (stopped at
# its end), where the processes' kernels share the GPU at once instead of taking turns.
timeout -k 10 80 python3 benchmarks/gpu_step.py --device cuda --layouts 4x16,16x4 --steps 100 --mps \
  > "$OUT/step_mps.log" 2>&1
echo "exit $? after $((SECONDS - started)) s" >> "$OUT/step_mps.log"

# 3. The scaling table: 16 cpu workers, one process computing for 16 render processes, and
#    four of them.
timeout 150 python3 benchmarks/pixel_scale.py --workers 16 --device cpu,cuda+batched,cuda+batched4 \
  --csv "$OUT/scale16.csv" > "$OUT/scale16.log" 2>&1
echo "exit $? after $((SECONDS - started)) s" >> "$OUT/scale16.log"
nvidia-smi >> "$OUT/env.txt" 2>&1

# 4. What lockstep costs a render process: 1, 15 (a core left for the caller) and 16 of them.
timeout 45 python3 benchmarks/render_lockstep.py --renderers 1,15,16 --copies 4 --work 0,5 --steps 200 \
  > "$OUT/lockstep.log" 2>&1
echo "exit $? after $((SECONDS - started)) s" >> "$OUT/lockstep.log"

# 5. CPU against GPU on a tiny park run (both at once): the same bugs, objectives within 1e-4.
timeout 85 python3 benchmarks/device_repro.py --device cuda > "$OUT/repro.log" 2>&1
echo "exit $? after $((SECONDS - started)) s" >> "$OUT/repro.log"
echo "device_check done in $((SECONDS - started)) s"
