#!/usr/bin/env bash
# Thirteenth session, seventh run: softmax at 4096 x 131072 ran at 50% of
# copy in the issue grid (run s13f: streamed rows, read twice). Rows of
# 128k split over clusters (2 CTAs with the slices in shared memory, 4 or
# 8 in registers) beside the default, two passes.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
SL=4096x131072,4096x32768,16384x32768,16x131072
for pass in a b; do
  i=0
  for sched in "" "row-cluster=2 stream-shared=true" "row-cluster=4" "row-cluster=8"; do
    timeout 120 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16,f32 --shapes=$SL \
      --csv="$OUT/v${i}_$pass.csv" --schedule="$sched" > /dev/null 2>&1 || echo "variant $i failed"
    i=$((i + 1))
  done
done
python3 tests/gpu/ab_table.py default="$OUT/v0_a.csv,$OUT/v0_b.csv" c2_shared="$OUT/v1_a.csv,$OUT/v1_b.csv" \
  c4="$OUT/v2_a.csv,$OUT/v2_b.csv" c8="$OUT/v3_a.csv,$OUT/v3_b.csv" | tee "$OUT/ab.txt"
pack_out
