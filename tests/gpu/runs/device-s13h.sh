#!/usr/bin/env bash
# Thirteenth session's last build, not yet run (the session's device time
# ran out): its GPU tests in two calls (bash tests/gpu/runs/device-s13h.sh 1|2),
# the first with the new default for many rows of 65537-131072 columns
# (clusters of 4) first, then softmax [4096, 131072] timed (one pass).
# Part 1: the default schedules' suites; part 2: GEMMs, the Welford
# stress suite and the experiments' suites (row loop, prefetch ring).
PART=${1:-1}
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
if [ "$PART" = 1 ]; then
  step "GPU tests, part 1 (new: GpuScheduleTest.ManyWideRowsSplitOverClustersOfFour)"
  TILEC_TESTS_TIMEOUT=420 run_gpu_tests 'GpuScheduleTest.*:GpuRuntimeTest.*:Examples/*:Rows/*:Softmax/*:WideRows/*:DependentLaunch.*:GpuNumericsTest.*:GpuSliceTest.*:Attention.*'
  step "softmax [4096, 131072]"
  timeout 80 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16,f32 --shapes=4096x131072 --csv="$OUT/bench.csv" 2>&1 | tail -3
else
  step "GPU tests, part 2"
  TILEC_TESTS_TIMEOUT=540 run_gpu_tests 'Gemm*:Shapes/*:LayerNorm/*:RowLoop/*:RowPrefetch/*'
fi
pack_out
