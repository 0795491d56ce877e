#!/usr/bin/env bash
# Thirteenth session, eighth run: the new default for many rows of
# 65537-131072 columns without a weight (clusters of 4, slices in
# registers): its GPU test, and softmax [4096, 131072] timed (one pass).
source "$(dirname "$0")/device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "GPU tests: many wide rows in clusters of 4"
TILEC_TESTS_TIMEOUT=60 run_gpu_tests 'GpuScheduleTest.ManyWideRowsSplitOverClustersOfFour'
step "softmax [4096, 131072]"
timeout 80 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16,f32 --shapes=4096x131072 --csv="$OUT/bench.csv" 2>&1 | tail -3
pack_out
