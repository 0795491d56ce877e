#!/usr/bin/env bash
# Eleventh session, second run: is softmax [16, 131072] slow because 16
# clusters of 8 do not fit one CTA an SM (ncu: the busiest SM active 2x
# longer than in the same bytes without clusters)? Rows 8..16 of 131072 in
# clusters of 8, and 16 rows in clusters of 4 of 1024 threads.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
SH=8x131072,12x131072,14x131072,15x131072,16x131072,16x65536,15x65536,32x65536,128x16384
for pass in a b; do
  timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm --dtypes=bf16,f32 --shapes=$SH --csv="$OUT/d_$pass.csv" > /dev/null 2>&1
  timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm --dtypes=bf16,f32 --shapes=$SH --csv="$OUT/t1024k4_$pass.csv" --schedule="max-threads-per-block=1024 row-cluster-max=4" > /dev/null 2>&1
  timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm --dtypes=bf16,f32 --shapes=$SH --csv="$OUT/t1024k8_$pass.csv" --schedule="max-threads-per-block=1024" > /dev/null 2>&1
done
python3 tests/gpu/ab_table.py default="$OUT/d_a.csv,$OUT/d_b.csv" t1024k4="$OUT/t1024k4_a.csv,$OUT/t1024k4_b.csv" t1024k8="$OUT/t1024k8_a.csv,$OUT/t1024k8_b.csv" | tee "$OUT/ab.txt"
pack_out
