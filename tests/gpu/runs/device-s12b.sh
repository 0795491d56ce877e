#!/usr/bin/env bash
# Twelfth session, second run: stage-weights (weight and bias vectors
# copied into shared memory with cp.async at the start, read there past the
# reductions) tested, then measured beside the default, sink-loads=true
# alone and staging without sinking, two passes; layer_norm bf16 under a
# 48-register cap (five CTAs of 256 an SM).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "GPU tests: staged weights"
TILEC_TESTS_TIMEOUT=150 run_gpu_tests 'GpuScheduleTest.WeightsStagedInSharedMemory'
SL=4096x8192,8192x4096,16384x4096
OPS=layer_norm,rms_norm,add_rms_norm
step "norms: default / staged+sunk / sunk / staged, two passes"
for pass in a b; do
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16,f32 --shapes=$SL --csv="$OUT/d_$pass.csv" > /dev/null 2>&1
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16,f32 --shapes=$SL --csv="$OUT/ss_$pass.csv" --schedule="stage-weights=true sink-loads=true" > /dev/null 2>&1
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16,f32 --shapes=$SL --csv="$OUT/s_$pass.csv" --schedule="sink-loads=true" > /dev/null 2>&1
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16,f32 --shapes=$SL --csv="$OUT/w_$pass.csv" --schedule="stage-weights=true" > /dev/null 2>&1
done
timeout 60 "$B/bin/tilec-bench" --ops=layer_norm --dtypes=bf16 --shapes=$SL --csv="$OUT/r48.csv" --schedule="max-registers=48" > /dev/null 2>&1
python3 tests/gpu/ab_table.py default="$OUT/d_a.csv,$OUT/d_b.csv" staged_sunk="$OUT/ss_a.csv,$OUT/ss_b.csv" sunk="$OUT/s_a.csv,$OUT/s_b.csv" staged="$OUT/w_a.csv,$OUT/w_b.csv" regs48="$OUT/r48.csv" | tee "$OUT/ab.txt"
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
