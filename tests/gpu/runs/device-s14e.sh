#!/usr/bin/env bash
# Fourteenth session, fifth run: softmax bf16 [4096, 131072] (66% of copy
# in clusters of 4: 126 registers, one CTA an SM, its f32 exp tile across
# the cluster reduction). recompute-exp=true keeps the packed row across it
# instead and makes the exps again (90 registers; 64 with
# --flush-subnormals, two CTAs an SM). Variants beside the default, two
# passes, then the new GPU tests (recompute-exp, flushSubnormals).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
SH=4096x131072,64x131072,16x131072
names=(default recompute recompute_ftz default_ftz recompute_c8 recompute_ftz_c8)
scheds=("" "recompute-exp=true" "recompute-exp=true" "" "recompute-exp=true row-cluster=8" "recompute-exp=true row-cluster=8")
flags=("" "" "--flush-subnormals" "--flush-subnormals" "" "--flush-subnormals")
for pass in a b; do
  for i in "${!names[@]}"; do
    timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=$SH ${flags[$i]} \
      --schedule="${scheds[$i]}" --csv="$OUT/${names[$i]}_$pass.csv" > /dev/null 2>&1 || echo "${names[$i]} failed"
  done
done
args=()
for n in "${names[@]}"; do args+=("$n=$OUT/${n}_a.csv,$OUT/${n}_b.csv"); done
python3 tests/gpu/ab_table.py "${args[@]}" | tee "$OUT/ab.txt"
step "GPU tests: recompute-exp, flushSubnormals"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'GpuScheduleTest.SoftmaxExpsMadeAgainPastTheReduction:GpuScheduleTest.FlushedSubnormalsMatchTheReference'
pack_out
