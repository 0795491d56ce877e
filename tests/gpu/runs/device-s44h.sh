#!/usr/bin/env bash
# Written in the forty-fourth session for a call that gets an H200 (none
# has come since the thirty-ninth session), the issue's record first,
# within TILEC_BUDGET_S (default 550 s), each part in its own folder:
#  1. probe/: tests/gpu/probes/copy_floor.cu, what the best copy kernel
#     reaches at 64 MB to 1 GB moved on this GPU (the ceiling of the 64 MB
#     shapes, which were at 81-88% of copy here in the thirty-ninth
#     session);
#  2. bf16/: issue 3's bf16 grid beside the peers (device-grid.sh);
#  3. ab/: one wave of clusters with each CTA's own slice ahead of the
#     wait (the default since the forty-third session) against none, 16
#     rows of 131072, bf16 and f32, two passes;
#  4. f32/: the f32 grid beside the peers, with the rest of the budget.
# On an H100 it runs device-s45b.sh instead (the 44 tests of the gemm
# part that run s44b did not reach, and layer_norm's sunk loads A B).
set -u
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/tilec-out}
END=$((SECONDS + ${TILEC_BUDGET_S:-550}))
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
  echo "an H100: device-s45b.sh instead"
  exec bash tests/gpu/runs/device-s45b.sh
fi
find "$OUT" -mindepth 1 -delete 2>/dev/null
mkdir -p "$OUT/probe" "$OUT/bf16" "$OUT/ab" "$OUT/f32"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader |
  tee "$OUT/probe/gpu.txt"
nvcc -arch=sm_90a -O3 -std=c++17 -o /tmp/copy_floor tests/gpu/probes/copy_floor.cu &&
  timeout 90 /tmp/copy_floor 2>&1 | tee "$OUT/probe/copy_floor.txt"
OUT=$OUT/bf16 TILEC_BUDGET_S=$(((END - SECONDS) * 45 / 100)) bash tests/gpu/device-grid.sh bf16 2>&1 |
  sed -n '/==== table/,$p'
(
  OUT=$OUT/ab
  source tests/gpu/device-setup.sh
  TILEC_AB_TIMEOUT=60
  step "one wave of clusters: each CTA's own slice ahead of the wait (new) against none (old)"
  ab_variants cl 2 "--ops=softmax,rms_norm,layer_norm,add_rms_norm --dtypes=bf16,f32 \
    --shapes=16x131072" old=row-l2-prefetch-first=false new=
  pack_out
)
if [ $((END - SECONDS)) -lt 120 ]; then
  echo "f32 grid: not run ($((END - SECONDS)) s left)"
else
  OUT=$OUT/f32 TILEC_BUDGET_S=$((END - SECONDS - 10)) bash tests/gpu/device-grid.sh f32 2>&1 |
    sed -n '/==== table/,$p'
fi
