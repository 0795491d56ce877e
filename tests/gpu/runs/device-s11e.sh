#!/usr/bin/env bash
# Eleventh session, check run: the GPU tests whose expectations moved with
# the cluster slot rule (clusters of 6 for 16 heavy rows; layer_norm back
# to powers of two), the GEMM shapes run zp ran out of time for, and
# layer_norm at the few-row shapes beside clusters of 8 and 4.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "GPU tests"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'GpuScheduleTest.*:Rows/GpuClusterTest.*:Shapes/GemmTest.*'
SF=16x131072,20x131072,32x65536,16x65536
step "layer_norm: default / exactly 8 / exactly 4"
timeout 40 "$B/bin/tilec-bench" --ops=layer_norm --dtypes=bf16,f32 --shapes=$SF --csv="$OUT/d.csv" > /dev/null 2>&1
timeout 40 "$B/bin/tilec-bench" --ops=layer_norm --dtypes=bf16,f32 --shapes=$SF --csv="$OUT/k8.csv" --schedule="row-cluster=8" > /dev/null 2>&1
timeout 40 "$B/bin/tilec-bench" --ops=layer_norm --dtypes=bf16,f32 --shapes=$SF --csv="$OUT/k4.csv" --schedule="row-cluster=4" > /dev/null 2>&1
python3 tests/gpu/ab_table.py default="$OUT/d.csv" k8="$OUT/k8.csv" k4="$OUT/k4.csv" | tee "$OUT/ab.txt"
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
