#!/usr/bin/env bash
# Fourteenth session, last run (115 s of device time left): recompute-exp=auto
# now folds the division by the sum too (the row-scalars=auto kernel run
# s14g timed): its GPU test, and softmax bf16 [4096, 131072] once.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
TILEC_TESTS_TIMEOUT=40 run_gpu_tests 'GpuScheduleTest.SoftmaxExpsMadeAgainPastTheReduction'
timeout 20 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=4096x131072 --csv="$OUT/bench.csv" 2>&1 | tail -2
pack_out
