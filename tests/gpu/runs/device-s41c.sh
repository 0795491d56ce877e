#!/usr/bin/env bash
# Written in the forty-first session, after run s41b: the f32 kernels
# without reductions now keep one vector of each row input a thread where
# their rows ahead are prefetched (32 bytes a thread; s41b's fastest
# variant, elementwise-elements=4). Checks it:
#  1. GPU tests of the elementwise ops, rope, the schedules and the fuzz
#     test (the new schedule against the reference), into $OUT/ab/;
#  2. A B: f32 silu_mul, elementwise_chain and rope with the defaults
#     against row-l2-prefetch-elementwise-bytes=0 (two vectors of each
#     input, none ahead: the default of s41b), into $OUT/ab/;
#  3. issue 3's f32 grid beside the peers with the rest of TILEC_BUDGET_S
#     (default 400 s), into $OUT/f32/.
set -u
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/tilec-out}
find "$OUT" -mindepth 1 -delete 2>/dev/null
END=$((SECONDS + ${TILEC_BUDGET_S:-400}))
mkdir -p "$OUT/ab" "$OUT/f32"
(
  source tests/gpu/device-setup.sh
  OUT=$OUT/ab TILEC_AB_TIMEOUT=60
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
  TILEC_TESTS_TIMEOUT=120 run_gpu_tests \
    '*silu*:*chain*:*rope*:*lementwise*:GpuScheduleTest.*:GpuFuzzTest.*'
  for o in "" row-l2-prefetch-elementwise-bytes=0; do
    t=$(echo "${o:-default}" | tr ' =' '_-')
    ab_bench "${o:-default}" "$OUT/f32_$t.csv" --ops=elementwise_chain,silu_mul,rope \
      --dtypes=f32 --shapes=4096x4096,4096x8192,16384x4096,4096x14336 --schedule="$o"
  done
  pack_out
) 2>&1 | tail -40
OUT=$OUT/f32 TILEC_BUDGET_S=$((END - SECONDS - 10)) bash tests/gpu/device-grid.sh f32 2>&1 |
  sed -n '/==== table/,$p' | grep -E "targets|silu|chain|MISS"
