#!/usr/bin/env bash
# Twelfth session, third run: kernels with dynamic shared memory now prefer
# the largest shared-memory carveout (runs s12a and s12b had the driver's
# default). Staged weights and the prefetch ring measured again beside the
# default; streamed rows of 32768 (stream-shared) with the carveout on and
# off (TILEC_SHARED_CARVEOUT=0), two passes. The carveout change was
# reverted after this run (it made the streamed rows slower): the variable
# no longer exists, so both halves of that A/B now get the driver's default.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "GPU tests: schedules (staged weights, stream-shared) and the prefetch ring"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'GpuScheduleTest.*:RowPrefetch/*'
SL=4096x8192,8192x4096,16384x4096
OPS=layer_norm,rms_norm,add_rms_norm,softmax
step "rows of 4096-8192: default / staged+sunk / prefetch=3, two passes"
for pass in a b; do
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16,f32 --shapes=$SL --csv="$OUT/d_$pass.csv" > /dev/null 2>&1
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16,f32 --shapes=$SL --csv="$OUT/ss_$pass.csv" --schedule="stage-weights=true sink-loads=true" > /dev/null 2>&1
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16,f32 --shapes=$SL --csv="$OUT/p3_$pass.csv" --schedule="row-prefetch=3" > /dev/null 2>&1
done
python3 tests/gpu/ab_table.py default="$OUT/d_a.csv,$OUT/d_b.csv" staged_sunk="$OUT/ss_a.csv,$OUT/ss_b.csv" prefetch3="$OUT/p3_a.csv,$OUT/p3_b.csv" | tee "$OUT/ab.txt"
SW=4096x32768,16384x32768
step "rows of 32768 (stream-shared): carveout on / off, two passes"
for pass in a b; do
  timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16 --shapes=$SW --csv="$OUT/won_$pass.csv" > /dev/null 2>&1
  TILEC_SHARED_CARVEOUT=0 timeout 100 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16 --shapes=$SW --csv="$OUT/woff_$pass.csv" > /dev/null 2>&1
done
python3 tests/gpu/ab_table.py carveout="$OUT/won_a.csv,$OUT/won_b.csv" driver_default="$OUT/woff_a.csv,$OUT/woff_b.csv" | tee "$OUT/ab_wide.txt"
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
