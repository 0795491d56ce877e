#!/usr/bin/env bash
# Twelfth session, fifth run: staged weights copied through L1
# (cp.async.ca; runs s12b/s12c bypassed it and queued at the L2 slices that
# hold the weights), tested and measured beside the default, two passes.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "GPU tests: staged weights"
TILEC_TESTS_TIMEOUT=120 run_gpu_tests 'GpuScheduleTest.WeightsStagedInSharedMemory'
SL=4096x8192,8192x4096,16384x4096
OPS=layer_norm,rms_norm,add_rms_norm
step "norms: default / staged+sunk / staged, two passes"
for pass in a b; do
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16,f32 --shapes=$SL --csv="$OUT/d_$pass.csv" > /dev/null 2>&1
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16,f32 --shapes=$SL --csv="$OUT/ss_$pass.csv" --schedule="stage-weights=true sink-loads=true" > /dev/null 2>&1
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16,f32 --shapes=$SL --csv="$OUT/w_$pass.csv" --schedule="stage-weights=true" > /dev/null 2>&1
done
python3 tests/gpu/ab_table.py default="$OUT/d_a.csv,$OUT/d_b.csv" staged_sunk="$OUT/ss_a.csv,$OUT/ss_b.csv" staged="$OUT/w_a.csv,$OUT/w_b.csv" | tee "$OUT/ab.txt"
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
