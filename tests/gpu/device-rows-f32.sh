#!/usr/bin/env bash
# Short device check of the 1024-thread rule for rows of 64 values a thread:
# the GPU tests of f32 row ops and layer_norm's pair, then f32 [4096, 32768]
# and [2048, 32768] and the bf16 norms at the issue's shapes.
source "$(dirname "$0")/device-setup.sh"
step "GPU tests (f32 rows, Welford)"
TILEC_TESTS_TIMEOUT=${TILEC_TESTS_TIMEOUT:-150} run_gpu_tests 'WideRows/*:LayerNorm/GpuWelfordTest.*:Examples/GpuOpsTest.*_f32_*'
step "rows"
timeout 90 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm,add_rms_norm,softmax --dtypes=f32 --shapes=4096x32768,2048x32768 --csv="$OUT/rows_f32.csv" 2>&1 | tail -n +3
timeout 90 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm --dtypes=bf16,f32 --shapes=8192x4096,4096x8192 --csv="$OUT/rows_norms.csv" 2>&1 | tail -n +3
step "summary (GPU tests rc=$tests_rc)"
grep -E "PASSED|FAILED|tests ran" "$OUT/gpu_tests.log" | tail -4
pack_out
