#!/usr/bin/env bash
# Fourteenth session, sixth run: recompute-exp=auto, the new default for
# many bf16 rows of 128k in clusters of 4 under fast math (the packed row
# across the reduction, the exps made again past it with ex2.approx.ftz:
# 64 registers, two CTAs an SM, the rest of the kernel IEEE). Against
# recompute-exp=false (the thirteenth session's kernel), two passes, at
# 4096, 1024 and 264 rows; then its GPU tests.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
SH=4096x131072,1024x131072,264x131072
for pass in a b; do
  for v in auto off; do
    [ "$v" = off ] && S="recompute-exp=false" || S=
    timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=$SH --schedule="$S" \
      --csv="$OUT/${v}_$pass.csv" > /dev/null 2>&1 || echo "$v $pass failed"
  done
done
python3 tests/gpu/ab_table.py auto="$OUT/auto_a.csv,$OUT/auto_b.csv" off="$OUT/off_a.csv,$OUT/off_b.csv" | tee "$OUT/ab.txt"
step "GPU tests: recompute-exp, clusters of 4, softmax"
TILEC_TESTS_TIMEOUT=${TILEC_TESTS_TIMEOUT:-150} run_gpu_tests 'GpuScheduleTest.SoftmaxExpsMadeAgainPastTheReduction:GpuScheduleTest.ManyWideRowsSplitOverClustersOfFour:GpuScheduleTest.ClusterCtasAgreeBitwiseOnTheOnlinePair:Softmax/*'
pack_out
