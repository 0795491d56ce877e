#!/usr/bin/env bash
# Written in the forty-second session after runs s42a and s42b (an H100):
#  1. the copy_floor probe again, with the first wave's CTAs alone
#     prefetching their slices before the wait (as tilec's
#     row-l2-prefetch-first; s42a's "first" had every CTA do it), into
#     $OUT/copy_floor.txt;
#  2. A B, two passes: the norms and softmax with row-l2-prefetch-first
#     off against the default (auto: on for them), bf16 (decided on an
#     H200 in s38a; never measured on an H100), into $OUT/ab_*.csv.
set -u
cd "$(dirname "$0")/../../.."
source tests/gpu/device-setup.sh
begin_run
nvcc -arch=sm_90a -O3 -std=c++17 -o /tmp/copy_floor tests/gpu/probes/copy_floor.cu &&
  timeout 90 /tmp/copy_floor 2>&1 | tee "$OUT/copy_floor.txt"
TILEC_AB_TIMEOUT=90
S=4096x4096,4096x8192,16384x4096
for pass in 1 2; do
  for o in "" row-l2-prefetch-first=false; do
    t=$(echo "${o:-default}" | tr ' =' '_-')
    ab_bench "${o:-default}" "$OUT/ab_${pass}_$t.csv" --ops=rms_norm,layer_norm,softmax \
      --dtypes=bf16 --shapes=$S --schedule="$o"
  done
done > "$OUT/ab.txt"
python3 tests/gpu/ab_table.py \
  default="$OUT/ab_1_default.csv,$OUT/ab_2_default.csv" \
  first-off="$OUT/ab_1_row-l2-prefetch-first-false.csv,$OUT/ab_2_row-l2-prefetch-first-false.csv"
pack_out
