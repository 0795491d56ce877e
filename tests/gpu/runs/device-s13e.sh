#!/usr/bin/env bash
# Thirteenth session, fifth run: layer_norm bf16 rows of 8192 split over a
# cluster of two 128-thread CTAs (row-cluster=2: each CTA holds half a row
# as the [8192, 4096] kernel does, with the weights loaded at the top (79
# registers) or sunk (64)), beside the default, two passes.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
SL=4096x8192,16384x8192
for pass in a b; do
  i=0
  for sched in "" "row-cluster=2" "row-cluster=2 sink-loads=true"; do
    timeout 60 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm --dtypes=bf16 --shapes=$SL \
      --csv="$OUT/v${i}_$pass.csv" --schedule="$sched" > /dev/null 2>&1 || echo "variant $i failed"
    i=$((i + 1))
  done
done
python3 tests/gpu/ab_table.py default="$OUT/v0_a.csv,$OUT/v0_b.csv" cluster2="$OUT/v1_a.csv,$OUT/v1_b.csv" \
  cluster2_sunk="$OUT/v2_a.csv,$OUT/v2_b.csv" | tee "$OUT/ab.txt"
step "GPU tests: outputs in input buffers refused"
TILEC_TESTS_TIMEOUT=60 run_gpu_tests 'GpuRuntimeTest.RefusesOutputsInInputBuffers'
pack_out
