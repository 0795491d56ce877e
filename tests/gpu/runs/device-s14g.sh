#!/usr/bin/env bash
# Fourteenth session, seventh run: softmax bf16 over 128k columns with the
# new default (recompute-exp=auto: 680 us at 4096 rows in run s14f) beside
# row-scalars=auto (the division by the sum as one reciprocal a row: 1240
# SASS instructions instead of 1304) and --flush-subnormals (every f32
# instruction .ftz: 1104), two passes.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
SH=4096x131072,1024x131072
for pass in a b; do
  timeout 40 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=$SH --csv="$OUT/auto_$pass.csv" > /dev/null 2>&1 || echo "auto failed"
  timeout 40 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=$SH --schedule=row-scalars=auto --csv="$OUT/scalars_$pass.csv" > /dev/null 2>&1 || echo "scalars failed"
  timeout 40 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=$SH --flush-subnormals --csv="$OUT/ftz_$pass.csv" > /dev/null 2>&1 || echo "ftz failed"
done
python3 tests/gpu/ab_table.py auto="$OUT/auto_a.csv,$OUT/auto_b.csv" scalars="$OUT/scalars_a.csv,$OUT/scalars_b.csv" ftz="$OUT/ftz_a.csv,$OUT/ftz_b.csv" | tee "$OUT/ab.txt"
pack_out
