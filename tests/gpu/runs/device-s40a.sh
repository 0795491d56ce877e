#!/usr/bin/env bash
# Fortieth session, the tail of the budget on the machine that came (an
# H100): softmax over [16, 131072] (issue 3's small-shape bar of 7 us:
# 7.6 us bf16, 10.3 us f32 in this session's grid) under other cluster
# sizes and CTA sizes, and the rows-ahead prefetch with the first blocks'
# own rows on the elementwise kernels at 4096 and 16384 tokens (none by
# default), A B.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
for pass in 1 2; do
  for o in "" "row-cluster=8 max-threads-per-block=256" "row-cluster=8 max-threads-per-block=1024" \
           "row-cluster=4 max-threads-per-block=1024" "row-cluster=6 max-threads-per-block=1024" \
           "row-cluster=7" "row-cluster=5 max-threads-per-block=1024"; do
    t=$(echo "${o:-default}" | tr ' =' '_-')
    ab_bench "${o:-default}" "$OUT/wide_${pass}_$t.csv" --ops=softmax --dtypes=bf16,f32 \
      --shapes=16x131072,1x131072 --schedule="$o"
  done
  for o in "" "row-l2-prefetch=512 row-l2-prefetch-first=true" \
           "row-l2-prefetch=256 row-l2-prefetch-first=true" "row-l2-prefetch=512"; do
    t=$(echo "${o:-default}" | tr ' =' '_-')
    ab_bench "${o:-default}" "$OUT/ew_${pass}_$t.csv" --ops=rope,elementwise_chain,silu_mul \
      --dtypes=bf16 --shapes=4096x4096,16384x4096 --schedule="$o"
  done
done
pack_out
